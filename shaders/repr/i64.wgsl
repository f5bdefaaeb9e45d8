// Element representation: int64, native (needs SHADER_INT64). Interface: see repr/f32.wgsl;
// layout: shared/lanes_one_group.wgsl. The product wraps modulo 2^64.

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0li);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

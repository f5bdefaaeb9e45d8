// Element representation: int64, native (needs SHADER_INT64). Element interface: shaders/README.md;
// layout: shared/lanes_one_group.wgsl. The product wraps modulo 2^64.

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0li);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0li);
}

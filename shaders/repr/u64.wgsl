// Element representation: uint64, native (needs SHADER_INT64). Element interface: shaders/README.md;
// layout: shared/lanes_one_group.wgsl. Never negative, so PRelu returns X.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

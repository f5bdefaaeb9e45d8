// Element representation: uint32 (PRelu only). Element interface: shaders/README.md; layout:
// shared/lanes_one_group.wgsl. Never negative, so PRelu returns X; values of 2^31 and above are
// large positives, not negatives.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

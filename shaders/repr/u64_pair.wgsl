// Element representation: uint64, emulated on (low, high) u32 pairs. Element interface:
// shaders/README.md; layout: shared/lanes_pairs.wgsl. Never negative, so PRelu returns X; values
// of 2^63 and above are large positives.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(mul_u64_pair(a.xy, b.xy), mul_u64_pair(a.zw, b.zw));
}

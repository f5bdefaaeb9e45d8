// Element representation: float64 in software, for adapters without SHADER_F64 (and when
// forced). Element interface: shaders/README.md; layout: shared/lanes_pairs.wgsl; arithmetic:
// compute/f64_soft.wgsl with compute/f64_lanes.wgsl, on shared/soft_f64.wgsl (correctly
// rounded). Elements are (low, high) u32 pairs, two per Vector; negativity is decided on the
// bits, so values that are not negative pass through bit for bit.

fn f64_is_negative(a: U64) -> bool {
    // Below the sign bit: 0 is -0.0, above 0x7ff00000_00000000 are the NaNs.
    let magnitude = U64(a.x, a.y & 0x7fffffffu);
    return f64_sign(a) == 1u && !u64_is_zero(magnitude) && !u64_less(U64(0u, 0x7ff00000u), magnitude);
}

fn is_negative(l: Lanes) -> Mask {
    return pair_mask(f64_is_negative(l.xy), f64_is_negative(l.zw));
}

fn is_zero(l: Lanes) -> Mask {
    return pair_mask(all(U64(l.x, l.y & 0x7fffffffu) == U64(0u)), all(U64(l.z, l.w & 0x7fffffffu) == U64(0u)));
}

fn is_nan(l: Lanes) -> Mask {
    return pair_mask(f64_is_nan(l.xy), f64_is_nan(l.zw));
}

fn to_compute(l: Lanes) -> Compute {
    return l;
}

fn from_compute(c: Compute) -> Lanes {
    return c;
}

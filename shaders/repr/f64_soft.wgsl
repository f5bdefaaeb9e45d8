// Element representation: float64 in software, for adapters without SHADER_F64 (and when
// forced). Interface: see repr/f32.wgsl; layout: shared/lanes_pairs.wgsl. Elements are
// (low, high) u32 pairs, two per Vector; the arithmetic is shared/soft_f64.wgsl, correctly
// rounded, so LeakyRelu and PRelu are exact and Elu is within 2 ULP, as on the native path.
// Negativity is decided on the bits, so values that are not negative pass through bit for bit.

alias Compute = vec4<u32>;

fn f64_is_negative(a: U64) -> bool {
    // Below the sign bit: 0 is -0.0, above 0x7ff00000_00000000 are the NaNs.
    let magnitude = U64(a.x, a.y & 0x7fffffffu);
    return f64_sign(a) == 1u && !u64_is_zero(magnitude) && !u64_less(U64(0u, 0x7ff00000u), magnitude);
}

fn is_negative(l: Lanes) -> Mask {
    return pair_mask(f64_is_negative(l.xy), f64_is_negative(l.zw));
}

fn to_compute(l: Lanes) -> Compute {
    return l;
}

fn from_compute(c: Compute) -> Lanes {
    return c;
}

fn from_attribute(a: f32) -> Compute {
    let d = f64_from_f32_bits(bitcast<u32>(a));
    return Compute(d, d);
}

fn mul(a: Compute, b: Compute) -> Compute {
    return Compute(f64_mul(a.xy, b.xy), f64_mul(a.zw, b.zw));
}

fn expm1(c: Compute) -> Compute {
    return Compute(f64_expm1(c.xy), f64_expm1(c.zw));
}

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

// ONNX Greater on one value: false when either is NaN; -0.0 equals +0.0.
fn f64_greater(a: U64, b: U64) -> bool {
    if (f64_is_nan(a) || f64_is_nan(b)) {
        return false;
    }
    let negative_a = f64_sign(a) == 1u;
    let negative_b = f64_sign(b) == 1u;
    let zero_a = u64_is_zero(U64(a.x, a.y & 0x7fffffffu));
    let zero_b = u64_is_zero(U64(b.x, b.y & 0x7fffffffu));
    if (zero_a && zero_b) {
        return false;
    }
    if (negative_a != negative_b) {
        return negative_b;
    }
    return select(f64_magnitude_less(b, a), f64_magnitude_less(a, b), negative_a);
}

fn greater(a: Compute, b: Compute) -> Mask {
    return pair_mask(f64_greater(a.xy, b.xy), f64_greater(a.zw, b.zw));
}

fn add(a: Compute, b: Compute) -> Compute {
    return Compute(f64_add(a.xy, b.xy), f64_add(a.zw, b.zw));
}

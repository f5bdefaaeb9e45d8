// Exact conversions between 16-bit float bits (in the low half of a u32) and f32, for the
// packed representations. Written on bits so that they behave the same on every adapter:
// WGSL leaves the rounding of f32 -> f16 conversions to the implementation, and these are
// round-to-nearest-even, keep signed zeros and infinities, and return quiet NaNs.

// binary16 -> f32, exact (subnormals included).
fn f16_bits_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let exponent = (h >> 10u) & 0x1fu;
    let mantissa = h & 0x3ffu;
    if (exponent == 0x1fu) {
        return bitcast<f32>(sign | 0x7f800000u | (mantissa << 13u));
    }
    if (exponent == 0u) {
        // mantissa * 2^-24: exact in f32, and a normal f32 whenever it is not zero.
        return bitcast<f32>(sign | bitcast<u32>(f32(mantissa) * 5.9604644775390625e-8));
    }
    return bitcast<f32>(sign | ((exponent + 112u) << 23u) | (mantissa << 13u));
}

// f32 -> binary16 bits, round to nearest, ties to even.
fn f32_to_f16_bits(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    let sign = (x >> 16u) & 0x8000u;
    let magnitude = x & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {
        return sign | 0x7e00u | ((magnitude >> 13u) & 0x1ffu);
    }
    if (magnitude >= 0x477ff000u) {
        // 65520 and above round to infinity (65520 is the tie between 65504 and 2^16).
        return sign | 0x7c00u;
    }
    if (magnitude >= 0x38800000u) {
        // Normal in f16: rebias the exponent, then round away the low 13 mantissa bits.
        let rebased = magnitude - 0x38000000u;
        return sign | ((rebased + 0x0fffu + ((rebased >> 13u) & 1u)) >> 13u);
    }
    // Subnormal or zero in f16: the mantissa is |v| * 2^24 rounded to an integer (ties to
    // even); scaling by 2^24 is exact, and 1024 carries into the smallest normal.
    return sign | u32(round(bitcast<f32>(magnitude) * 16777216.0));
}

// bfloat16 -> f32, exact: bf16 is the top half of an f32.
fn bf16_bits_to_f32(h: u32) -> f32 {
    return bitcast<f32>(h << 16u);
}

// f32 -> bfloat16 bits, round to nearest, ties to even; NaN stays NaN (quieted).
fn f32_to_bf16_bits(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (x >> 16u) | 0x40u;
    }
    return (x + 0x7fffu + ((x >> 16u) & 1u)) >> 16u;
}

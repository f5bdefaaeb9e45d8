// Exact conversions between 16-bit float bits (in the low half of each u32 lane) and f32,
// four lanes at a time, for the packed representations. Written on bits so that they behave
// the same on every adapter: WGSL leaves the rounding of f32 -> f16 conversions to the
// implementation, and these round to nearest-even, keep signed zeros and infinities, and
// return quiet NaNs. Branch-free: every case is computed and select() picks per lane.

// binary16 -> f32, exact (subnormals included).
fn f16_bits_to_f32(h: vec4<u32>) -> vec4<f32> {
    let sign = (h & vec4(0x8000u)) << vec4(16u);
    let exponent = (h >> vec4(10u)) & vec4(0x1fu);
    let mantissa = h & vec4(0x3ffu);
    let normal = sign | ((exponent + vec4(112u)) << vec4(23u)) | (mantissa << vec4(13u));
    let special = sign | vec4(0x7f800000u) | (mantissa << vec4(13u));
    // mantissa * 2^-24: exact in f32, and a normal f32 whenever it is not zero.
    let subnormal = sign | bitcast<vec4<u32>>(vec4<f32>(mantissa) * 5.9604644775390625e-8);
    let bits = select(select(normal, subnormal, exponent == vec4(0u)), special, exponent == vec4(0x1fu));
    return bitcast<vec4<f32>>(bits);
}

// f32 -> binary16 bits, round to nearest, ties to even.
fn f32_to_f16_bits(v: vec4<f32>) -> vec4<u32> {
    let x = bitcast<vec4<u32>>(v);
    let sign = (x >> vec4(16u)) & vec4(0x8000u);
    let magnitude = x & vec4(0x7fffffffu);
    let nan = sign | vec4(0x7e00u) | ((magnitude >> vec4(13u)) & vec4(0x1ffu));
    // 65520 and above round to infinity (65520 is the tie between 65504 and 2^16).
    let infinity = sign | vec4(0x7c00u);
    // Normal in f16: rebias the exponent, then round away the low 13 mantissa bits.
    let rebased = magnitude - vec4(0x38000000u);
    let normal = sign | ((rebased + vec4(0x0fffu) + ((rebased >> vec4(13u)) & vec4(1u))) >> vec4(13u));
    // Subnormal or zero in f16: the mantissa is |v| * 2^24 rounded to an integer (ties to
    // even); scaling by 2^24 is exact, and 1024 carries into the smallest normal.
    let subnormal = sign | vec4<u32>(round(bitcast<vec4<f32>>(magnitude) * 16777216.0));
    var bits = select(subnormal, normal, magnitude >= vec4(0x38800000u));
    bits = select(bits, infinity, magnitude >= vec4(0x477ff000u));
    return select(bits, nan, magnitude > vec4(0x7f800000u));
}

// bfloat16 -> f32, exact: bf16 is the top half of an f32.
fn bf16_bits_to_f32(h: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(h << vec4(16u));
}

// f32 -> bfloat16 bits, round to nearest, ties to even; NaN stays NaN (quieted).
fn f32_to_bf16_bits(v: vec4<f32>) -> vec4<u32> {
    let x = bitcast<vec4<u32>>(v);
    let rounded = (x + vec4(0x7fffu) + ((x >> vec4(16u)) & vec4(1u))) >> vec4(16u);
    let nan = (x >> vec4(16u)) | vec4(0x40u);
    return select(rounded, nan, (x & vec4(0x7fffffffu)) > vec4(0x7f800000u));
}

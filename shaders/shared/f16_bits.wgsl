// float16 bit patterns (in u32 lanes) to and from the f32 Compute, on the bits: what the
// emulated f16 path stores (repr/f16_packed.wgsl), and how the native one rounds before the
// device's own conversion (repr/f16.wgsl), whose rounding WGSL leaves to the implementation
// (NVIDIA's truncates).

// binary16 bits -> f32, exact (subnormals included).
fn f32_from_f16_bits(h: vec4<u32>) -> Compute {
    let sign = (h & vec4(0x8000u)) << vec4(16u);
    let magnitude = h & vec4(0x7fffu);
    // Normal, infinite and NaN: exponent and mantissa move into place as they are, and the
    // exponent is rebiased by 127 - 15, or to 255 from 31 (0x0f800000 + 0x70000000).
    let shifted = magnitude << vec4(13u);
    let normal = shifted + select(vec4(0x38000000u), vec4(0x70000000u), magnitude >= vec4(0x7c00u));
    // Zero and subnormal: mantissa * 2^-24, exact in f32, and a normal f32 whenever it is not
    // zero (a device that flushes subnormal f32 cannot lose it).
    let subnormal = bitcast<vec4<u32>>(vec4<f32>(magnitude) * 5.9604644775390625e-8);
    return bitcast<Compute>(sign | select(normal, subnormal, magnitude < vec4(0x400u)));
}

// f32 -> binary16 bits, round to nearest, ties to even.
fn f16_bits_from_f32(c: Compute) -> vec4<u32> {
    let x = bitcast<vec4<u32>>(c);
    let sign = (x >> vec4(16u)) & vec4(0x8000u);
    let magnitude = x & vec4(0x7fffffffu);
    // Normal in f16: rebias the exponent, then round away the low 13 mantissa bits.
    let rebased = magnitude - vec4(0x38000000u);
    let normal = (rebased + vec4(0x0fffu) + ((rebased >> vec4(13u)) & vec4(1u))) >> vec4(13u);
    // Subnormal or zero in f16: the mantissa is |v| * 2^24 rounded to an integer (ties to
    // even); scaling by 2^24 is exact, and 1024 carries into the smallest normal. Adding 2^23
    // rounds it so (the sum lies in [2^23, 2^24), ULP 1) and leaves the integer in the low
    // mantissa bits: no round() and no float-to-integer conversion, which Tint (Chromium's
    // WebGPU) makes compares and selects and SwiftShader a dozen operations.
    let subnormal = bitcast<vec4<u32>>(bitcast<vec4<f32>>(magnitude) * 16777216.0 + 8388608.0) - vec4(0x4b000000u);
    var bits = select(subnormal, normal, magnitude >= vec4(0x38800000u));
    // 65520 and above round to infinity (65520 is the tie between 65504 and 2^16).
    bits = select(bits, vec4(0x7c00u), magnitude >= vec4(0x477ff000u));
    // NaN stays NaN, quieted, with the top of its payload.
    bits = select(bits, vec4(0x7e00u) | ((magnitude >> vec4(13u)) & vec4(0x1ffu)), magnitude > vec4(0x7f800000u));
    return sign | bits;
}

// Element representation: float16, emulated on u32 words (adapters without SHADER_F16, or
// when forced). Element interface: shaders/README.md; layout: shared/lanes_halves.wgsl;
// arithmetic: compute/f32.wgsl. Widened
// exactly to f32, computed in f32, rounded back to nearest-even on the bits (shared/f16_bits.wgsl), so the result is
// the same on every adapter: WGSL leaves the rounding of f32 -> f16 conversions to the
// implementation, and these round to nearest-even, keep signed zeros and infinities, and
// return quiet NaNs. Branch-free: every case is computed and select() picks per lane.

fn is_negative(l: Lanes) -> Mask {
    // 0x8000 is -0.0, 0xfc00 is -inf, above it are the negative-signed NaNs.
    // Signed compares of the 16 bits, as in repr/f32.wgsl (SwiftShader has no unsigned one).
    let bits = bitcast<vec4<i32>>(l);
    return (bits > vec4(0x8000)) & (bits <= vec4(0xfc00));
}

fn is_zero(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffu)) == Lanes(0u);
}

fn is_nan(l: Lanes) -> Mask {
    return bitcast<vec4<i32>>(l & Lanes(0x7fffu)) > vec4(0x7c00);
}

fn to_compute(h: Lanes) -> Compute {
    return f32_from_f16_bits(h);
}

fn from_compute(c: Compute) -> Lanes {
    return f16_bits_from_f32(c);
}

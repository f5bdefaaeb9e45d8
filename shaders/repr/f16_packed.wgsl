// Element representation: float16, emulated on u32 words (adapters without SHADER_F16, or
// when forced). Interface: see repr/f32.wgsl; layout: shared/lanes_halves.wgsl. Widened
// exactly to f32, computed in f32, rounded back to nearest-even on the bits
// (shared/half_bits.wgsl), so the result is the same on every adapter.

fn is_negative(l: Lanes) -> Mask {
    // 0x8000 is -0.0, 0xfc00 is -inf, above it are the negative-signed NaNs.
    return (l > Lanes(0x8000u)) & (l <= Lanes(0xfc00u));
}

fn to_compute(l: Lanes) -> Compute {
    return f16_bits_to_f32(l);
}

fn from_compute(c: Compute) -> Lanes {
    return f32_to_f16_bits(c);
}

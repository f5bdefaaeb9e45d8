// Element representation: bfloat16, emulated on u32 words (no adapter has a bf16 type).
// Interface: see repr/f32.wgsl; layout: shared/lanes_halves.wgsl. Widened exactly to f32
// (the top half of an f32), computed in f32, rounded back to nearest-even on the bits.

fn is_negative(l: Lanes) -> Mask {
    // 0x8000 is -0.0, 0xff80 is -inf, above it are the negative-signed NaNs.
    return (l > Lanes(0x8000u)) & (l <= Lanes(0xff80u));
}

fn to_compute(l: Lanes) -> Compute {
    return bf16_bits_to_f32(l);
}

fn from_compute(c: Compute) -> Lanes {
    return f32_to_bf16_bits(c);
}

// Element representation: bfloat16 (no WGSL type exists on any adapter). Two elements per
// u32 word, low half first; widened exactly (bits << 16), computed in f32, narrowed with
// round-to-nearest-even (shared/half_bits.wgsl). Interface: see dtype_f32.wgsl.

alias Word = u32;
alias Bits = u32;
alias Compute = f32;
const LANES: u32 = 2u;

fn is_negative(b: Bits) -> bool {
    // 0x8000 is -0.0, 0xff80 is -inf, above are negative-signed NaNs.
    return b > 0x8000u && b <= 0xff80u;
}

fn to_compute(b: Bits) -> Compute {
    return bf16_bits_to_f32(b);
}

fn from_compute(v: Compute) -> Bits {
    return f32_to_bf16_bits(v);
}

fn expm1_compute(v: Compute) -> Compute {
    return expm1_f32(v);
}

// Element representation: float16, emulated (for adapters without SHADER_F16, or when
// forced). Two elements per u32 word, low half first; arithmetic in f32, rounded back with
// round-to-nearest-even by f32_to_f16_bits (shared/half_bits.wgsl). Interface: see
// dtype_f32.wgsl.

alias Word = u32;
alias Bits = u32;
alias Compute = f32;
const LANES: u32 = 2u;

fn is_negative(b: Bits) -> bool {
    // 0x8000 is -0.0, 0xfc00 is -inf, above are negative-signed NaNs.
    return b > 0x8000u && b <= 0xfc00u;
}

fn to_compute(b: Bits) -> Compute {
    return f16_bits_to_f32(b);
}

fn from_compute(v: Compute) -> Bits {
    return f32_to_f16_bits(v);
}

fn expm1_compute(v: Compute) -> Compute {
    return expm1_f32(v);
}

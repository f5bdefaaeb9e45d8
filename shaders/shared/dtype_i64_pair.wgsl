// Element representation: int64, emulated on vec2<u32> (low, high) for adapters without
// SHADER_INT64, or when forced. Wrapping multiply from shared/wide_u32.wgsl. Interface: see
// dtype_f32.wgsl.

alias Word = vec2<u32>;
alias Bits = vec2<u32>;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return (b.y >> 31u) == 1u;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return mul_u64_pair(a, b);
}

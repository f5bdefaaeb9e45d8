// Element representation: int64, native (needs SHADER_INT64). Multiplication wraps modulo
// 2^64. Interface: see dtype_f32.wgsl.

alias Word = i64;
alias Bits = i64;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return b < 0li;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return a * b;
}

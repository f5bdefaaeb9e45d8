// Element representation: uint64, native (needs SHADER_INT64). Never negative: PRelu returns
// X. Interface: see dtype_f32.wgsl.

alias Word = u64;
alias Bits = u64;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return false;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return a * b;
}

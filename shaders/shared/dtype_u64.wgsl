// Element representation: uint64, native (needs SHADER_INT64). Never negative: PRelu returns
// X. Interface: see dtype_f32.wgsl.

alias Word = u64;
alias Bits = u64;
const LANES: u32 = 1u;

fn word_lane(w: Word, i: u32) -> Bits {
    return w;
}

fn with_lane(w: Word, i: u32, b: Bits) -> Word {
    return b;
}

fn is_negative(b: Bits) -> bool {
    return false;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return a * b;
}

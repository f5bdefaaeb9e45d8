// Element representation: uint64, native (needs SHADER_INT64). Interface: see repr/f32.wgsl;
// layout: shared/lanes_direct.wgsl. Never negative, so PRelu returns X.

alias Vector = vec2<u64>;
alias Word = u64;
alias Lanes = vec2<u64>;
alias Element = u64;
alias Mask = vec2<bool>;
const VECTOR_LANES: u32 = 2u;
const GROUP_LANES: u32 = 2u;
const WORD_LANES: u32 = 1u;

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

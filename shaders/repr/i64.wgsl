// Element representation: int64, native (needs SHADER_INT64). Interface: see repr/f32.wgsl;
// layout: shared/lanes_direct.wgsl. The product wraps modulo 2^64.

alias Vector = vec2<i64>;
alias Word = i64;
alias Lanes = vec2<i64>;
alias Element = i64;
alias Mask = vec2<bool>;
const VECTOR_LANES: u32 = 2u;
const GROUP_LANES: u32 = 2u;
const WORD_LANES: u32 = 1u;

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0li);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

// Element representation: uint32 (PRelu only). Interface: see repr/f32.wgsl; layout:
// shared/lanes_direct.wgsl. Never negative, so PRelu returns X; values of 2^31 and above are
// large positives, not negatives.

alias Vector = vec4<u32>;
alias Word = u32;
alias Lanes = vec4<u32>;
alias Element = u32;
alias Mask = vec4<bool>;
const VECTOR_LANES: u32 = 4u;
const GROUP_LANES: u32 = 4u;
const WORD_LANES: u32 = 1u;

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

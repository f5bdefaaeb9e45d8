// Element representation: int32 (PRelu only). Interface: see repr/f32.wgsl; layout:
// shared/lanes_direct.wgsl. u32 words hold the two's-complement bits; the product wraps modulo
// 2^32, like numpy and ONNX Runtime's CPU provider.

alias Vector = vec4<u32>;
alias Word = u32;
alias Lanes = vec4<u32>;
alias Element = u32;
alias Mask = vec4<bool>;
const VECTOR_LANES: u32 = 4u;
const GROUP_LANES: u32 = 4u;
const WORD_LANES: u32 = 1u;

fn is_negative(l: Lanes) -> Mask {
    return (l >> Lanes(31u)) == Lanes(1u);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    // The low 32 bits of a product are the same for signed and unsigned operands.
    return a * b;
}

// Element representation: int32 (PRelu only). u32 words hold the two's-complement bits;
// multiplication wraps modulo 2^32 exactly like numpy and ONNX Runtime's CPU provider.
// Interface: see dtype_f32.wgsl.

alias Word = u32;
alias Bits = u32;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return (b >> 31u) == 1u;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    // The low 32 bits of a product are the same for signed and unsigned operands.
    return a * b;
}

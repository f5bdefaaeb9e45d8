// Element representation: int32 (PRelu only). Element interface: shaders/README.md; layout:
// shared/lanes_one_group.wgsl. u32 words hold the two's-complement bits; the product wraps modulo
// 2^32, like numpy and ONNX Runtime's CPU provider.

fn is_negative(l: Lanes) -> Mask {
    return (l >> Lanes(31u)) == Lanes(1u);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    // The low 32 bits of a product are the same for signed and unsigned operands.
    return a * b;
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0u);
}

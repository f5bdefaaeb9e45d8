// Element representation: int16 (Relu), packed two per u32 word on every adapter (WGSL has no
// 16-bit integers). Element interface: shaders/README.md; layout: shared/lanes_packed.wgsl, each
// element's two's-complement bits in the low half of a Lanes component.

fn is_negative(l: Lanes) -> Mask {
    return (l & Lanes(0x8000u)) != Lanes(0u);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0u);
}

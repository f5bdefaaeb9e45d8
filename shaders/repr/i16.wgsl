// Element representation: int16 (Relu, Clip, Shrink), packed two per u32 word on every adapter (WGSL has no
// 16-bit integers). Element interface: shaders/README.md; layout: shared/lanes_packed.wgsl, each
// element's two's-complement bits in the low half of a Lanes component.

fn is_negative(l: Lanes) -> Mask {
    return (l & Lanes(0x8000u)) != Lanes(0u);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0u);
}

// Clip's comparison and bounds: signed order (the half's sign moved to the top), and an
// attribute cast like X as Rust's `as` casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return bitcast<vec4<i32>>(a << Lanes(16u)) < bitcast<vec4<i32>>(b << Lanes(16u));
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let value = select(i32(clamp(a, -32768.0, 32767.0)), 0, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);
    return Lanes(bitcast<u32>(value) & 0xffffu);
}

// Shrink's arithmetic: sums and differences wrap modulo 2^16 (ONNX's Add and Sub), and x < -b
// is decided with -b wrapped too (Neg: -(-2^15) is itself).
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return (a + b) & Lanes(0xffffu);
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return (a - b) & Lanes(0xffffu);
}

fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, lanes_sub(Lanes(), b));
}

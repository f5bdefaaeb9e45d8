// Element representation: int8 and int16 (Relu from 14, Clip from 12, Shrink), packed four or
// two per u32 word on every adapter (WGSL has no 8- or 16-bit integers). Element interface:
// shaders/README.md; layout: shared/lanes_packed.wgsl, each element's two's-complement bits in
// the low PACKED_BITS of a Lanes component, zero above.

// The element's sign bit, and the shift that moves it to the top of a word.
const SIGN_BIT: u32 = 1u << (PACKED_BITS - 1u);
const SIGN_SHIFT: u32 = 32u - PACKED_BITS;

fn is_negative(l: Lanes) -> Mask {
    return (l & Lanes(SIGN_BIT)) != Lanes(0u);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0u);
}

// Clip's comparison and bounds: signed order (the element's sign moved to the top), and an
// attribute cast like X as Rust's `as` casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return bitcast<vec4<i32>>(a << Lanes(SIGN_SHIFT)) < bitcast<vec4<i32>>(b << Lanes(SIGN_SHIFT));
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let top = f32(SIGN_BIT);
    let value = select(i32(clamp(a, -top, top - 1.0)), 0, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);
    return Lanes(bitcast<u32>(value) & PACKED_MASK);
}

// Shrink's arithmetic: sums and differences wrap modulo 2^PACKED_BITS (ONNX's Add and Sub), and
// x < -b is decided with -b wrapped too (Neg: -(-2^(PACKED_BITS - 1)) is itself).
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return (a + b) & Lanes(PACKED_MASK);
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return (a - b) & Lanes(PACKED_MASK);
}

fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, lanes_sub(Lanes(), b));
}

// Clip's bound `slot` (0 min, 1 max): every bound of this type is an f32 (attributes.x, .y),
// so there is no residual.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    return lanes_from_attribute(attributes[slot]);
}

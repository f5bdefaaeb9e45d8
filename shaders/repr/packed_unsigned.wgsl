// Element representation: uint8 and uint16 (Clip from 12, Shrink), packed four or two per u32
// word on every adapter (WGSL has no 8- or 16-bit integers). Element interface:
// shaders/README.md; layout: shared/lanes_packed.wgsl, each element's bits in the low
// PACKED_BITS of a Lanes component, zero above. Never negative.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0u);
}

// Clip's comparison and bounds: unsigned order (the zero-extended elements compare as they are),
// and an attribute cast like X as Rust's `as` casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return a < b;
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let value = u32(clamp(a, 0.0, f32(PACKED_MASK)));
    return Lanes(select(value, 0u, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u));
}

// Shrink's arithmetic: sums and differences wrap modulo 2^PACKED_BITS (ONNX's Add and Sub), and
// x < -b is false: ONNX's Neg has no unsigned types, and -b is at most 0 for every b an
// attribute casts to.
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return (a + b) & Lanes(PACKED_MASK);
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return (a - b) & Lanes(PACKED_MASK);
}

fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return Mask(false);
}

// Clip's bound `slot` (0 min, 1 max): every bound of this type is an f32 (attributes.x, .y),
// so there is no residual.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    return lanes_from_attribute(attributes[slot]);
}

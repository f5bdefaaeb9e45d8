// Element representation: int32 (Relu, PRelu, Clip, Shrink). Element interface: shaders/README.md; layout:
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

// Clip's comparison and bounds: signed order, and an attribute cast like X as Rust's `as` casts
// it (toward zero, saturating, NaN to 0; f32 has no value between 2^31 - 128 and 2^31).
fn less(a: Lanes, b: Lanes) -> Mask {
    return bitcast<vec4<i32>>(a) < bitcast<vec4<i32>>(b);
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let value = select(i32(max(a, -2147483648.0)), 2147483647, a >= 2147483648.0);
    return Lanes(bitcast<u32>(select(value, 0, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u)));
}

// Shrink's comparison with -b, which is wrapped too (ONNX's Neg: -(-2^31) is itself); its
// sum and difference wrap (shared/wrapping_sums.wgsl).
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, Lanes() - b);
}

// Clip's bound `slot` (0 min, 1 max): the f32 of its leading bits (attributes.x, .y) plus its
// residual (.z, .w), exactly (both cast like X).
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    return lanes_add(lanes_from_attribute(attributes[slot]), lanes_from_attribute(attributes[slot + 2u]));
}

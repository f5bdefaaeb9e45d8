// Element representation: uint32 (PRelu, Clip, Shrink). Element interface: shaders/README.md; layout:
// shared/lanes_one_group.wgsl. Never negative, so PRelu returns X; values of 2^31 and above are
// large positives, not negatives.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

// Clip's comparison and bounds: unsigned order, and an attribute cast like X as Rust's `as`
// casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return a < b;
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let value = select(u32(max(a, 0.0)), 4294967295u, a >= 4294967296.0);
    return Lanes(select(value, 0u, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u));
}

// Shrink's comparison with -b: false, since ONNX's Neg has no unsigned types and -b is at most 0
// for every b an attribute casts to; its sum and difference wrap (shared/wrapping_sums.wgsl).
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return Mask(false);
}

// Clip's bound `slot` (0 min, 1 max): the f32 of its leading bits (attributes.x, .y) plus its
// residual (.z, .w), exactly (both cast like X).
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    return lanes_add(lanes_from_attribute(attributes[slot]), lanes_from_attribute(attributes[slot + 2u]));
}

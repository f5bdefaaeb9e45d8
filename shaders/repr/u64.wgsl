// Element representation: uint64, native (needs SHADER_INT64). Element interface: shaders/README.md;
// layout: shared/lanes_one_group.wgsl. Never negative, so PRelu returns X.

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
    let inside = u64(clamp(a, 0.0, 18446742974197923840.0));
    let value = select(inside, 18446744073709551615lu, a >= 18446744073709551616.0);
    return Lanes(select(value, 0lu, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u));
}

// Shrink's comparison with -b: false, since ONNX's Neg has no unsigned types and -b is at most 0
// for every b an attribute casts to; its sum and difference wrap (shared/wrapping_sums.wgsl).
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return Mask(false);
}

// Clip's bound `slot` (0 min, 1 max): the host sends a 64-bit X each bound's own bits, two
// words a bound (min's low and high word in .xy, max's in .zw; UnaryOp::parameter_block), so
// that every integer of the type is a bound.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    let words = bitcast<vec4<u32>>(attributes);
    return Lanes((u64(words[2u * slot + 1u]) << 32u) | u64(words[2u * slot]));
}

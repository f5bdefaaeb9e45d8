// Element representation: int64, native (needs SHADER_INT64). Element interface: shaders/README.md;
// layout: shared/lanes_one_group.wgsl. The product wraps modulo 2^64.

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0li);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return a * b;
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0li);
}

// Clip's comparison and bounds: signed order, and an attribute cast like X as Rust's `as` casts
// it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return a < b;
}

fn lanes_from_attribute(a: f32) -> Lanes {
    let inside = i64(clamp(a, -9223372036854775808.0, 9223371487098961920.0));
    let value = select(inside, 9223372036854775807li, a >= 9223372036854775808.0);
    return Lanes(select(value, 0li, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u));
}

// Shrink's comparison with -b, which is wrapped too (ONNX's Neg: -(-2^63) is itself); its
// sum and difference wrap (shared/wrapping_sums.wgsl).
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, Lanes() - b);
}

// Clip's bound `slot` (0 min, 1 max): the host sends a 64-bit X each bound's own bits, two
// words a bound (min's low and high word in .xy, max's in .zw; UnaryOp::parameter_block), so
// that every integer of the type is a bound.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    let words = bitcast<vec4<u32>>(attributes);
    // The low word masked: naga's u32 to i64 conversion extends its sign.
    return Lanes((i64(words[2u * slot + 1u]) << 32u) | (i64(words[2u * slot]) & 0xffffffffli));
}

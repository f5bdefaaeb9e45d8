// Element representation: uint64, emulated on (low, high) u32 pairs. Element interface:
// shaders/README.md; layout: shared/lanes_pairs.wgsl. Never negative, so PRelu returns X; values
// of 2^63 and above are large positives.

fn is_negative(l: Lanes) -> Mask {
    return Mask(false);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(mul_u64_pair(a.xy, b.xy), mul_u64_pair(a.zw, b.zw));
}

// Clip's comparison and bounds: unsigned order, and an attribute cast like X as Rust's `as`
// casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    return pair_mask(pair_below(a.xy, b.xy), pair_below(a.zw, b.zw));
}

fn lanes_from_attribute(a: f32) -> Lanes {
    var value = pair_from_magnitude(clamp(a, 0.0, 18446742974197923840.0));
    value = select(value, vec2<u32>(0xffffffffu), a >= 18446744073709551616.0);
    value = select(value, vec2<u32>(0u), (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);
    return Lanes(value, value);
}

// Shrink's arithmetic: sums and differences wrap modulo 2^64 (ONNX's Add and Sub), and
// x < -b is false: ONNX's Neg has no unsigned types, and -b is at most 0 for every b an
// attribute casts to.
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(pair_sum(a.xy, b.xy), pair_sum(a.zw, b.zw));
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(pair_sum(a.xy, pair_negated(b.xy)), pair_sum(a.zw, pair_negated(b.zw)));
}

fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return Mask(false);
}

// Clip's bound `slot` (0 min, 1 max): the host sends a 64-bit X each bound's own bits, two
// words a bound (min's low and high word in .xy, max's in .zw; UnaryOp::parameter_block), so
// that every integer of the type is a bound.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    let words = bitcast<vec4<u32>>(attributes);
    let bound = vec2(words[2u * slot], words[2u * slot + 1u]);
    return Lanes(bound, bound);
}

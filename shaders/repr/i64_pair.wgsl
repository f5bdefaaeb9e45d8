// Element representation: int64, emulated on (low, high) u32 pairs (adapters without
// SHADER_INT64, or when forced). Element interface: shaders/README.md; layout: shared/lanes_pairs.wgsl.
// The product wraps modulo 2^64 (shared/wide_u32.wgsl); nothing is truncated to 32 bits.

fn is_negative(l: Lanes) -> Mask {
    let sign = (l >> Lanes(31u)) == Lanes(1u);
    return pair_mask(sign.y, sign.w);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(mul_u64_pair(a.xy, b.xy), mul_u64_pair(a.zw, b.zw));
}

fn is_zero(l: Lanes) -> Mask {
    return pair_mask(all(l.xy == vec2(0u)), all(l.zw == vec2(0u)));
}

// Clip's comparison and bounds: signed order (the high words' signs flipped, then unsigned), and
// an attribute cast like X as Rust's `as` casts it (toward zero, saturating, NaN to 0).
fn less(a: Lanes, b: Lanes) -> Mask {
    let flip = vec2<u32>(0u, 0x80000000u);
    return pair_mask(pair_below(a.xy ^ flip, b.xy ^ flip), pair_below(a.zw ^ flip, b.zw ^ flip));
}

fn lanes_from_attribute(a: f32) -> Lanes {
    var value = pair_from_magnitude(min(abs(a), 9223371487098961920.0));
    value = select(value, pair_negated(value), a < 0.0);
    value = select(value, vec2<u32>(0xffffffffu, 0x7fffffffu), a >= 9223372036854775808.0);
    value = select(value, vec2<u32>(0u, 0x80000000u), a <= -9223372036854775808.0);
    value = select(value, vec2<u32>(0u), (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);
    return Lanes(value, value);
}

// Shrink's arithmetic: sums and differences wrap modulo 2^64 (ONNX's Add and Sub), and
// x < -b is decided with -b wrapped too (Neg: -(-2^63) is itself).
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(pair_sum(a.xy, b.xy), pair_sum(a.zw, b.zw));
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(pair_sum(a.xy, pair_negated(b.xy)), pair_sum(a.zw, pair_negated(b.zw)));
}

fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, Lanes(pair_negated(b.xy), pair_negated(b.zw)));
}

// Clip's bound `slot` (0 min, 1 max): the host sends a 64-bit X each bound's own bits, two
// words a bound (min's low and high word in .xy, max's in .zw; UnaryOp::parameter_block), so
// that every integer of the type is a bound.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    let words = bitcast<vec4<u32>>(attributes);
    let bound = vec2(words[2u * slot], words[2u * slot + 1u]);
    return Lanes(bound, bound);
}

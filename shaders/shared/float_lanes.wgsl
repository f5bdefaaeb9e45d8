// The element interface's arithmetic for the float representations, from their Compute
// interface (compute/f32.wgsl, compute/f64_lanes.wgsl); the integer representations define the
// same functions on their bits. CPU twins: the operators' (src/ops/prelu, clip, shrink), which
// the reference rounds once.

// PRelu's product, computed in Compute and rounded once to the element type. For the 16-bit
// types the product of two values is exact in f32, so the one rounding is the final one.
fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return from_compute(mul(to_compute(a), to_compute(b)));
}

// Clip's bound: an attribute cast like X (rounded once). Its comparison, `less`, and Shrink's
// `below_negated` are shared/float_compare.wgsl's (in Compute) or shared/halves_compare.wgsl's
// (on the bits of the packed 16-bit floats).
fn lanes_from_attribute(a: f32) -> Lanes {
    return from_compute(from_attribute(a));
}

// Shrink's x + bias where `up`, x - bias elsewhere, rounded once in the Compute type (subnormal
// results kept where the device flushes them: add_keeping_subnormals) and then to X's type. The
// host has cast bias like X (UnaryOp::parameter_block), so it is exact in Compute as it comes:
// casting it here, in every invocation, cost Shrink f16 half its speed on lavapipe.
fn shifted_by_attribute(x: Lanes, bias: f32, up: Mask) -> Lanes {
    let b = from_attribute(bias);
    return from_compute(add_keeping_subnormals(to_compute(x), pick(negate(b), b, up)));
}

// Clip's bound `slot` (0 min, 1 max): an f32 (attributes.x, .y) for the 16- and 32-bit floats;
// for an f64 X the host sends each bound's own bits instead, two words a bound (min's low and
// high word in .xy, max's in .zw; UnaryOp::parameter_block in src/ops/entry.rs), so that every
// f64 is a bound, 0.1 and 1e300 included, which the Compute interface's from_bound rebuilds.
fn lanes_from_bound(attributes: vec4<f32>, slot: u32) -> Lanes {
    let words = bitcast<vec4<u32>>(attributes);
    return from_compute(from_bound(attributes[slot], vec2(words[2u * slot], words[2u * slot + 1u])));
}

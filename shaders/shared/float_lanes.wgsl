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

// Shrink's arithmetic: a + b and a - b rounded once in the Compute type (subnormal results kept
// where the device flushes them: add_keeping_subnormals) and then to X's type.
fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return from_compute(add_keeping_subnormals(to_compute(a), to_compute(b)));
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return from_compute(add_keeping_subnormals(to_compute(a), negate(to_compute(b))));
}

// Clip's bound: an f32 (residual 0), or for an f64 X an f64 bound that no f32 holds, as its
// leading bits truncated to a normal f32 `a` and the low 29 bits of its significand in the
// residual, tagged with 0b011 in its top bits (src/dtype.rs, f64_bound_pair; the other float
// types never have one), which the Compute interface's from_f64_bound joins. No branch: a CPU
// adapter would run both sides for every element.
fn lanes_from_bound(a: f32, residual: f32) -> Lanes {
    let rest = bitcast<u32>(residual);
    let low = select(0u, rest & 0x1fffffffu, (rest & 0xe0000000u) == 0x60000000u);
    return from_compute(from_f64_bound(a, low));
}

// Clip's and Shrink's comparisons for the floats held as themselves (f32, native f16, f64 and
// software f64), in their Compute type: exact, false for NaN, -0.0 equal to +0.0.
// shared/halves_compare.wgsl computes the same on the bits of the packed 16-bit floats.

fn less(a: Lanes, b: Lanes) -> Mask {
    return greater(to_compute(b), to_compute(a));
}

// x < -b.
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return greater(negate(to_compute(b)), to_compute(x));
}

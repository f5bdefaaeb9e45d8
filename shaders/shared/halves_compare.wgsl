// Clip's and Shrink's comparisons for the packed 16-bit floats (float16 and bfloat16 on u32
// words, 16 bits a lane), on the bits: sign-magnitude as a signed order, so -0.0 equals +0.0,
// and false where either side is NaN (the representation's is_nan). The same results as
// shared/float_compare.wgsl's in Compute, without widening each element to f32 (float16's
// widening is a dozen operations: Clip f16 ran at 0.40 of the copy kernel on lavapipe with it).

fn halves_order(l: Lanes) -> vec4<i32> {
    let magnitude = bitcast<vec4<i32>>(l & Lanes(0x7fffu));
    return select(magnitude, -magnitude, (l & Lanes(0x8000u)) != Lanes(0u));
}

fn less(a: Lanes, b: Lanes) -> Mask {
    return (halves_order(a) < halves_order(b)) & !(is_nan(a) | is_nan(b));
}

// x < -b: -b is b with its sign bit flipped.
fn below_negated(x: Lanes, b: Lanes) -> Mask {
    return less(x, b ^ Lanes(0x8000u));
}

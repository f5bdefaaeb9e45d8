// Elementwise functions written on the Compute interface alone (shaders/README.md), once for
// every arithmetic: f32 (f32, f16, bf16), native f64 and software f64. CPU twin, generic over
// each arithmetic's steps: src/cpu/math_common.rs. Bounds against the correctly rounded result:
//   softsign_quotient       1 ULP (f32 and f64), whatever the device's division within 2.5 ULP
// NaN comes out of each as a NaN; the operators put X's own bits back.

// x / (1 + |x|): with y = 1 / (1 + |x|) from the device's quotient and its residual (1 - y) -
// |x| y (see math/f32.wgsl's reciprocal_of_one_plus), x y below |x| = 1 and 1 - y above, each
// rounded once. |x| is capped at 2^60, where the result is 1 in every width, so that infinities
// give 1 and not 0 x inf. x y is `mul`, exact on a device that flushes subnormals: a tiny x
// comes back as x itself.
fn softsign_quotient(x: Compute) -> Compute {
    let one = from_attribute(1.0);
    let a = pick(absolute(x), from_attribute(1152921504606846976.0), greater(absolute(x), from_attribute(1152921504606846976.0)));
    let y0 = quotient(one, add(one, a));
    let y = add(y0, mul(y0, mul_add(negate(a), y0, sub(one, y0))));
    let large = pick(sub(one, y), negate(sub(one, y)), greater(from_attribute(0.0), x));
    return pick(mul(x, y), large, !greater(one, a));
}

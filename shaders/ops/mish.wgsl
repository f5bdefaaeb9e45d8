// Mish (ONNX opsets 18, 22): Y = Mul(X, Tanh(Softplus(X))), on whole Lanes, from math's
// mish_product (math/f32.wgsl, math/f64.wgsl: tanh(log(1 + w)) = u / (1 + u) with u = w (1 +
// w / 2), w = e^X by our own exp, the reciprocal corrected by an exact residual, X times it with
// no intermediate factor rounded, scaled in steps so that a subnormal result is rounded once):
// within 3 ULP on f32 and f64. +inf for +inf, NaN for -inf (the body's -inf x 0); NaN comes
// back as X itself. CPU twin: src/ops/mish.rs.

fn mish(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(mish_product(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn mish_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(mish_product(to_compute(x)));
}

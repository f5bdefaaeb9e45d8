// Sigmoid (ONNX opsets 1, 6, 13): Y = 1 / (1 + exp(-X)), on whole Lanes, from math's logistic
// (math/f32.wgsl, math/f64.wgsl: e^-|x| by our own exp, the reciprocal corrected by its
// residual, subnormal results rounded once): within 2 ULP on f32 and f64, no NaN for any
// number, 0.0 for -inf, 1.0 for +inf; NaN comes back as X itself. CPU twin: src/ops/sigmoid.rs.

fn sigmoid(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(logistic(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn sigmoid_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(logistic(to_compute(x)));
}

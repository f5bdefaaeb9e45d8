// Softplus (ONNX opsets 1, 22): Y = Log(Add(Exp(X), 1)), on whole Lanes, from math's
// log_one_plus_exp (math/f32.wgsl, math/f64.wgsl: max(x, 0) + log1p(e^-|x|) by our own exp and
// log1p, so nothing overflows where the result is finite, and e^x itself, rounded once, where
// that is what the result rounds to, subnormals included): within 2 ULP on f32 and f64; +inf
// for +inf, 0 for -inf; NaN comes back as X itself. CPU twin: src/ops/softplus.rs.

fn softplus(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(log_one_plus_exp(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn softplus_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(log_one_plus_exp(to_compute(x)));
}

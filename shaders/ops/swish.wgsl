// Swish (ONNX opset 24): Y = Mul(X, Sigmoid(Mul(CastLike(alpha, X), X))), on whole Lanes, from
// math's logistic_product (math/f32.wgsl, math/f64.wgsl: the product alpha X kept exactly as a
// rounded part and its error, sigmoid of it from our own exp and a corrected reciprocal, times
// X, scaled in steps so that the result is rounded once, subnormal results included): within 3
// ULP on f32 and f64 for any alpha. alpha is rounded to X's dtype first, as CastLike does
// (attributes.x, cast by the host: UnaryOp::parameter_block). NaN comes back as X itself; an
// infinite X gives the body's product (+inf, or NaN where the sigmoid is 0). alpha 1 (SiLU, the
// default) has a kernel of its own, swish_alpha_one (UnaryOp::kernel_variant), on math's
// self_logistic_product: the product alpha X is then X itself, exact. CPU twin:
// src/ops/swish.rs.

fn swish(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let alpha = from_attribute(attributes.x);
    return select(from_compute(logistic_product(to_compute(x), alpha)), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn swish_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(logistic_product(to_compute(x), from_attribute(attributes.x)));
}

fn swish_alpha_one(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(self_logistic_product(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn swish_alpha_one_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(self_logistic_product(to_compute(x)));
}

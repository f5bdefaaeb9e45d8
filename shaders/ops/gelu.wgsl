// Gelu (ONNX opset 20), on whole Lanes, one function per value of its STRING attribute
// approximate, each a kernel of its own (UnaryOp::kernel_variant in src/ops/mod.rs):
// "none" (gelu), Y = 0.5 X (1 + erf(X / sqrt 2)) = X Phi(X), from math's normal_cdf_product (the
// negative tail X e^(-X^2/2) t G(t) from our own exp with X^2 kept exactly, never 1 + erf, which
// cancels: signs right and subnormal results rounded once); "tanh" (gelu_tanh), Y = 0.5 X (1 +
// tanh(sqrt(2/pi) (X + 0.044715 X^3))) = X sigmoid(2 sqrt(2/pi) (X + 0.044715 X^3)), from math's
// gelu_tanh_product (the sigmoid's argument as a double-double, the constants as real numbers).
// Within 3 ULP on f32 and f64 (math/f32.wgsl, math/f64.wgsl). NaN comes back as X itself; +inf
// gives +inf and -inf NaN (the body's -inf x 0). CPU twin: src/ops/gelu.rs.

fn gelu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(normal_cdf_product(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn gelu_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(normal_cdf_product(to_compute(x)));
}

fn gelu_tanh(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(gelu_tanh_product(to_compute(x))), x, is_nan(x));
}

// The form for the step's plain range (src/kernel/prune.rs), which holds no NaN: no select.
fn gelu_tanh_in_range(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(gelu_tanh_product(to_compute(x)));
}

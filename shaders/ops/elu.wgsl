// Elu (ONNX opsets 1, 6, 22): Y = Where(X < 0, alpha * (exp(X) - 1), X), on whole Lanes, with
// exp(X) - 1 from the representation's accurate expm1 (math/f32.wgsl, math/f64.wgsl).
// attributes.x is alpha. CPU twin: src/ops/elu.rs.

fn elu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(x, from_compute(mul(from_attribute(attributes.x), expm1(to_compute(x)))), is_negative(x));
}

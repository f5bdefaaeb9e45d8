// Selu (ONNX opsets 1, 6, 22): Y = Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X), on
// whole Lanes, with gamma * alpha * (exp(X) - 1) from the representation's accurate expm1
// (shared/expm1_*.wgsl). alpha * expm1(X) comes first: it cannot overflow (|expm1| <= 1), where
// gamma * alpha could. A NaN comes back as X itself (bit for bit), as gamma * NaN would be a NaN
// with unspecified bits. attributes.x is alpha, attributes.y is gamma.
// CPU twin: src/ops/selu.rs.

fn selu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let gamma = from_attribute(attributes.y);
    let negative = from_compute(mul(gamma, mul(from_attribute(attributes.x), expm1(c))));
    let scaled = from_compute(mul(gamma, c));
    return select(select(scaled, x, is_nan(x)), negative, is_negative(x));
}

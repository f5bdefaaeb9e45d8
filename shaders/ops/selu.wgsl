// Selu (ONNX opsets 1, 6, 22): Y = Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X), on
// whole Lanes, with gamma * alpha * (exp(X) - 1) from the representation's accurate expm1
// (math/f32.wgsl, math/f64.wgsl). attributes.x is alpha, attributes.y gamma; attributes.z is 1.0 where
// gamma * alpha is a finite f32: then expm1(X) is multiplied by that product (on a subnormal
// result, alpha * expm1(X) first would round twice in the subnormal range); else 0.0, and
// gamma * (alpha * expm1(X)) is taken, which cannot overflow (|expm1| <= 1). A NaN comes back as
// X itself (bit for bit), as gamma * NaN would be a NaN with unspecified bits.
// CPU twin: src/ops/selu.rs.

fn selu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let gamma = from_attribute(attributes.y);
    let product_first = attributes.z != 0.0;
    let outer = select(gamma, from_attribute(1.0), product_first);
    let inner = select(from_attribute(attributes.x), mul(gamma, from_attribute(attributes.x)), product_first);
    let negative = from_compute(mul(outer, mul(inner, expm1(c))));
    let scaled = from_compute(mul(gamma, c));
    return select(select(scaled, x, is_nan(x)), negative, is_negative(x));
}

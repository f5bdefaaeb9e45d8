// Selu (ONNX opsets 1, 6, 22): Y = Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X), on
// whole Lanes, with gamma * alpha * (exp(X) - 1) from the representation's accurate expm1
// (shared/expm1_*.wgsl). A NaN comes back as X itself (bit for bit), as gamma * NaN would be
// a NaN with unspecified bits. attributes.x is alpha, attributes.y is gamma.
// CPU twin: src/cpu/selu.rs.

const SELU_F32_MAX: f32 = 3.40282347e38;

fn selu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let alpha = from_attribute(attributes.x);
    let gamma = from_attribute(attributes.y);
    let e = expm1(c);
    // gamma * alpha rounds once and is exact in f64; where it overflows f32, alpha * expm1(x)
    // cannot (|expm1(x)| <= 1) and gamma scales it.
    let product = mul(gamma, alpha);
    let finite = greater(product, from_attribute(-SELU_F32_MAX)) & greater(from_attribute(SELU_F32_MAX), product);
    let negative = from_compute(select(mul(gamma, mul(alpha, e)), mul(product, e), finite));
    let scaled = from_compute(mul(gamma, c));
    // Every value but NaN exceeds -f32::MAX or is negative (and then takes the first branch).
    let not_nan = greater(c, from_attribute(-SELU_F32_MAX));
    return select(select(x, scaled, not_nan), negative, is_negative(x));
}

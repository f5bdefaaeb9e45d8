//! CPU twin of `shaders/ops/selu.wgsl`:
//! `Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X)`.

use super::Attributes;

/// Selu of one element widened exactly to f64: `gamma * alpha * expm1(x)` where `x < 0`,
/// `gamma * x` elsewhere, and `None` (X passes through) for NaN. `gamma * alpha` of two f32 is
/// exact in f64, and so is `gamma * x` for every f32, f16 and bf16 value, so the result is
/// rounded once to the dtype (expm1 in f64 is far more precise than any narrower dtype needs).
pub(crate) fn selu(x: f64, attributes: &Attributes) -> Option<f64> {
    let (alpha, gamma) = (f64::from(attributes[0]), f64::from(attributes[1]));
    match x {
        _ if x.is_nan() => None,
        _ if x < 0.0 => Some(gamma * alpha * x.exp_m1()),
        _ => Some(gamma * x),
    }
}

/// The kernel's parameters: alpha, gamma, and 1.0 where `gamma * alpha` is a finite f32 (the
/// kernel then multiplies expm1(x) by that product, one rounding fewer on a subnormal result),
/// 0.0 where it overflows f32 (the kernel then takes `gamma * (alpha * expm1(x))`, which cannot).
pub(crate) fn selu_parameters(attributes: &Attributes) -> Attributes {
    let product = (f64::from(attributes[0]) * f64::from(attributes[1])) as f32;
    [attributes[0], attributes[1], if product.is_finite() { 1.0 } else { 0.0 }, 0.0]
}

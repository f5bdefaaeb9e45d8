//! CPU twin of `shaders/ops/selu.wgsl`:
//! `Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X)`.

use super::{Attributes, ParameterBlock};
use crate::real::Real;

/// Selu of one element: `gamma * alpha * expm1(x)` where `x < 0`, `gamma * x` elsewhere, and
/// `None` (X passes through) for NaN. `gamma * alpha` of two f32 is exact in f64, and so is
/// `gamma * x` for every f32, f16 and bf16 value.
pub(crate) fn selu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    let (alpha, gamma) = (f64::from(attributes[0]), f64::from(attributes[1]));
    match x.to_f64() {
        v if v.is_nan() => None,
        v if v < 0.0 => Some(R::from_f64(gamma * alpha) * x.expm1()),
        _ => Some(R::from_f64(gamma) * x),
    }
}

/// The kernel's parameters: alpha, gamma, and 1.0 where `gamma * alpha` is a finite f32 (the
/// kernel then multiplies expm1(x) by that product, one rounding fewer on a subnormal result),
/// 0.0 where it overflows f32 (the kernel then takes `gamma * (alpha * expm1(x))`, which cannot).
pub(crate) fn selu_parameters(attributes: &Attributes) -> ParameterBlock {
    let product = (f64::from(attributes[0]) * f64::from(attributes[1])) as f32;
    [attributes[0], attributes[1], if product.is_finite() { 1.0 } else { 0.0 }, 0.0]
}

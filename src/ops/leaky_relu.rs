//! CPU twin of `shaders/ops/leaky_relu.wgsl`: `Where(X < 0, alpha * X, X)`.

use super::Attributes;
use crate::real::Real;

/// LeakyRelu of one element: `alpha * x` where `x < 0` (false for -0.0 and NaN), `None` (X
/// passes through) elsewhere. The product of an f32 alpha and any f32, f16 or bf16 value is
/// exact in f64, so rounding it once gives the correctly rounded result.
pub(crate) fn leaky_relu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    x.is_negative().then(|| R::from_f64(f64::from(attributes[0])) * x)
}

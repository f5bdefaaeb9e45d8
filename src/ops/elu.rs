//! CPU twin of `shaders/ops/elu.wgsl`: `Where(X < 0, alpha * (exp(X) - 1), X)`.

use super::Attributes;
use crate::real::Real;

/// Elu of one element: `alpha * expm1(x)` where `x < 0`, `None` (X passes through) elsewhere.
/// `expm1` is accurate near 0, where the spec's literal `exp(x) - 1` loses all its digits.
pub(crate) fn elu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    x.is_negative().then(|| R::from_f64(f64::from(attributes[0])) * x.expm1())
}

//! CPU twin of `shaders/ops/relu.wgsl`: `Max(X, 0)`.

use super::Attributes;
use crate::real::Real;

/// Relu of one element: `None` (X passes through) where `x > 0` or NaN, +0 elsewhere (-0.0 and
/// integer zero included).
pub(crate) fn relu<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    (x.to_f64() <= 0.0).then(|| R::from_f64(0.0))
}

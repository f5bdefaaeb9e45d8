//! CPU twin of `shaders/ops/thresholded_relu.wgsl`: `Where(Less(CastLike(alpha, X), X), X, 0)`.

use super::Attributes;
use crate::real::Real;

/// ThresholdedRelu of one element, with alpha already rounded to X's dtype (the table's
/// `attributes_like_x`): `None` (X passes through) where `x > alpha`, +0.0 elsewhere, NaN
/// included.
pub(crate) fn thresholded_relu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    if x.to_f64() > f64::from(attributes[0]) { None } else { Some(R::from_f64(0.0)) }
}

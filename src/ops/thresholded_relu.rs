//! CPU twin of `shaders/ops/thresholded_relu.wgsl`: `Where(Less(CastLike(alpha, X), X), X, 0)`.

use super::Attributes;

/// ThresholdedRelu of one element widened exactly to f64, with alpha already rounded to X's
/// dtype (the table's `attributes_like_x`): `None` (X passes through) where `x > alpha`, +0.0
/// elsewhere, NaN included.
pub(crate) fn thresholded_relu(x: f64, attributes: &Attributes) -> Option<f64> {
    if x > f64::from(attributes[0]) { None } else { Some(0.0) }
}

//! CPU twin of `shaders/ops/swish.wgsl`: `Mul(X, Sigmoid(Mul(CastLike(alpha, X), X)))`.

use super::Attributes;
use crate::real::{Real, times_logistic};

/// Swish of one element: x sigmoid(alpha x) without cancellation or overflow (the reference
/// takes alpha already rounded like X), `None` (X passes through) for NaN.
pub(crate) fn swish<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    Some(times_logistic(x, R::from_f64(f64::from(attributes[0])) * x))
}

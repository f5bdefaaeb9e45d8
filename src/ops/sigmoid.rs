//! CPU twin of `shaders/ops/sigmoid.wgsl`: `1 / (1 + exp(-X))`.

use super::Attributes;
use crate::real::Real;

/// Sigmoid of one element: `1 / (1 + e^-x)` for positive x and `e^x / (1 + e^x)` otherwise (no
/// cancellation either way, no overflow), `None` (X passes through) for NaN.
pub(crate) fn sigmoid<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    let one = R::from_f64(1.0);
    match x.to_f64() {
        v if v.is_nan() => None,
        v if v > 0.0 => Some(one / (one + (-x).exp())),
        _ => {
            let e = x.exp();
            Some(e / (one + e))
        }
    }
}

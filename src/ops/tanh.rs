//! CPU twin of `shaders/ops/tanh.wgsl`: `tanh(X)`.

use super::Attributes;
use crate::real::Real;

/// Tanh of one element: `-expm1(-2|x|) / (2 + expm1(-2|x|))` with x's sign (no cancellation, no
/// overflow), `None` (X passes through) for NaN.
pub(crate) fn tanh<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    let magnitude = if x.is_negative() { -x } else { x };
    let m = (R::from_f64(-2.0) * magnitude).expm1();
    let t = -m / (R::from_f64(2.0) + m);
    Some(if x.is_negative() { -t } else { t })
}

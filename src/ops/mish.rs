//! CPU twin of `shaders/ops/mish.wgsl`: `Mul(X, Tanh(Softplus(X)))`.

use super::Attributes;
use crate::real::Real;

/// Mish of one element: tanh(log(1 + w)) = u / (1 + u) with u = w (1 + w / 2), w = e^x, spelled
/// `x / (1 + 2 v^2 / (1 + 2 v))` with v = e^-x for positive x (no overflow) and `x u / (1 + u)`
/// otherwise (no cancellation either way); `None` (X passes through) for NaN.
pub(crate) fn mish<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    let (one, two) = (R::from_f64(1.0), R::from_f64(2.0));
    match x.to_f64() {
        v if v.is_nan() => None,
        v if v > 0.0 => {
            let e = (-x).exp();
            Some(x / (one + two * e * e / (one + two * e)))
        }
        _ => {
            let w = x.exp();
            let u = w * (one + w / two);
            Some(x * (u / (one + u)))
        }
    }
}

//! CPU twin of `shaders/ops/swish.wgsl`: `Mul(X, Sigmoid(Mul(CastLike(alpha, X), X)))`.

use super::Attributes;
use crate::cpu::Real;

/// Swish of one element: `x / (1 + e^-t)` for t = alpha x > 0 and `x e^t / (1 + e^t)`
/// otherwise (no cancellation, no overflow; the reference takes alpha already rounded like X),
/// `None` (X passes through) for NaN.
pub(crate) fn swish<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    let one = R::from_f64(1.0);
    let t = R::from_f64(f64::from(attributes[0])) * x;
    match (x.to_f64(), t.to_f64()) {
        (v, _) if v.is_nan() => None,
        (_, t_value) if t_value > 0.0 => Some(x / (one + (-t).exp())),
        _ => {
            let e = t.exp();
            Some(x * (e / (one + e)))
        }
    }
}

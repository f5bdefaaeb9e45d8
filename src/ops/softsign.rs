//! CPU twin of `shaders/ops/softsign.wgsl`: `Div(X, Add(1, Abs(X)))`.

use super::Attributes;
use crate::real::Real;

/// Softsign of one element: `x / (1 + |x|)`, `None` (X passes through) for NaN; +-inf give NaN,
/// the function body's inf / inf.
pub(crate) fn softsign<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    let magnitude = if x.is_negative() { -x } else { x };
    Some(x / (R::from_f64(1.0) + magnitude))
}

//! CPU twin of `shaders/ops/softplus.wgsl`: `Log(Add(Exp(X), 1))`.

use super::Attributes;
use crate::real::Real;

/// Softplus of one element: `x + log1p(e^-x)` for positive x and `log1p(e^x)` otherwise (no
/// overflow, no cancellation), `None` (X passes through) for NaN.
pub(crate) fn softplus<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    match x.to_f64() {
        v if v.is_nan() => None,
        v if v > 0.0 => Some(x + (-x).exp().ln_1p()),
        _ => Some(x.exp().ln_1p()),
    }
}

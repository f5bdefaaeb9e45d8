//! CPU twin of `shaders/ops/elu.wgsl`: `Where(X < 0, alpha * (exp(X) - 1), X)`.

use super::Attributes;

/// Elu of one element widened exactly to f64: `alpha * expm1(x)` where `x < 0`, `None` (X passes
/// through) elsewhere. `exp_m1` is accurate near 0, where the spec's literal `exp(x) - 1` loses
/// all its digits; in f64 the result is far more precise than any narrower dtype needs.
pub(crate) fn elu(x: f64, attributes: &Attributes) -> Option<f64> {
    (x < 0.0).then(|| f64::from(attributes[0]) * x.exp_m1())
}

//! CPU twin of `shaders/ops/celu.wgsl`: `alpha * Elu(X / alpha)`.

use crate::ops::Attributes;

/// Below this magnitude of `X / alpha`, `alpha * expm1(X / alpha)` rounds to X in every dtype.
const TINY_QUOTIENT: f64 = 7.888_609_052_210_118e-31; // 2^-100

/// Celu of one element widened exactly to f64. For a finite nonzero alpha: `alpha *
/// expm1(x / alpha)` where `x / alpha < -2^-100`, `None` (X passes through) elsewhere. For alpha
/// 0, infinite or NaN the body literally: `alpha * expm1(q)` where `q < 0`, else `alpha * q`.
pub(crate) fn celu(x: f64, attributes: &Attributes) -> Option<f64> {
    let alpha = f64::from(attributes[0]);
    let quotient = x / alpha;
    if alpha.is_finite() && alpha != 0.0 {
        (quotient < -TINY_QUOTIENT).then(|| alpha * quotient.exp_m1())
    } else if quotient < 0.0 {
        Some(alpha * quotient.exp_m1())
    } else {
        Some(alpha * quotient)
    }
}

/// The kernel's parameters: alpha, and 1 / alpha (correctly rounded in f64) as the sum of
/// three f32, largest first (zeros after the first where it is not finite).
pub(crate) fn celu_parameters(attributes: &Attributes) -> Attributes {
    let reciprocal = 1.0 / f64::from(attributes[0]);
    let high = reciprocal as f32;
    if !reciprocal.is_finite() || !high.is_finite() {
        return [attributes[0], high, 0.0, 0.0];
    }
    let rest = reciprocal - f64::from(high);
    let middle = rest as f32;
    let low = (rest - f64::from(middle)) as f32;
    [attributes[0], high, middle, low]
}

//! CPU twin of `shaders/ops/celu.wgsl`: `alpha * Elu(X / alpha)`.

use super::Attributes;

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

/// The kernel's parameters: alpha; 1 / alpha rounded once to f64, as the bits of its low and high
/// words (carried in f32 slots); and 1 / alpha's nearest f32.
pub(crate) fn celu_parameters(attributes: &Attributes) -> Attributes {
    let reciprocal = 1.0 / f64::from(attributes[0]);
    let bits = reciprocal.to_bits();
    [attributes[0], f32::from_bits(bits as u32), f32::from_bits((bits >> 32) as u32), reciprocal as f32]
}

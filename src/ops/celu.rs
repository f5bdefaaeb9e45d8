//! CPU twin of `shaders/ops/celu.wgsl`: `alpha * Elu(X / alpha)`.

use super::{Attributes, ParameterBlock};
use crate::real::Real;

/// Below this magnitude of `X / alpha`, `alpha * expm1(X / alpha)` rounds to X in every dtype.
const TINY_QUOTIENT: f64 = 7.888_609_052_210_118e-31; // 2^-100

/// Celu of one element. For a finite nonzero alpha: `alpha * expm1(x / alpha)` where `x /
/// alpha < -2^-100`, `None` (X passes through) elsewhere. For alpha 0, infinite or NaN the body
/// literally: `alpha * expm1(q)` where `q < 0`, else `alpha * q`.
pub(crate) fn celu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    let alpha = R::from_f64(f64::from(attributes[0]));
    let quotient = x / alpha;
    let q = quotient.to_f64();
    if attributes[0].is_finite() && attributes[0] != 0.0 {
        (q < -TINY_QUOTIENT).then(|| alpha * quotient.expm1())
    } else if q < 0.0 {
        Some(alpha * quotient.expm1())
    } else {
        Some(alpha * quotient)
    }
}

/// The kernel's parameters: alpha; 1 / alpha rounded once to f64, as the bits of its low and high
/// words (carried in f32 slots); and 1 / alpha's nearest f32.
pub(crate) fn celu_parameters(attributes: &Attributes) -> ParameterBlock {
    let reciprocal = 1.0 / f64::from(attributes[0]);
    let [low, high] = crate::dtype::slot_words_of_u64(reciprocal.to_bits());
    [attributes[0], low, high, reciprocal as f32]
}

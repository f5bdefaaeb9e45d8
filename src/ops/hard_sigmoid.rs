//! CPU twin of `shaders/ops/hard_sigmoid.wgsl`: `Max(Min(alpha * X + beta, 1), 0)`.

use super::Attributes;
use crate::cpu::Real;

/// HardSigmoid of one element: `max(0, min(1, alpha * x + beta))` with the f32 attributes,
/// `None` (X passes through) for NaN. `alpha * x` of an f32 alpha and an f32, f16 or bf16 x is
/// exact in f64.
pub(crate) fn hard_sigmoid<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    let line = R::from_f64(f64::from(attributes[0])) * x + R::from_f64(f64::from(attributes[1]));
    Some(match line.to_f64() {
        v if v > 1.0 => R::from_f64(1.0),
        v if v < 0.0 => R::from_f64(0.0),
        _ => line,
    })
}

/// The kernel's parameters: alpha and beta, but where beta is infinite and alpha finite and
/// nonzero, an alpha of its sign and magnitude 2^-126, so that the kernel's alpha X is finite
/// (at most 4) for every finite X, however the compute type would overflow alpha X, and beta
/// decides, as in real arithmetic (inf - inf must not come of it), while an infinite X still
/// gives the body's inf + inf or inf - inf.
pub(crate) fn hard_sigmoid_parameters(attributes: &Attributes) -> Attributes {
    let [alpha, beta, ..] = *attributes;
    let beta_rules = beta.is_infinite() && alpha.is_finite() && alpha != 0.0;
    [if beta_rules { f32::MIN_POSITIVE.copysign(alpha) } else { alpha }, beta, 0.0, 0.0]
}

//! CPU twin of `shaders/ops/hard_swish.wgsl`: `Mul(X, HardSigmoid<alpha = 0.16666667, beta =
//! 0.5>(X))`.

use super::Attributes;
use super::hard_sigmoid::hard_sigmoid;
use crate::real::Real;

/// The body's alpha: the f32 attribute 0.16666667, 0x3e2aaaab (not 1/6).
const ALPHA: f32 = 0.166_666_67;

/// HardSwish of one element: `x * max(0, min(1, alpha * x + 0.5))`, `None` (X passes through)
/// for NaN.
pub(crate) fn hard_swish<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    hard_sigmoid(x, &super::attributes_from(&[ALPHA, 0.5])).map(|gate| x * gate)
}

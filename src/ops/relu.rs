//! CPU twin of `shaders/ops/relu.wgsl`: `Max(X, 0)`.

use super::{Attributes, MAX_ATTRIBUTES};
use crate::real::{IntegerType, Real};

/// Relu of one element: `None` (X passes through) where `x > 0` or NaN, +0 elsewhere (-0.0 and
/// integer zero included).
pub(crate) fn relu<R: Real>(x: R, _attributes: &Attributes) -> Option<R> {
    (x.to_f64() <= 0.0).then(|| R::from_f64(0.0))
}

/// Relu of one integer (from version 14): 0 where `x < 0`, X elsewhere.
pub(crate) fn relu_integer(x: i128, _attributes: &[i128; MAX_ATTRIBUTES], _dtype: IntegerType) -> Option<i128> {
    (x < 0).then_some(0)
}

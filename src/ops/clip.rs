//! CPU twin of `shaders/ops/clip.wgsl`: its function body,
//! `Where(Less(max, T), max, T)` with `T = Where(Less(X, min), min, X)`.

use super::{Attributes, MAX_ATTRIBUTES};
use crate::real::{IntegerType, Real};

/// The infinity that Clip's integer bound `bound` of X's type `dtype` acts as, where it clips
/// nothing: min at the type's smallest value (X is never below it), max at its largest (never
/// above; and min cannot exceed it). So an exporter's int64 max of 2^63 - 1, which no f32 holds,
/// runs as +inf. `None` for every other bound and operator.
#[cfg(feature = "onnx")]
pub(crate) fn bound_without_effect(op: &super::UnaryOp, slot: usize, bound: i128, dtype: IntegerType) -> Option<f32> {
    let (smallest, largest) = if dtype.signed {
        (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1)
    } else {
        (0, (1 << dtype.bits) - 1)
    };
    match (std::ptr::eq(op, &super::CLIP), slot) {
        (true, 0) if bound == smallest => Some(f32::NEG_INFINITY),
        (true, 1) if bound == largest => Some(f32::INFINITY),
        _ => None,
    }
}

/// Clip of one element, with min and max already cast to X's dtype (the table's
/// `attributes_like_x`), or an f64 X's bound in full in its bound words
/// (`crate::dtype::f64_bound_slots`): min where X is below it, then max where that is above max;
/// `None` (X passes through) elsewhere, NaN included.
pub(crate) fn clip<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    let bound = |slot: usize| crate::ops::CLIP.f64_bound(attributes, slot).unwrap_or(f64::from(attributes[slot]));
    let (low, high) = (bound(0), bound(1));
    let value = x.to_f64();
    let raised = (value < low).then_some(low);
    if high < raised.unwrap_or(value) { Some(R::from_f64(high)) } else { raised.map(R::from_f64) }
}

/// Clip of one integer (from version 12), with min and max cast like X: the same body, exactly.
pub(crate) fn clip_integer(x: i128, attributes: &[i128; MAX_ATTRIBUTES], _dtype: IntegerType) -> Option<i128> {
    let (low, high) = (attributes[0], attributes[1]);
    let raised = (x < low).then_some(low);
    if high < raised.unwrap_or(x) { Some(high) } else { raised }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clipped(x: f64, low: f32, high: f32) -> Option<f64> {
        let mut attributes = crate::ops::CLIP.default_attributes();
        attributes[..2].copy_from_slice(&[low, high]);
        clip(x, &attributes)
    }

    #[test]
    fn follows_the_function_body() {
        assert_eq!(clipped(3.0, 0.0, 6.0), None);
        assert_eq!(clipped(-1.0, 0.0, 6.0), Some(0.0));
        assert_eq!(clipped(7.0, 0.0, 6.0), Some(6.0));
        assert_eq!(clipped(6.0, 0.0, 6.0), None);
        // min above max: max everywhere but NaN.
        assert_eq!(clipped(-5.0, 2.0, 1.0), Some(1.0));
        assert_eq!(clipped(5.0, 2.0, 1.0), Some(1.0));
        assert_eq!(clipped(f64::NAN, 2.0, 1.0), None);
        // A NaN bound clips nothing; infinite bounds clip nothing.
        assert_eq!(clipped(-1.0, f32::NAN, 6.0), None);
        assert_eq!(clipped(7.0, 0.0, f32::NAN), None);
        assert_eq!(clipped(f64::NEG_INFINITY, f32::NEG_INFINITY, f32::INFINITY), None);
        // Version 6's defaults clip an f64 beyond f32's range.
        assert_eq!(clipped(1e300, f32::MIN, f32::MAX), Some(f64::from(f32::MAX)));
        // -0.0 at a bound of +0.0 passes through.
        assert_eq!(clipped(-0.0, 0.0, 6.0), None);
    }
}

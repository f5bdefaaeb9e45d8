//! CPU twins of `shaders/ops/shrink.wgsl`: `X + bias` below `-lambd`, `X - bias` above `lambd`,
//! 0 elsewhere; on the integers the body's Add, Sub and Neg wrap.

use super::{Attributes, MAX_ATTRIBUTES};
use crate::real::{IntegerType, Real};

/// Shrink of one element, with lambd and bias already cast to X's dtype (the table's
/// `attributes_like_x`): the exact sum or difference where X lies outside `[-lambd, lambd]`,
/// +0.0 inside it and for NaN (the function body's comparisons are false there).
pub(crate) fn shrink<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    let (lambd, bias) = (f64::from(attributes[0]), f64::from(attributes[1]));
    let value = x.to_f64();
    Some(if value < -lambd {
        x + R::from_f64(bias)
    } else if value > lambd {
        x - R::from_f64(bias)
    } else {
        R::from_f64(0.0)
    })
}

/// Shrink of one integer, with lambd and bias cast like X: the function body's sum, difference
/// and `Neg(lambd)` wrapped like the dtype. ONNX's Neg takes no unsigned type; there X is never
/// below `-lambd` (at most 0 for every lambd the cast gives), as in the reference implementation.
pub(crate) fn shrink_integer(x: i128, attributes: &[i128; MAX_ATTRIBUTES], dtype: IntegerType) -> Option<i128> {
    let (lambd, bias) = (attributes[0], attributes[1]);
    let below = dtype.signed && x < dtype.wrapped(-lambd);
    Some(if below {
        dtype.wrapped(x + bias)
    } else if lambd < x {
        dtype.wrapped(x - bias)
    } else {
        0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_spec() {
        let shrunk = |x: f64| shrink(x, &crate::ops::attributes_from(&[0.5, 0.25]));
        assert_eq!(shrunk(-2.0), Some(-1.75));
        assert_eq!(shrunk(2.0), Some(1.75));
        assert_eq!(shrunk(0.5), Some(0.0));
        assert_eq!(shrunk(-0.5), Some(0.0));
        assert_eq!(shrunk(f64::NAN), Some(0.0));
        assert_eq!(shrunk(f64::INFINITY), Some(f64::INFINITY));
    }

    #[test]
    fn wraps_on_the_integers_as_the_body_does() {
        let int8 = IntegerType::of(crate::DType::I8).unwrap();
        let uint32 = IntegerType::of(crate::DType::U32).unwrap();
        let shrunk = |x, lambd, bias, dtype| shrink_integer(x, &[lambd, bias, 0, 0], dtype);
        assert_eq!(shrunk(-5, 2, 3, int8), Some(-2));
        assert_eq!(shrunk(5, 2, 3, int8), Some(2));
        assert_eq!(shrunk(2, 2, 3, int8), Some(0));
        assert_eq!(shrunk(-2, 2, 3, int8), Some(0));
        // The sum and the difference wrap; so does Neg(-128).
        assert_eq!(shrunk(-128, 0, -1, int8), Some(127));
        assert_eq!(shrunk(127, 0, -1, int8), Some(-128));
        assert_eq!(shrunk(-100, -128, 0, int8), Some(-100));
        assert_eq!(shrunk(-128, -128, 5, int8), Some(0));
        // Unsigned: never below -lambd; the difference wraps.
        assert_eq!(shrunk(1, 0, 5, uint32), Some(4_294_967_292));
        assert_eq!(shrunk(0, 0, 5, uint32), Some(0));
        assert_eq!(shrunk(3, 7, 5, uint32), Some(0));
    }
}

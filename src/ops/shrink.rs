//! CPU twin of `shaders/ops/shrink.wgsl`: `X + bias` below `-lambd`, `X - bias` above `lambd`,
//! 0 elsewhere.

use super::Attributes;
use crate::real::Real;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_spec() {
        let shrunk = |x: f64| shrink(x, &[0.5, 0.25, 0.0, 0.0]);
        assert_eq!(shrunk(-2.0), Some(-1.75));
        assert_eq!(shrunk(2.0), Some(1.75));
        assert_eq!(shrunk(0.5), Some(0.0));
        assert_eq!(shrunk(-0.5), Some(0.0));
        assert_eq!(shrunk(f64::NAN), Some(0.0));
        assert_eq!(shrunk(f64::INFINITY), Some(f64::INFINITY));
    }
}

//! CPU twin of `shaders/ops/swiglu.wgsl` and the reference of its results: SwiGLU, `(a b)
//! sigmoid(alpha a)`, in f64 for the 16- and 32-bit types (a b and alpha a are exact there) and
//! in the double-double [`Exact`] for f64, rounded once.

use ndarray::{Array, ArrayView, Dimension, Zip};

use crate::dtype::{DType, Element, FloatElement};
use crate::error::{Error, Result};
use crate::real::{Exact, Real, times_logistic};

/// SwiGLU of `a` and `b` (one shape) with `alpha`, into a new array in standard layout.
pub fn swiglu<T: FloatElement, D: Dimension>(
    a: ArrayView<'_, T, D>,
    b: ArrayView<'_, T, D>,
    alpha: f32,
) -> Result<Array<T, D>> {
    swiglu_of_any(a, b.into_dyn(), alpha)
}

/// One element, rounded once. An infinite B (or A) times the sigmoid of a finite alpha A is
/// A B, as the real function's limit: that sigmoid is above 0 however far below 0 alpha A lies
/// (an f64 exp of it would underflow to 0 below -745 and make it NaN); A 0 is NaN.
pub(crate) fn element<T: FloatElement>(a: T, b: T, alpha: f32) -> T {
    fn of<R: Real>(a: f64, b: f64, alpha: f32) -> f64 {
        let (a, b) = (R::from_f64(a), R::from_f64(b));
        times_logistic(a * b, R::from_f64(f64::from(alpha)) * a).to_f64()
    }
    let (a, b) = (a.to_f64(), b.to_f64());
    if a.is_infinite() || b.is_infinite() {
        // The sigmoid of alpha a is 0 only where alpha a is -inf as a real number (a infinite),
        // NaN where it is NaN; a finite a whose alpha a overflows f64 has one above 0.
        let t = f64::from(alpha) * a;
        let no_sigmoid = t.is_nan() || (a.is_infinite() && t == f64::NEG_INFINITY);
        return T::from_f64(if no_sigmoid { f64::NAN } else { a * b });
    }
    let value = if T::DTYPE == DType::F64 { of::<Exact>(a, b, alpha) } else { of::<f64>(a, b, alpha) };
    T::from_f64(value)
}

/// [`swiglu`] for an element type the caller knows only as [`Element`] (a chain's SwiGLU step
/// on the CPU) and a B of any dimension type.
pub(crate) fn swiglu_of_any<T: Element, D: Dimension>(
    a: ArrayView<'_, T, D>,
    b: ndarray::ArrayViewD<'_, T>,
    alpha: f32,
) -> Result<Array<T, D>> {
    same_shapes(a.shape(), b.shape())?;
    let mut out = a.as_standard_layout().into_owned();
    let b = b.into_dimensionality::<D>().map_err(|e| Error::Internal { what: e.to_string() })?;
    Zip::from(&mut out).and(&b).for_each(|y, &b| *y = element_of_any(*y, b, alpha));
    Ok(out)
}

/// Refuses A and B of two shapes: SwiGLU does not broadcast.
pub(crate) fn same_shapes(a: &[usize], b: &[usize]) -> Result<()> {
    if a == b {
        return Ok(());
    }
    Err(Error::ShapeMismatch {
        what: "SwiGLU's B (A and B take one shape, without broadcasting)".into(),
        expected: a.to_vec(),
        actual: b.to_vec(),
    })
}

/// [`element`] for an element type the caller knows only as [`Element`]: a chain's SwiGLU step
/// (only the float types reach it; an integer `a` comes back as it is).
pub(crate) fn element_of_any<T: Element>(a: T, b: T, alpha: f32) -> T {
    fn on<F: FloatElement, T: Element>(a: T, b: T, alpha: f32) -> T {
        bytemuck::cast(element::<F>(bytemuck::cast(a), bytemuck::cast(b), alpha))
    }
    match T::DTYPE {
        DType::BF16 => on::<half::bf16, T>(a, b, alpha),
        DType::F16 => on::<half::f16, T>(a, b, alpha),
        DType::F32 => on::<f32, T>(a, b, alpha),
        DType::F64 => on::<f64, T>(a, b, alpha),
        _ => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_swish_of_a_times_b() {
        let swish = |a: f64| a / (1.0 + (-a).exp());
        assert!((element(2.0f64, 3.0, 1.0) - swish(2.0) * 3.0).abs() < 1e-15);
        assert_eq!(element(0.0f32, 5.0, 1.0), 0.0);
        assert!(element(f32::NAN, 1.0, 1.0).is_nan() && element(1.0f32, f32::NAN, 1.0).is_nan());
        // A B beyond f32's range, its sigmoid far below 1: finite.
        let y = element(-100.0f32, 1e37, 1.0);
        assert!(y.is_finite() && y < 0.0, "{y}");
        assert!(swiglu(ndarray::arr1(&[1.0f32]).view(), ndarray::arr1(&[1.0f32, 2.0]).view(), 1.0).is_err());
    }
}

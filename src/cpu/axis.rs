//! CPU twin of `shaders/driver/axis.wgsl` and the reference of its results: Softmax, LogSoftmax
//! and Hardmax row by row, in f64 for the 16- and 32-bit types and in the double-double
//! [`Exact`] for f64, each result rounded once. The rows' special cases follow the function
//! bodies: a row holding NaN or +inf, or only -inf, is NaN throughout (Softmax, LogSoftmax);
//! -inf beside finite values gives 0 and -inf.

use ndarray::{Array, ArrayD, ArrayView, ArrayViewD, Dimension};

use crate::axis::{AxisLayout, check_axis_dtype, version_of};
use crate::dtype::{DType, FloatElement};
use crate::error::{Error, Result};
use crate::ops::{AxisKind, AxisOp};
use crate::real::{Exact, Real};

/// `op` (its version `version`, the newest if `None`) over `axis` of `x` on the CPU: each result
/// the correctly rounded one but for a rounding in f64 (f32, f16, bf16) or in a double-double
/// (f64). Output has X's shape in standard layout.
pub fn axis_op<T: FloatElement, D: Dimension>(
    op: &AxisOp,
    version: Option<u32>,
    x: ArrayView<'_, T, D>,
    axis: i64,
) -> Result<Array<T, D>> {
    let version = version_of(op, version)?;
    check_axis_dtype(op, version, T::DTYPE)?;
    let layout = AxisLayout::new(op, version, x.shape(), axis)?;
    rows(op.kind, layout, x.into_dyn())
        .into_dimensionality::<D>()
        .map_err(|e| Error::Internal { what: format!("a result in X's shape: {e}") })
}

/// `kind` over the rows of `layout` of `x`, into a new array of X's shape.
pub(crate) fn rows<T: FloatElement>(kind: AxisKind, layout: AxisLayout, x: ArrayViewD<'_, T>) -> ArrayD<T> {
    let values: Vec<f64> = x.as_standard_layout().iter().map(|v| v.to_f64()).collect();
    let mut out = vec![T::from_f64(0.0); values.len()];
    let mut row = Vec::with_capacity(layout.n);
    for r in 0..layout.rows() {
        row.clear();
        row.extend((0..layout.n).map(|i| values[layout.index(r, i)]));
        let results = if T::DTYPE == DType::F64 { row_of::<Exact>(kind, &row) } else { row_of::<f64>(kind, &row) };
        for (i, y) in results.into_iter().enumerate() {
            out[layout.index(r, i)] = T::from_f64(y);
        }
    }
    ArrayD::from_shape_vec(x.raw_dim(), out).unwrap_or_else(|_| unreachable!("one value per element of X"))
}

/// One row's results, each rounded once to f64 from `R`.
pub(crate) fn row_of<R: Real>(kind: AxisKind, row: &[f64]) -> Vec<f64> {
    if kind == AxisKind::Hardmax {
        let first_nan = row.iter().position(|v| v.is_nan());
        let first_max = || {
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            row.iter().position(|&v| v == max)
        };
        let marked = first_nan.or_else(first_max);
        return (0..row.len()).map(|i| if Some(i) == marked { 1.0 } else { 0.0 }).collect();
    }
    let all_negative_infinity = row.iter().all(|&v| v == f64::NEG_INFINITY);
    if row.iter().any(|&v| v.is_nan() || v == f64::INFINITY) || all_negative_infinity {
        return vec![f64::NAN; row.len()];
    }
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let at_max = row.iter().position(|&v| v == max);
    let difference = |v: f64| R::from_f64(v) - R::from_f64(max);
    // The terms, each computed once (the exact arithmetic's exp is most of the reference's
    // time), and the sum of all but one maximum's, which is exactly 1: LogSoftmax takes log1p of
    // it.
    let terms: Vec<R> = row.iter().map(|&v| difference(v).exp()).collect();
    let mut others = R::from_f64(0.0);
    for (i, (&v, &term)) in row.iter().zip(&terms).enumerate() {
        if Some(i) != at_max && v != f64::NEG_INFINITY {
            others = others + term;
        }
    }
    let sum = R::from_f64(1.0) + others;
    let log_sum = others.ln_1p();
    // Terms too small for the arithmetic (e^-1e30) are still above 0: at the maximum, LogSoftmax's
    // 0 - log1p(others) is then below 0, and rounds to -0.0.
    let others_vanished =
        others.to_f64() == 0.0 && row.iter().enumerate().any(|(i, &v)| Some(i) != at_max && v != f64::NEG_INFINITY);
    row.iter()
        .zip(terms)
        .map(|(&v, term)| match (kind, v == f64::NEG_INFINITY) {
            (AxisKind::Softmax, true) => 0.0,
            (AxisKind::Softmax, false) => (term / sum).to_f64(),
            (_, true) => f64::NEG_INFINITY,
            (_, false) if others_vanished && v == max => -0.0,
            (_, false) => (difference(v) - log_sum).to_f64(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_function_bodies() {
        let softmax = row_of::<f64>(AxisKind::Softmax, &[1.0, 2.0, 3.0]);
        let total: f64 = softmax.iter().sum();
        assert!((total - 1.0).abs() < 1e-15);
        assert!((softmax[2] - 1.0 / (1.0 + (-1.0f64).exp() + (-2.0f64).exp())).abs() < 1e-16);
        assert!(row_of::<f64>(AxisKind::Softmax, &[1.0, f64::NAN]).iter().all(|v| v.is_nan()));
        assert!(row_of::<f64>(AxisKind::LogSoftmax, &[1.0, f64::INFINITY]).iter().all(|v| v.is_nan()));
        assert!(row_of::<f64>(AxisKind::Softmax, &[f64::NEG_INFINITY; 2]).iter().all(|v| v.is_nan()));
        assert_eq!(row_of::<f64>(AxisKind::Softmax, &[f64::NEG_INFINITY, 0.0]), [0.0, 1.0]);
        assert_eq!(row_of::<f64>(AxisKind::LogSoftmax, &[f64::NEG_INFINITY, 5.0]), [f64::NEG_INFINITY, 0.0]);
        assert_eq!(row_of::<f64>(AxisKind::Softmax, &[7.0]), [1.0]);
        assert_eq!(row_of::<f64>(AxisKind::Hardmax, &[1.0, 3.0, 3.0, f64::NEG_INFINITY]), [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(row_of::<f64>(AxisKind::Hardmax, &[1.0, f64::NAN, 3.0, f64::NAN]), [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(row_of::<f64>(AxisKind::Hardmax, &[f64::NEG_INFINITY; 2]), [1.0, 0.0]);
        // The rest below every number: -0.0 at the maximum; nothing else in the row: +0.0.
        assert_eq!(row_of::<f64>(AxisKind::LogSoftmax, &[1e30, -1e30])[0].to_bits(), (-0.0f64).to_bits());
        assert_eq!(row_of::<f64>(AxisKind::LogSoftmax, &[3.0, f64::NEG_INFINITY])[0].to_bits(), 0.0f64.to_bits());
        // One term dominating: log1p of the rest, not log of a sum near 1 (-1e-13, not 0).
        let near_zero = row_of::<Exact>(AxisKind::LogSoftmax, &[0.0, -30.0]);
        assert!((near_zero[0] + (-30.0f64).exp()).abs() < 1e-25, "{near_zero:?}");
    }
}

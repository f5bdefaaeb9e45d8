//! The rows an operator over an axis reduces ([`crate::ops::AxisOp`]): a tensor seen as `[outer,
//! n, inner]`, each of its `outer * inner` rows `n` elements `inner` apart.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::{AxisOp, FIRST_SINGLE_AXIS_VERSION};

/// How a tensor splits into rows: element `i` of row `(o, j)` is at `(o * n + i) * inner + j`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxisLayout {
    /// The product of the dimensions before the axis.
    pub outer: usize,
    /// The row length: the axis's dimension (from version 13), or the product of the dimensions
    /// from the axis on (before 13, the 2-D coercion).
    pub n: usize,
    /// The product of the dimensions after the axis (1 before version 13).
    pub inner: usize,
}

impl AxisLayout {
    /// The rows of `op`'s version `version` over `axis` (negative: from the end) of a tensor of
    /// `shape`; an axis out of range is refused, naming the operator, version and rank.
    pub fn new(op: &AxisOp, version: u32, shape: &[usize], axis: i64) -> Result<AxisLayout> {
        let rank = shape.len() as i64;
        let out_of_range = || Error::InvalidAttribute {
            op: op.onnx_name,
            name: "axis",
            reason: format!(
                "{axis} is out of range for a tensor of rank {rank} (version {version} takes -{rank} to {})",
                rank - 1
            ),
        };
        if axis < -rank || axis >= rank {
            return Err(out_of_range());
        }
        let axis = if axis < 0 { axis + rank } else { axis } as usize;
        let product = |dims: &[usize]| dims.iter().product::<usize>();
        Ok(if version < FIRST_SINGLE_AXIS_VERSION {
            AxisLayout { outer: product(&shape[..axis]), n: product(&shape[axis..]), inner: 1 }
        } else {
            AxisLayout { outer: product(&shape[..axis]), n: shape[axis], inner: product(&shape[axis + 1..]) }
        })
    }

    /// How many rows.
    pub fn rows(&self) -> usize {
        self.outer * self.inner
    }

    /// The index of element `i` of row `row`.
    pub fn index(&self, row: usize, i: usize) -> usize {
        let (o, j) = (row / self.inner.max(1), row % self.inner.max(1));
        (o * self.n + i) * self.inner + j
    }
}

/// The version a call names, or the newest; refused where it is no version of `op`'s.
pub(crate) fn version_of(op: &AxisOp, version: Option<u32>) -> Result<u32> {
    let newest = op.newest_version();
    match version {
        None => Ok(newest),
        Some(v) if v >= 1 => Ok(v),
        Some(v) => Err(Error::InvalidAttribute {
            op: op.onnx_name,
            name: "version",
            reason: format!("{v} is no version of {} (1 to {newest})", op.onnx_name),
        }),
    }
}

/// Refuses a dtype that `op`'s version `version` does not allow.
pub(crate) fn check_axis_dtype(op: &AxisOp, version: u32, dtype: DType) -> Result<()> {
    if op.accepts_at(dtype, version) {
        Ok(())
    } else {
        Err(Error::DTypeNotAllowed { op: op.onnx_name, dtype, version: Some(version) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::SOFTMAX;

    #[test]
    fn rows_follow_each_versions_axis() {
        let shape = [2, 3, 4];
        assert_eq!(AxisLayout::new(&SOFTMAX, 13, &shape, -1).unwrap(), AxisLayout { outer: 6, n: 4, inner: 1 });
        assert_eq!(AxisLayout::new(&SOFTMAX, 13, &shape, 1).unwrap(), AxisLayout { outer: 2, n: 3, inner: 4 });
        assert_eq!(AxisLayout::new(&SOFTMAX, 11, &shape, 1).unwrap(), AxisLayout { outer: 2, n: 12, inner: 1 });
        assert_eq!(AxisLayout::new(&SOFTMAX, 1, &shape, 0).unwrap(), AxisLayout { outer: 1, n: 24, inner: 1 });
        assert_eq!(AxisLayout::new(&SOFTMAX, 11, &shape, -3).unwrap(), AxisLayout { outer: 1, n: 24, inner: 1 });
        let error = AxisLayout::new(&SOFTMAX, 13, &shape, 3).unwrap_err().to_string();
        assert!(error.contains("Softmax") && error.contains("axis") && error.contains("version 13"), "{error}");
        assert!(AxisLayout::new(&SOFTMAX, 13, &[], 0).is_err());
        let layout = AxisLayout::new(&SOFTMAX, 13, &shape, 1).unwrap();
        assert_eq!(layout.index(5, 2), 12 + 2 * 4 + 1);
    }
}

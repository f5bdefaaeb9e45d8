//! Operator versions and their type constraints, read from the operator table
//! ([`crate::ops`]): nothing about an operator is repeated here.

use crate::dtype::DType;
use crate::ops::version_at;

/// The newest default-domain opset the runner knows: the newest that onnx 1.23 (the package the
/// test data come from) defines. A model importing a newer one is refused, since an opset from
/// after this crate may have changed any operator it uses.
pub const NEWEST_OPSET: i64 = 28;

/// One of the operators the runner executes: an operator of the table by itself.
pub use crate::ops::Operator;

/// The version of `op` a model importing default-domain `opset` runs: the newest one not newer.
pub fn op_version(op: &str, opset: i64) -> Option<u32> {
    versions_of(op).and_then(|versions| version_at(versions, opset)).map(|v| v.since)
}

/// The versions of an operator of the tables: the elementwise ones and those over an axis.
fn versions_of(op: &str) -> Option<&'static [crate::ops::OpVersion]> {
    Operator::find(op)
        .map(|o| o.versions())
        .or_else(|| crate::ops::AxisOp::find(op).map(|o| o.versions))
        .or_else(|| (op == crate::ops::SWIGLU.onnx_name).then_some(crate::ops::SWIGLU.versions))
}

/// Whether `op` at `version` accepts `dtype` (the spec's type constraints).
pub fn allows(op: &str, version: u32, dtype: DType) -> bool {
    versions_of(op)
        .and_then(|versions| version_at(versions, i64::from(version)))
        .is_some_and(|v| v.dtypes.contains(&dtype))
}

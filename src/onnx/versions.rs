//! Operator versions and their type constraints, read from the operator table
//! ([`crate::ops`]): nothing about an operator is repeated here.

use crate::dtype::DType;
use crate::ops::version_at;

/// One of the operators the runner executes: an operator of the table by itself.
pub use crate::ops::Operator;

/// The version of `op` a model importing default-domain `opset` runs: the newest one not newer.
pub fn op_version(op: &str, opset: i64) -> Option<u32> {
    Operator::find(op).and_then(|o| version_at(o.versions(), opset)).map(|v| v.since)
}

/// Whether `op` at `version` accepts `dtype` (the spec's type constraints).
pub fn allows(op: &str, version: u32, dtype: DType) -> bool {
    Operator::find(op)
        .and_then(|o| version_at(o.versions(), i64::from(version)))
        .is_some_and(|v| v.dtypes.contains(&dtype))
}

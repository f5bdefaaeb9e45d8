//! Operator versions and their type constraints, read from the operator table
//! ([`crate::ops`]): nothing about an operator is repeated here.

use crate::dtype::DType;
use crate::ops::{OpVersion, PRELU, UNARY_OPS, UlpBounds, UnaryOp, version_at};

/// One of the operators the runner executes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operator {
    /// A unary operator of [`crate::ops::UNARY_OPS`].
    Unary(&'static UnaryOp),
    /// PRelu.
    PRelu,
}

impl Operator {
    /// The operator with this ONNX op type.
    pub fn find(op_type: &str) -> Option<Operator> {
        if op_type == PRELU.onnx_name {
            return Some(Operator::PRelu);
        }
        UNARY_OPS.iter().find(|op| op.onnx_name == op_type).map(|op| Operator::Unary(op))
    }

    /// The ONNX op type.
    pub fn name(&self) -> &'static str {
        match self {
            Operator::Unary(op) => op.onnx_name,
            Operator::PRelu => PRELU.onnx_name,
        }
    }

    /// Its versions, oldest first.
    pub fn versions(&self) -> &'static [OpVersion] {
        match self {
            Operator::Unary(op) => op.versions,
            Operator::PRelu => PRELU.versions,
        }
    }

    /// Its accuracy bounds.
    pub fn max_ulp(&self) -> UlpBounds {
        match self {
            Operator::Unary(op) => op.max_ulp,
            Operator::PRelu => PRELU.max_ulp,
        }
    }

    /// How many inputs a node of it takes.
    pub fn inputs(&self) -> usize {
        match self {
            Operator::Unary(_) => 1,
            Operator::PRelu => 2,
        }
    }
}

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

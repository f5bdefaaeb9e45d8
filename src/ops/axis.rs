//! The operators over an axis ([`AXIS_OPS`]): Softmax, LogSoftmax and Hardmax, each described
//! once, as [`super::UNARY_OPS`] describes the elementwise ones. Their kernel is
//! `shaders/driver/axis.wgsl` (one driver for the three), its CPU twin `src/cpu/axis.rs`, and the
//! rows a version reduces over are `crate::axis::AxisLayout`'s.

use super::{OpVersion, UlpBounds};
use crate::dtype::DType;

/// Which of the three an [`AxisOp`] is: the kernel's and the reference's one switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxisKind {
    /// `exp(x - max) / sum(exp(x - max))`.
    Softmax,
    /// `(x - max) - log(sum(exp(x - max)))`.
    LogSoftmax,
    /// 1 at the first maximum of each row (numpy's `argmax`: the first NaN if there is one), 0
    /// elsewhere.
    Hardmax,
}

/// An operator that reduces over an axis and writes a tensor of X's shape.
#[derive(Debug)]
pub struct AxisOp {
    /// The ONNX op type.
    pub onnx_name: &'static str,
    /// The name on the command line (`wgpu-act apply --op softmax --axis 1`).
    pub cli_name: &'static str,
    /// The ONNX versions, oldest first, with the element types each accepts. Before 13 the input
    /// is coerced to 2-D at `axis` (default 1) and each row is the flattened suffix; from 13 a
    /// row runs along one axis (default -1).
    pub versions: &'static [OpVersion],
    /// Accuracy of the GPU kernels against the correctly rounded result.
    pub max_ulp: UlpBounds,
    /// The real result, for the docs.
    pub formula: &'static str,
    /// Which operator it is.
    pub kind: AxisKind,
}

/// The first version whose rows run along one axis (default -1) instead of the 2-D coercion.
pub const FIRST_SINGLE_AXIS_VERSION: u32 = 13;

const FLOATS: &[DType] = &[DType::F16, DType::F32, DType::F64];
const FLOATS_BF16: &[DType] = &[DType::BF16, DType::F16, DType::F32, DType::F64];
const VERSIONS: &[OpVersion] = &[
    OpVersion { since: 1, dtypes: FLOATS },
    OpVersion { since: 11, dtypes: FLOATS },
    OpVersion { since: 13, dtypes: FLOATS_BF16 },
];

/// Softmax (1, 11, 13).
pub static SOFTMAX: AxisOp = AxisOp {
    onnx_name: "Softmax",
    cli_name: "softmax",
    versions: VERSIONS,
    max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
    formula: "exp(x - max(row)) / sum(exp(row - max(row)))",
    kind: AxisKind::Softmax,
};

/// LogSoftmax (1, 11, 13).
pub static LOG_SOFTMAX: AxisOp = AxisOp {
    onnx_name: "LogSoftmax",
    cli_name: "log-softmax",
    versions: VERSIONS,
    max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
    formula: "(x - max(row)) - log(sum(exp(row - max(row))))",
    kind: AxisKind::LogSoftmax,
};

/// Hardmax (1, 11, 13).
pub static HARDMAX: AxisOp = AxisOp {
    onnx_name: "Hardmax",
    cli_name: "hardmax",
    versions: VERSIONS,
    max_ulp: UlpBounds::EXACT,
    formula: "1 at the first maximum of the row, else 0",
    kind: AxisKind::Hardmax,
};

/// Every operator over an axis.
pub static AXIS_OPS: &[&AxisOp] = &[&SOFTMAX, &LOG_SOFTMAX, &HARDMAX];

impl AxisOp {
    /// The operator with this ONNX name or command-line name.
    pub fn find(name: &str) -> Option<&'static AxisOp> {
        AXIS_OPS.iter().copied().find(|op| op.onnx_name == name || op.cli_name == name)
    }

    /// The default `axis` of version `version`: 1 before 13, -1 from 13.
    pub fn default_axis(&self, version: u32) -> i64 {
        if version < FIRST_SINGLE_AXIS_VERSION { 1 } else { -1 }
    }

    /// The newest version.
    pub fn newest_version(&self) -> u32 {
        self.versions.last().map_or(FIRST_SINGLE_AXIS_VERSION, |v| v.since)
    }

    /// True when some version accepts `dtype`.
    pub fn accepts(&self, dtype: DType) -> bool {
        self.versions.iter().any(|v| v.dtypes.contains(&dtype))
    }

    /// True when version `version` (the newest one at or below it) accepts `dtype`.
    pub fn accepts_at(&self, dtype: DType, version: u32) -> bool {
        self.versions.iter().rev().find(|v| v.since <= version).is_some_and(|v| v.dtypes.contains(&dtype))
    }
}

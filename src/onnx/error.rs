//! The ONNX layer's error type: what can be wrong with a file or a graph, and the kernel
//! library's own errors, wrapped with their source kept.

use crate::error::Error;

/// Everything that can go wrong loading or running an ONNX model or tensor, as a value.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// The kernel library refused or failed (a shape that does not broadcast, a dtype an
    /// operator version does not accept, no GPU, ...).
    #[error(transparent)]
    Core(#[from] Error),

    /// A file could not be read, or is larger than the loaders accept.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },

    /// A model or tensor could not be decoded or is inconsistent.
    #[error("malformed ONNX data: {0}")]
    Malformed(String),

    /// A tensor has an element type the operators never accept.
    #[error("ONNX tensor {tensor:?} has data type {code}, which none of the operators accepts")]
    UnsupportedDataType {
        /// Tensor name.
        tensor: String,
        /// `TensorProto.DataType` code.
        code: i32,
    },

    /// The model contains an operator this crate does not run.
    #[error(
        "ONNX operator {op} (node {node:?}) is not supported: only the operators of `wgpu-act ops` (and their function-body expansions) run"
    )]
    UnsupportedOp {
        /// The op type (and domain, when not the default one).
        op: String,
        /// The node's name.
        node: String,
    },

    /// The graph is inconsistent (missing input, cycle, value produced twice, ...).
    #[error("ONNX graph: {0}")]
    Graph(String),
}

impl OnnxError {
    /// True when the error is about the input (a file, a model, shapes, dtypes), false when the
    /// machine failed (no adapter, a GPU error, a device limit): the CLI's exit 2 against 1.
    pub fn is_bad_input(&self) -> bool {
        match self {
            OnnxError::Core(error) => error.is_bad_input(),
            OnnxError::File { .. }
            | OnnxError::Malformed(_)
            | OnnxError::UnsupportedDataType { .. }
            | OnnxError::UnsupportedOp { .. }
            | OnnxError::Graph(_) => true,
        }
    }
}

/// Shorthand for `Result<T, OnnxError>`.
pub type OnnxResult<T> = std::result::Result<T, OnnxError>;

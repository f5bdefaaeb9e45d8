//! The crate's one error type.

use crate::dtype::DType;

/// Everything that can go wrong in `wgpu-activations`, as a value: no user input panics.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No GPU adapter was found on any enabled backend.
    #[error(
        "no GPU adapter found (backends: {backends}); install a Vulkan driver \
         (on Debian/Ubuntu: apt-get install mesa-vulkan-drivers) or run `cargo xtask test`, which installs one"
    )]
    NoAdapter {
        /// The backends that were searched, as wgpu names them.
        backends: String,
    },

    /// `WGPU_ADAPTER_NAME` named an adapter that does not exist.
    #[error("WGPU_ADAPTER_NAME={requested:?} matches no adapter; available: {available:?}")]
    AdapterNotFound {
        /// The requested (case-insensitive) substring.
        requested: String,
        /// Names of the adapters that do exist.
        available: Vec<String>,
    },

    /// The adapter refused to create a device.
    #[error("could not create a device on the adapter: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),

    /// The slope of PRelu cannot be broadcast to X.
    #[error(
        "PRelu slope of shape {slope:?} does not broadcast to X of shape {x:?} \
         ({rule})"
    )]
    NotBroadcastable {
        /// Shape of X.
        x: Vec<usize>,
        /// Shape of the slope.
        slope: Vec<usize>,
        /// Which broadcasting rule was applied (and what it requires).
        rule: &'static str,
    },

    /// Two tensors that must agree in shape do not.
    #[error("shape mismatch in {what}: expected {expected:?}, got {actual:?}")]
    ShapeMismatch {
        /// What was being checked.
        what: String,
        /// The shape that was required.
        expected: Vec<usize>,
        /// The shape that was given.
        actual: Vec<usize>,
    },

    /// The element type is not allowed for this operator (or this operator version).
    #[error("{op} does not accept element type {dtype}{}", version.map(|v| format!(" in opset {v}")).unwrap_or_default())]
    DTypeNotAllowed {
        /// Operator name as ONNX spells it.
        op: &'static str,
        /// The refused element type.
        dtype: DType,
        /// The operator version, when one applies.
        version: Option<u32>,
    },

    /// A tensor holds a different element type than the caller asked for.
    #[error("dtype mismatch: expected {expected}, found {actual}")]
    DTypeMismatch {
        /// The element type that was requested.
        expected: DType,
        /// The element type the tensor holds.
        actual: DType,
    },

    /// The device cannot run this (operator, dtype) and no fallback was enabled.
    #[error("{op} on {dtype} is not supported on this device: {reason}")]
    Unsupported {
        /// Operator name.
        op: &'static str,
        /// Element type.
        dtype: DType,
        /// Why, and what would make it work.
        reason: String,
    },

    /// A tensor exceeds a limit of the device or of the implementation.
    #[error("{what} needs {needed} but the limit is {limit}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// What it needs.
        needed: u64,
        /// The limit it exceeds.
        limit: u64,
    },

    /// An attribute value is outside what the operator accepts.
    #[error("invalid attribute {name} of {op}: {reason}")]
    InvalidAttribute {
        /// Operator name.
        op: &'static str,
        /// Attribute name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },

    /// A generated shader failed validation; carries the WGSL so it can be inspected.
    #[error("shader {label} failed to compile: {message}\n--- generated WGSL ---\n{wgsl}")]
    Shader {
        /// Label of the shader (`wgpu-activations.<op>.<dtype>`).
        label: String,
        /// The validation message from wgpu/naga.
        message: String,
        /// The complete generated WGSL source.
        wgsl: String,
    },

    /// A device tensor made by another [`crate::Context`] (another device) was passed in.
    #[error("a {dtype} tensor of shape {shape:?} belongs to another Context; upload it to this one")]
    ForeignTensor {
        /// Shape of the tensor.
        shape: Vec<usize>,
        /// Element type of the tensor.
        dtype: DType,
    },

    /// An ONNX file (model or tensor) could not be decoded or is inconsistent.
    #[error("malformed ONNX data: {0}")]
    OnnxMalformed(String),

    /// An ONNX tensor has an element type the operators never accept.
    #[error("ONNX tensor {tensor:?} has data type {code}, which LeakyRelu, Elu and PRelu do not accept")]
    OnnxUnsupportedDataType {
        /// Tensor name.
        tensor: String,
        /// `TensorProto.DataType` code.
        code: i32,
    },

    /// An ONNX model contains an operator this crate does not run.
    #[error("ONNX operator {op} (node {node:?}) is not supported: only LeakyRelu, Elu and PRelu (and their function-body expansions) run")]
    OnnxUnsupportedOp {
        /// The op type (and domain, when not the default one).
        op: String,
        /// The node's name.
        node: String,
    },

    /// An ONNX graph is inconsistent (missing input, cycle, value produced twice, ...).
    #[error("ONNX graph: {0}")]
    OnnxGraph(String),

    /// The GPU reported an error while running or reading back a computation.
    #[error("GPU error during {during}: {message}")]
    Gpu {
        /// The step that failed.
        during: &'static str,
        /// The message from wgpu.
        message: String,
    },
}

/// Shorthand for `Result<T, wgpu_activations::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

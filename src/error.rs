//! The kernel library's error type. The ONNX layer has its own ([`crate::onnx::OnnxError`]),
//! which wraps this one.

use std::time::Duration;

use crate::dtype::DType;

/// Everything that can go wrong in the kernel library, as a value: no user input panics.
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

    /// `WGPU_ADAPTER_NAME` (or [`crate::ContextOptions::with_adapter_name`]) named no adapter.
    #[error("adapter name {requested:?} matches no adapter; available: {available:?}")]
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
    #[error("PRelu slope of shape {slope:?} does not broadcast to X of shape {x:?} ({rule})")]
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

    /// A shape the operators accept but the kernels cannot index (a fixed limit of ours).
    #[error("{what} is not supported: {reason}")]
    UnsupportedShape {
        /// The operation and shapes.
        what: String,
        /// Which limit it exceeds.
        reason: String,
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

    /// An attribute value is outside what the operator accepts, or a chain is malformed.
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

    /// A buffer handed to [`crate::Context::tensor_from_buffer`] cannot hold the tensor, or
    /// tensors overlap in a way one dispatch cannot bind.
    #[error("{reason}")]
    InvalidBuffer {
        /// What is wrong, with the numbers.
        reason: String,
    },

    /// wgpu reported an error for our calls (caught in the error scopes around them).
    #[error("wgpu error during {during}: {message}")]
    Wgpu {
        /// The step that failed.
        during: &'static str,
        /// wgpu's report, on one line.
        message: String,
        /// The error itself.
        #[source]
        source: wgpu::Error,
    },

    /// Mapping a buffer to read a result failed (wgpu's map callback said so).
    #[error("GPU error during {during}: {message}")]
    Gpu {
        /// The step that failed.
        during: &'static str,
        /// What wgpu said.
        message: String,
    },

    /// A fused chain longer than one kernel runs, or an empty one.
    #[error("a fused chain holds 1 to {max} steps, got {steps}")]
    ChainLength {
        /// Steps given.
        steps: usize,
        /// Steps one kernel runs at most.
        max: usize,
    },

    /// A fault of this crate, not of the input or the machine: an invariant did not hold.
    /// Please report it with the message.
    #[error("internal fault of wgpu-activations (please report): {what}")]
    Internal {
        /// Which invariant, with the numbers.
        what: String,
    },

    /// The device was lost or destroyed; this context can do nothing more. A new
    /// [`crate::Context`] on a working device can.
    #[error("the GPU device was lost: {reason}")]
    DeviceLost {
        /// What wgpu said.
        reason: String,
    },

    /// The GPU did not finish in time ([`crate::ContextOptions::with_readback_timeout`]).
    #[error("{during} did not finish within {after:?}")]
    Timeout {
        /// What was waited for.
        during: &'static str,
        /// How long.
        after: Duration,
    },

    /// Validation mode ([`crate::ContextOptions::with_validation`]) found a GPU result outside
    /// its bound of the CPU reference.
    #[error(
        "validation: {op} on {dtype} at flat index {index}: GPU {gpu}, CPU reference {reference} \
         (more than {bound} ULP apart)"
    )]
    ValidationMismatch {
        /// The operator, or the chain of operators, that produced the result.
        op: String,
        /// Element type.
        dtype: DType,
        /// Flat index of the first element outside the bound.
        index: usize,
        /// The GPU's value.
        gpu: String,
        /// The reference's value.
        reference: String,
        /// The bound it exceeded.
        bound: u64,
    },
}

/// Shorthand for `Result<T, wgpu_activations::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// True when the error is about the input the caller gave (shapes, dtypes, attributes,
    /// buffers), false when the machine failed or lacks something (no adapter, a GPU error, a
    /// device limit): the CLI's exit status 2 against 1.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Error::NotBroadcastable { .. }
            | Error::ShapeMismatch { .. }
            | Error::UnsupportedShape { .. }
            | Error::DTypeNotAllowed { .. }
            | Error::DTypeMismatch { .. }
            | Error::InvalidAttribute { .. }
            | Error::ChainLength { .. }
            | Error::ForeignTensor { .. }
            | Error::InvalidBuffer { .. } => true,
            Error::NoAdapter { .. }
            | Error::AdapterNotFound { .. }
            | Error::RequestDevice(_)
            | Error::Unsupported { .. }
            | Error::TooLarge { .. }
            | Error::Shader { .. }
            | Error::Gpu { .. }
            | Error::Wgpu { .. }
            | Error::Internal { .. }
            | Error::DeviceLost { .. }
            | Error::Timeout { .. }
            | Error::ValidationMismatch { .. } => false,
        }
    }
}

//! ONNX support (feature `onnx`): models made of the activations of the operator table ([`crate::ops`], every opset),
//! TensorProto files in every storage form, and the backend-test runner behind
//! `wgpu-act onnx-test`. Loading ([`load`]), operator versions read from the operator table
//! (`versions`), graph planning and fusion (`plan`), execution (`run`), conformance cases
//! ([`conformance`]).

/// Types generated from the official `onnx.proto` (proto/onnx.proto) by prost at build time.
#[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, reason = "generated code")]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

pub mod conformance;
mod error;
mod expansions;
pub mod load;
mod plan;
mod run;
mod versions;

pub use error::{OnnxError, OnnxResult};
pub use load::{HostElement, HostTensor, MAX_FILE_BYTES, read_file};
pub use plan::OnnxModel;
pub use versions::{NEWEST_OPSET, Operator, allows, op_version};

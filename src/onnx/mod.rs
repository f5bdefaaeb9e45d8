//! ONNX support: models made of LeakyRelu, Elu and PRelu (every opset), TensorProto files in
//! every storage form, and the backend-test runner behind `wgpu-act onnx-test`.

/// Types generated from the official `onnx.proto` (proto/onnx.proto) by prost at build time.
#[allow(missing_docs, unreachable_pub, clippy::all, reason = "generated code")]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

pub mod conformance;
mod model;
mod tensor;

pub use model::{OnnxModel, OpKind, allows, op_version};
pub use tensor::{HostElement, HostTensor};

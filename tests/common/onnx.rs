//! Pieces of ONNX graphs that tests build by hand.
#![allow(unreachable_pub, reason = "a test-only module, included by path")]

use wgpu_activations::onnx::proto::{TypeProto, ValueInfoProto, type_proto};

/// A graph value declared as a tensor of ONNX data type `elem_type` (ONNX Runtime refuses
/// inputs without a type).
pub fn typed_value(name: &str, elem_type: i32) -> ValueInfoProto {
    let tensor = type_proto::Tensor { elem_type: Some(elem_type), shape: None };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }),
        ..Default::default()
    }
}

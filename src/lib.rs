//! ONNX's activations of the Elu/Relu family on any GPU through WebGPU (`wgpu`: Vulkan, Metal, DX12, GL,
//! the browser), every opset and element type the specification allows, with a CPU reference
//! that every GPU result is tested against.
//!
//! Four ways in. **Host arrays**: hand over an `ndarray`, get one back.
//!
//! ```
//! use ndarray::array;
//! use wgpu_activations::{Context, ContextOptions, elu, leaky_relu, prelu, reference};
//!
//! let ctx = Context::new(ContextOptions::from_env())?;
//! let x = array![[-2.0f32, -0.5], [0.0, 3.0]];
//! let y = leaky_relu(&ctx, x.view(), 0.1)?;
//! assert_eq!(y, reference::leaky_relu(x.view(), 0.1));
//! let e = elu(&ctx, x.view(), 1.0)?;
//! assert_eq!(e[[1, 1]], 3.0);
//! let p = prelu(&ctx, x.view(), array![0.5f32, 0.25].view())?; // slope broadcast to X
//! assert_eq!(p[[0, 0]], -1.0);
//! # Ok::<(), wgpu_activations::Error>(())
//! ```
//!
//! **Device tensors**: upload once, chain steps on the GPU (a chain of up to 8 steps runs as
//! one kernel), download once.
//!
//! ```
//! use ndarray::array;
//! use wgpu_activations::{Activation, Context, ContextOptions};
//!
//! let ctx = Context::new(ContextOptions::from_env())?;
//! let x = ctx.upload(array![-4.0f32, -1.0, 2.0].view())?;
//! let slope = ctx.upload(array![0.5f32].view())?;
//! let y = ctx.run_activations(&[Activation::leaky_relu(0.5), Activation::prelu(&slope)], &x)?;
//! assert_eq!(ctx.download::<f32>(&y)?.into_raw_vec_and_offset().0, vec![-1.0, -0.25, 2.0]);
//! # Ok::<(), wgpu_activations::Error>(())
//! ```
//!
//! **Your own device and encoder**: adopt the device your program drives
//! ([`Context::from_device`]), wrap its buffers ([`Context::tensor_from_buffer`]) and record
//! the work between your own passes ([`Context::encode_activations`]).
//!
//! ```
//! use wgpu_activations::{Activation, Context, ContextOptions, DType, wgpu};
//!
//! # let ctx = Context::new(ContextOptions::from_env())?;
//! # let (device, queue) = (ctx.device().clone(), ctx.queue().clone());
//! // `device` and `queue` are your program's own.
//! let buffer = device.create_buffer(&wgpu::BufferDescriptor {
//!     label: Some("my activations"),
//!     size: 1024 * 4,
//!     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
//!     mapped_at_creation: false,
//! });
//! let t = ctx.tensor_from_buffer(buffer, 0, &[1024], DType::F32)?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! // ... your passes ...
//! ctx.encode_activations(&mut encoder, &[Activation::elu(1.0)], &t, &t)?;
//! // ... more of your passes ...
//! queue.submit([encoder.finish()]);
//! # Ok::<(), wgpu_activations::Error>(())
//! ```
//!
#![cfg_attr(
    feature = "onnx",
    doc = r#"
**ONNX models** (feature `onnx`): `onnx::OnnxModel` runs a graph of these operators, fusing
chains, on host tensors of any of the eight dtypes.

```
use std::collections::HashMap;
use ndarray::array;
use wgpu_activations::onnx::{HostTensor, OnnxModel};
use wgpu_activations::{Context, ContextOptions};

let ctx = Context::new(ContextOptions::from_env())?;
# let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/onnx/node/test_elu/model.onnx");
let model = OnnxModel::from_bytes(&std::fs::read(path)?)?; // an Elu node, opset 22
let x = HostTensor::F32(array![-1.0f32, 0.0, 2.0].into_dyn());
let outputs = model.run(&ctx, &HashMap::from([(model.input_names()[0].clone(), x)]))?;
let (_name, HostTensor::F32(y)) = &outputs[0] else { unreachable!("an f32 model") };
assert_eq!(y[[2]], 2.0);
# Ok::<(), Box<dyn std::error::Error>>(())
```
"#
)]
//!
//! The layers (ARCHITECTURE.md has the map): [`ops`] describes each operator once; `repr`
//! says how each dtype is held in WGSL; `kernel` expands the WGSL per variant; `engine` owns
//! every wgpu object; `api` is the public operator API on top of it; [`reference`](mod@reference)
//! is the CPU reference (and, privately, the twins of the shader algorithms); `onnx` (feature
//! `onnx`) runs models.
#![forbid(unsafe_code)]

mod api;
mod axis;
mod broadcast;
mod cpu;
mod dtype;
mod engine;
mod error;
mod kernel;
pub mod ops;
mod real;
mod repr;
pub mod ulp;

#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "onnx")]
pub mod onnx;

pub use api::{
    Blocking, activations, activations_async, activations_in_place, activations_in_place_async, axis_op, axis_op_async,
    elu, elu_async, hardmax, hardmax_async, leaky_relu, leaky_relu_async, log_softmax, log_softmax_async, prelu,
    prelu_async, prelu_in_place, prelu_in_place_async, softmax, softmax_async, swiglu, swiglu_async,
};
pub use axis::AxisLayout;
pub use broadcast::{per_channel_slope_shape, unidirectional_slope_shape};
/// The CPU reference every GPU result is tested against: each operator computed in f64 and
/// rounded once (the correctly rounded result wherever f64 holds the product exactly), element
/// by element or on whole arrays, and [`check_chain`](reference::check_chain), which judges a
/// chain's results step by step. [`Context::runs_on_cpu`] sends f64 work here on devices
/// without f64 when asked to.
pub mod reference {
    pub use crate::cpu::axis::axis_op;
    pub use crate::cpu::gated::swiglu;
    pub use crate::cpu::{
        ChainStep, check_chain, elu, elu_scalar, leaky_relu, leaky_relu_scalar, prelu, prelu_scalar, unary,
        unary_passes_through, unary_scalar,
    };
}
pub use dtype::{DType, Element, FloatElement};
pub use engine::{
    AXIS_FORMS_ENV, Activation, Context, ContextInfo, ContextOptions, DTypePath, DUMP_WGSL_ENV, FMA_ENV, GpuTensor,
    LIMITS_ENV, PipelineCacheStats, PoolStats, SUBNORMALS_ENV, SubnormalProducts, Subnormals, VALIDATE_ENV,
    enumerate_adapters, limits_report, native_dtypes,
};
pub use error::{Error, Result};
pub use ops::{ELU_DEFAULT_ALPHA, LEAKY_RELU_DEFAULT_ALPHA};
pub use wgpu;

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

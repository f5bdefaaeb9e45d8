//! ONNX's LeakyRelu, Elu and PRelu on any GPU through WebGPU (`wgpu`), with a CPU reference
//! that every GPU result is tested against.
//!
//! ```no_run
//! use ndarray::array;
//! use wgpu_activations::{Context, ContextOptions, elu, leaky_relu, prelu, reference};
//!
//! let ctx = Context::new(ContextOptions::default())?;
//! let x = array![[-2.0f32, -0.5], [0.0, 3.0]];
//! let y = leaky_relu(&ctx, x.view(), 0.1)?;
//! assert_eq!(y, reference::leaky_relu(x.view(), 0.1));
//! let e = elu(&ctx, x.view(), 1.0)?;
//! let p = prelu(&ctx, x.view(), array![0.5f32, 0.25].view())?;
//! # Ok::<(), wgpu_activations::Error>(())
//! ```
#![forbid(unsafe_code)]

mod broadcast;
mod context;
mod dtype;
mod error;
pub mod onnx;
mod ops;
mod pipeline;
mod pool;
pub mod reference;
mod shader;
pub mod shader_mirror;
mod tensor;
pub mod ulp;

pub use broadcast::{per_channel_slope_shape, unidirectional_slope_shape};
pub use context::{Context, ContextInfo, ContextOptions, DTypePath};
pub use dtype::{DType, Element, FloatElement};
pub use error::{Error, Result};
pub use ops::{
    Activation, ELU_DEFAULT_ALPHA, LEAKY_RELU_DEFAULT_ALPHA, activations, activations_async, elu, elu_async,
    leaky_relu, leaky_relu_async, prelu, prelu_async,
};
pub use tensor::GpuTensor;
pub use wgpu;

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

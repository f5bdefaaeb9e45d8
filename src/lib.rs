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
//!
//! The layers (ARCHITECTURE.md has the map): [`ops`] describes each operator once; `repr`
//! says how each dtype is held in WGSL; `kernel` expands the WGSL per variant; `engine` owns
//! every wgpu object; `api` is the public operator API on top of it; [`cpu`] is the reference
//! and the twins of the shader algorithms; [`onnx`] (feature `onnx`) runs models.
#![forbid(unsafe_code)]

mod api;
mod broadcast;
pub mod cpu;
mod dtype;
mod engine;
mod error;
mod kernel;
pub mod ops;
mod repr;
pub mod ulp;

#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "onnx")]
pub mod onnx;

pub use api::{
    Blocking, activations, activations_async, activations_in_place, activations_in_place_async, elu, elu_async,
    leaky_relu, leaky_relu_async, prelu, prelu_async, prelu_in_place, prelu_in_place_async,
};
pub use broadcast::{per_channel_slope_shape, unidirectional_slope_shape};
/// The CPU reference, under the name the crate's first releases gave it.
pub use cpu as reference;
pub use dtype::{DType, Element, FloatElement};
pub use engine::{
    Context, ContextInfo, ContextOptions, DTypePath, GpuTensor, LIMITS_ENV, PipelineCacheStats, PoolStats,
    SUBNORMALS_ENV, SubnormalProducts, Subnormals, VALIDATE_ENV, enumerate_adapters, limits_report, native_dtypes,
};
pub use error::{Error, Result};
pub use ops::{Activation, ELU_DEFAULT_ALPHA, LEAKY_RELU_DEFAULT_ALPHA};
pub use wgpu;

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

//! wgpu-activations in the browser's WebGPU: one wasm module for the pages that
//! `cargo xtask test-wasm` and `cargo xtask web` serve. `suite` is the browser suite, `demo`
//! the image demo, `bench` the in-page benchmark (with `roundtrip`, the host round trip against
//! ONNX Runtime Web and a plain WebGPU program); `page` holds what they need of the browser.
//! Natively the crate is empty: its dependencies are wasm32's alone.
#![forbid(unsafe_code)]
#![cfg(target_arch = "wasm32")]

mod bench;
/// The application's own GPU work, shared with the native demo.
#[path = "../../examples/image_demo/conv.rs"]
mod conv;
mod demo;
pub mod page;
mod roundtrip;
mod samples;
mod suite;

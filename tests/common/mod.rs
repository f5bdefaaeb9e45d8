//! Shared test helpers: the GPU context (a failure, not a skip, when a GPU is required) and
//! comparisons against the CPU reference.
#![allow(dead_code, unreachable_pub, reason = "each test binary uses a different subset of these helpers")]

use std::sync::OnceLock;

use ndarray::{ArrayD, ArrayView, Dimension};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::{Context, ContextOptions, Element, ulp};

/// True when a missing adapter must fail the test: `CI` set, or `WGPU_ACTIVATIONS_REQUIRE_GPU=1`.
pub fn gpu_required() -> bool {
    let ci = std::env::var("CI").map(|v| !v.is_empty() && v != "0" && v != "false").unwrap_or(false);
    ci || std::env::var("WGPU_ACTIVATIONS_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

fn make(options: ContextOptions) -> Option<Context> {
    match Context::new(options) {
        Ok(ctx) => {
            eprintln!("GPU tests on: {} ({:?})", ctx.info().adapter.name, ctx.info().adapter.backend);
            Some(ctx)
        }
        Err(e) if gpu_required() => panic!("a GPU adapter is required (CI / WGPU_ACTIVATIONS_REQUIRE_GPU=1): {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e}); set WGPU_ACTIVATIONS_REQUIRE_GPU=1 to make this a failure");
            None
        }
    }
}

/// The shared default context, or `None` (test skipped) when no adapter exists and none is required.
pub fn ctx() -> Option<&'static Context> {
    static CTX: OnceLock<Option<Context>> = OnceLock::new();
    CTX.get_or_init(|| make(ContextOptions::default())).as_ref()
}

/// A context with custom options (not shared).
pub fn ctx_with(options: ContextOptions) -> Option<Context> {
    make(options)
}

/// Gets the context or returns from the test (skip) when allowed.
#[macro_export]
macro_rules! gpu_or_skip {
    () => {
        match common::ctx() {
            Some(ctx) => ctx,
            None => return,
        }
    };
}

/// Asserts every element of `actual` is within `max_ulp` of `expected` (NaN equals NaN, signed
/// zeros must agree, subnormal expected values may come back as a same-signed zero).
pub fn assert_close<T: Element, D: Dimension>(
    what: &str,
    actual: ArrayView<'_, T, D>,
    expected: ArrayView<'_, T, D>,
    input: ArrayView<'_, T, D>,
    max_ulp: u64,
) {
    assert_eq!(actual.shape(), expected.shape(), "{what}: shape");
    assert!(actual.is_standard_layout(), "{what}: output must be in standard layout");
    for ((a, e), x) in actual.iter().zip(expected.iter()).zip(input.iter()) {
        assert!(
            ulp::within_ulp(*a, *e, max_ulp),
            "{what}: x = {x:?}: GPU {a:?}, reference {e:?} (> {max_ulp} ULP)"
        );
    }
}

/// Deterministic random f32s: mostly in [-8, 8], some large and tiny magnitudes.
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len)
        .map(|_| match rng.random_range(0..10) {
            0 => rng.random_range(-1e30f32..1e30),
            1 => rng.random_range(-1e-30f32..1e-30),
            _ => rng.random_range(-8.0f32..8.0),
        })
        .collect()
}

/// The specials every op is checked on.
pub fn f32_specials() -> Vec<f32> {
    vec![
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0xffc0_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x807f_ffff),
        f32::MAX,
        f32::MIN,
        -1.0,
        1.0,
        -1e-7,
        -88.0,
        -104.0,
    ]
}

pub fn to_dyn<T: Clone>(v: Vec<T>, shape: &[usize]) -> ArrayD<T> {
    ArrayD::from_shape_vec(shape, v).expect("shape matches length")
}

//! Shared test helpers: GPU contexts (a failure, not a skip, when a GPU is required, and on the
//! backend WGPU_BACKEND names), sample data of every dtype, and comparisons against the CPU
//! reference.
#![allow(dead_code, unreachable_pub, reason = "each test binary uses a different subset of these helpers")]

use std::sync::OnceLock;

use half::{bf16, f16};
use ndarray::{ArrayD, ArrayView, Dimension};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::ops::{Attributes, UnaryOp};
use wgpu_activations::{Context, ContextOptions, DType, DTypePath, Element, ulp};

/// One `#[test]` per element type, in a module named after the generic check:
/// `tests_per_dtype!(every_pattern: f32, f16)` runs `every_pattern::<f32>()` as the test
/// `every_pattern::f32`, and so on.
#[macro_export]
macro_rules! tests_per_dtype {
    ($check:ident: $($t:ident),+ $(,)?) => {
        mod $check {
            #[allow(unused_imports, reason = "the element types named below")]
            use super::*;
            $(
                #[test]
                fn $t() {
                    super::$check::<$t>();
                }
            )+
        }
    };
}

/// True when a missing adapter must fail the test: `CI` set, or `WGPU_ACTIVATIONS_REQUIRE_GPU=1`.
pub fn gpu_required() -> bool {
    let ci = std::env::var("CI").map(|v| !v.is_empty() && v != "0" && v != "false").unwrap_or(false);
    ci || std::env::var("WGPU_ACTIVATIONS_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

fn make(options: ContextOptions) -> Option<Context> {
    match Context::new(options) {
        Ok(ctx) => {
            if let Ok(wanted) = std::env::var("WGPU_BACKEND") {
                let backends = wgpu::Backends::from_comma_list(&wanted);
                let actual = ctx.info().adapter.backend;
                assert!(
                    backends.contains(wgpu::Backends::from(actual)),
                    "WGPU_BACKEND={wanted} but the context is on {actual:?}"
                );
            }
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
    CTX.get_or_init(|| {
        let ctx = make(ContextOptions::from_env())?;
        println!("GPU tests on: {} ({:?})", ctx.info().adapter.name, ctx.info().adapter.backend);
        Some(ctx)
    })
    .as_ref()
}

/// Kernels one chain of f32 steps compiles on `ctx`: two where products are exact on a
/// flushing device in two passes (the first flags, the second redoes what it flagged).
pub fn kernels_per_chain(ctx: &Context) -> usize {
    if ctx.info().subnormal_products_in_two_passes { 2 } else { 1 }
}

/// A context with custom options (not shared).
pub fn ctx_with(options: ContextOptions) -> Option<Context> {
    make(options)
}

/// Where `ctx`'s device keeps subnormals, a context on it whose kernels take every product on
/// the float unit: the bits a guarded kernel must give there (its plain copies come from the
/// functions' forms for their ranges, `_in_range` in `shaders/math/f32.wgsl`).
pub fn float_unit_where_subnormals_kept(ctx: &Context) -> Option<Context> {
    use wgpu_activations::{SubnormalProducts, Subnormals};
    (ctx.info().subnormals == Subnormals::Kept)
        .then(|| ctx_with(ContextOptions::from_env().with_subnormal_products(SubnormalProducts::OnHardware)))
        .flatten()
}

/// Gets the shared context or returns from the test (skip) when allowed.
#[macro_export]
macro_rules! gpu_or_skip {
    () => {
        match common::ctx() {
            Some(ctx) => ctx,
            None => return,
        }
    };
}

/// The element types whose path a context option can force, with the feature of the native path.
pub const FORCEABLE: [(DType, wgpu::Features); 4] = [
    (DType::F16, wgpu::Features::SHADER_F16),
    (DType::I64, wgpu::Features::SHADER_INT64),
    (DType::U64, wgpu::Features::SHADER_INT64),
    (DType::F64, wgpu::Features::SHADER_F64),
];

/// A context with every native path the device has, and one with every emulated path, each
/// checked to take the path it claims; the same contexts every dtype test runs on.
pub fn path_contexts() -> Vec<(&'static str, Context)> {
    path_contexts_with(|options| options)
}

/// Whether the context at `index` of `contexts` runs `dtype` on a path no earlier one does.
/// Where two take the same path (f32 has one, bf16 is always emulated) their kernels and results
/// are the same, and a test need not compile and run them twice: SwiftShader compiles a kernel
/// in up to 2 s.
pub fn new_path(contexts: &[(&'static str, Context)], index: usize, dtype: DType) -> bool {
    let path = contexts[index].1.dtype_path(dtype);
    contexts[..index].iter().all(|(_, earlier)| earlier.dtype_path(dtype) != path)
}

/// [`path_contexts`], less those that run `dtype` on a path an earlier one runs ([`new_path`]).
pub fn path_contexts_for(dtype: DType) -> Vec<(&'static str, Context)> {
    let all = path_contexts();
    let new: Vec<bool> = (0..all.len()).map(|i| new_path(&all, i, dtype)).collect();
    all.into_iter().zip(new).filter_map(|(context, new)| new.then_some(context)).collect()
}

/// `check` on each of [`path_contexts_for`]'s contexts for `dtype`, each on its own thread: each
/// path compiles its own kernels, most of a test's time on a CPU driver, and the f64 tests that
/// took the paths one after the other were their suites' longest (72 s of `unary_ops`' 138 s on
/// lavapipe), one core idle beside them at the end. A failure on any path fails the test.
pub fn on_every_path(dtype: DType, check: impl Fn(&'static str, &Context) + Sync) {
    let contexts = path_contexts_for(dtype);
    std::thread::scope(|scope| {
        for (path, ctx) in &contexts {
            let check = &check;
            scope.spawn(move || check(path, ctx));
        }
    });
}

/// [`path_contexts`], each context's options first passed through `adjust`.
pub fn path_contexts_with(adjust: impl Fn(ContextOptions) -> ContextOptions) -> Vec<(&'static str, Context)> {
    let mut out = Vec::new();
    if let Some(native) = ctx_with(adjust(ContextOptions::from_env().all_native())) {
        for (dtype, feature) in FORCEABLE {
            let native_path = matches!(native.dtype_path(dtype), DTypePath::Native(_));
            assert_eq!(native_path, native.info().features.contains(feature), "{dtype}: {}", native.dtype_path(dtype));
        }
        out.push(("native paths", native));
    }
    if let Some(emulated) = ctx_with(adjust(ContextOptions::from_env().all_emulated())) {
        for dtype in [DType::F16, DType::BF16, DType::I64, DType::U64] {
            assert!(matches!(emulated.dtype_path(dtype), DTypePath::Emulated(_)), "{dtype} must be emulated");
        }
        out.push(("emulated paths", emulated));
    }
    out
}

/// Asserts every element of `actual` is within `max_ulp` of `expected` (NaN equals NaN, signed
/// zeros must agree, subnormals get no liberty).
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
        assert!(ulp::within_ulp(*a, *e, max_ulp), "{what}: x = {x:?}: GPU {a:?}, reference {e:?} (> {max_ulp} ULP)");
    }
}

/// Max ULP error over the pairs; panics on a NaN/number mismatch or a sign mismatch at zero.
pub fn max_ulp<T: Element>(what: &str, actual: &ArrayD<T>, expected: &ArrayD<T>, input: &ArrayD<T>) -> u64 {
    let mut worst = 0;
    for ((&a, &e), &x) in actual.iter().zip(expected).zip(input) {
        if ulp::within_ulp(a, e, 0) {
            continue;
        }
        let distance = ulp::ulp_distance(a, e);
        assert!(distance.is_some() && distance != Some(0), "{what}: x = {x:?}: GPU {a:?}, reference {e:?}");
        worst = worst.max(distance.unwrap_or(u64::MAX));
    }
    worst
}

/// Asserts two arrays hold the same bits (NaN payloads included).
pub fn assert_same_bits<T: Element, D: Dimension>(what: &str, a: &ndarray::Array<T, D>, b: &ndarray::Array<T, D>) {
    assert_eq!(a.shape(), b.shape(), "{what}: shape");
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        assert_eq!(bytemuck::bytes_of(x), bytemuck::bytes_of(y), "{what}: element {i}: {x:?} vs {y:?}");
    }
}

/// Asserts two arrays hold the same bits but where both are NaN (their payloads may differ),
/// naming how many differ and the first few (input, a, b).
pub fn assert_same_bits_but_nan_payloads<T: wgpu_activations::FloatElement>(
    what: &str,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    input: &ArrayD<T>,
) {
    assert_eq!(a.shape(), b.shape(), "{what}: shape");
    let differ: Vec<_> = a
        .iter()
        .zip(b.iter())
        .zip(input.iter())
        .filter(|((a, b), _)| {
            bytemuck::bytes_of(*a) != bytemuck::bytes_of(*b) && !(a.to_f64().is_nan() && b.to_f64().is_nan())
        })
        .map(|((a, b), x)| (x.to_f64(), a.to_f64(), b.to_f64()))
        .collect();
    assert!(differ.is_empty(), "{what}: {} results differ, e.g. {:?}", differ.len(), &differ[..differ.len().min(4)]);
}

/// Inputs that are not negative must come back bit for bit (Where(X < 0, .., X)).
pub fn assert_passthrough<T: Element>(what: &str, actual: &ArrayD<T>, input: &ArrayD<T>) {
    for (a, x) in actual.iter().zip(input) {
        if !x.is_negative() {
            assert_eq!(
                bytemuck::bytes_of(a),
                bytemuck::bytes_of(x),
                "{what}: passthrough of {x:?} changed it to {a:?}"
            );
        }
    }
}

/// Where the operator's twin passes X through (its formula's `X`: for most operators the inputs
/// that are not negative), the result holds X's bits, NaN payloads and -0.0 included.
pub fn assert_unary_passthrough<T: Element>(
    what: &str,
    op: &UnaryOp,
    attributes: &Attributes,
    actual: &ArrayD<T>,
    input: &ArrayD<T>,
) {
    for (a, x) in actual.iter().zip(input) {
        if wgpu_activations::reference::unary_passes_through(op, attributes, *x) {
            assert_eq!(
                bytemuck::bytes_of(a),
                bytemuck::bytes_of(x),
                "{what}: passthrough of {x:?} changed it to {a:?}"
            );
        }
    }
}

/// Values of every dtype for tests: random samples and the specials each type has.
pub trait Sample: Element {
    /// A random value: mostly moderate magnitudes, some large and tiny ones (floats), any bits
    /// now and then.
    fn sample(rng: &mut StdRng) -> Self;
    /// Values every op is checked on.
    fn specials() -> Vec<Self>;
}

impl Sample for f32 {
    fn sample(rng: &mut StdRng) -> Self {
        match rng.random_range(0..10) {
            0 => rng.random_range(-1e30f32..1e30),
            1 => rng.random_range(-1e-30f32..1e-30),
            _ => rng.random_range(-8.0f32..8.0),
        }
    }
    fn specials() -> Vec<Self> {
        f32_specials()
    }
}

impl Sample for f64 {
    fn sample(rng: &mut StdRng) -> Self {
        match rng.random_range(0..10) {
            0 => rng.random_range(-1e300..1e300),
            1 => rng.random_range(-1e-300..1e-300),
            2 => f64::from_bits(rng.random()),
            _ => rng.random_range(-40.0..40.0),
        }
    }
    fn specials() -> Vec<Self> {
        vec![
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0xfff0_0000_0000_0001),
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            -5e-324,
            f64::MAX,
            f64::MIN,
            -1e-17,
            -std::f64::consts::LN_2,
            -37.9,
            -38.0,
            -745.1,
        ]
    }
}

macro_rules! half_sample {
    ($t:ty) => {
        impl Sample for $t {
            fn sample(rng: &mut StdRng) -> Self {
                <$t>::from_bits(rng.random())
            }
            fn specials() -> Vec<Self> {
                [
                    0x0000u16, 0x8000, 0x0001, 0x8001, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0xbc00, 0x7f80, 0xff80,
                    0xffc1,
                ]
                .map(<$t>::from_bits)
                .to_vec()
            }
        }
    };
}
half_sample!(f16);
half_sample!(bf16);

macro_rules! int_sample {
    ($t:ty) => {
        impl Sample for $t {
            fn sample(rng: &mut StdRng) -> Self {
                if rng.random_range(0..4) == 0 { rng.random() } else { rng.random_range(-1000i64..1000) as $t }
            }
            fn specials() -> Vec<Self> {
                vec![<$t>::MIN, <$t>::MAX, 0, 1, (0 as $t).wrapping_sub(1), <$t>::MIN.wrapping_add(1)]
            }
        }
    };
}
int_sample!(i8);
int_sample!(i16);
int_sample!(i32);
int_sample!(i64);
int_sample!(u8);
int_sample!(u16);
int_sample!(u32);
int_sample!(u64);

/// `len` samples of `T` starting with its specials, from `seed`.
pub fn samples<T: Sample>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut values: Vec<T> = T::specials().into_iter().take(len).collect();
    while values.len() < len {
        values.push(T::sample(&mut rng));
    }
    values
}

/// Deterministic random f32s: mostly in [-8, 8], some large and tiny magnitudes.
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| f32::sample(&mut rng)).collect()
}

/// The bits of the f32 specials every op is checked on.
#[rustfmt::skip]
const F32_SPECIAL_BITS: [u32; 15] = [
    0x7fc0_0000, 0xffc0_0000, 0xffc0_0001, 0x7f80_0001, // NaNs: quiet (both signs, a payload), signalling
    0x7f80_0000, 0xff80_0000, 0, 0x8000_0000,           // the infinities and the zeros
    0x0080_0000, 0x8080_0000, 1, 0x8000_0001,           // the smallest normals and subnormals
    0x807f_ffff, 0x7f7f_ffff, 0xff7f_ffff,              // the largest subnormal and finite values
];

/// The f32 specials every op is checked on: [`F32_SPECIAL_BITS`], then values near 1 and where
/// expm1 saturates.
pub fn f32_specials() -> Vec<f32> {
    F32_SPECIAL_BITS.map(f32::from_bits).into_iter().chain([-1.0, 1.0, -1e-7, -88.0, -104.0]).collect()
}

pub fn to_dyn<T: Clone>(v: Vec<T>, shape: &[usize]) -> ArrayD<T> {
    ArrayD::from_shape_vec(shape, v).expect("shape matches length")
}

/// Asserts that `file` (relative to the repository root) holds `content` between the markers
/// `<!-- generated: NAME -->` and `<!-- end of generated: NAME -->`; with
/// `WGPU_ACTIVATIONS_BLESS=1` it writes `content` there instead.
pub fn check_generated_block(file: &str, name: &str, content: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let (begin, end) = (format!("<!-- generated: {name} -->"), format!("<!-- end of generated: {name} -->"));
    let (Some(b), Some(e)) = (text.find(&begin), text.find(&end)) else { panic!("{file} lost the markers of {name}") };
    let start = b + begin.len() + 1;
    if text[start..e].trim() == content.trim() {
        return;
    }
    if std::env::var("WGPU_ACTIVATIONS_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{}\n{}", &text[..start], content.trim(), &text[e..])).expect("writable");
        return;
    }
    panic!("{file}'s {name} differs: rerun with WGPU_ACTIVATIONS_BLESS=1, or paste:\n{content}");
}

//! Every (op, dtype) pair on the GPU against the CPU reference, on the native paths and on
//! the forced-emulated paths: exhaustive for the 16-bit floats, sweeps for f64, wrap cases
//! for the integers. Each check prints its measured max ULP error.

mod common;

use common::to_dyn;
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::{
    Activation, Context, ContextOptions, DType, DTypePath, Element, Error, FloatElement, elu, leaky_relu, prelu, reference,
    ulp,
};

/// Max ULP error over the pairs, skipping subnormal expected values returned as a same-signed
/// zero (WGSL may flush); panics on a NaN/number mismatch or a sign mismatch at zero.
fn max_ulp<T: Element>(what: &str, actual: &ArrayD<T>, expected: &ArrayD<T>, input: &ArrayD<T>) -> u64 {
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

/// Inputs that are not negative must come back bit for bit (Where(X < 0, .., X)).
fn assert_passthrough<T: Element>(what: &str, actual: &ArrayD<T>, input: &ArrayD<T>) {
    for (a, x) in actual.iter().zip(input) {
        if !x.is_negative() {
            assert_eq!(bytemuck::bytes_of(a), bytemuck::bytes_of(x), "{what}: passthrough of {x:?} changed it to {a:?}");
        }
    }
}

/// A context with every native path the device has and one with every emulated path, each
/// checked to take the path it claims.
fn contexts() -> Vec<(&'static str, Context)> {
    let mut out = Vec::new();
    if let Some(native) = common::ctx_with(ContextOptions::native()) {
        let features = native.info().features;
        for (dtype, feature) in [
            (DType::F16, wgpu::Features::SHADER_F16),
            (DType::I64, wgpu::Features::SHADER_INT64),
            (DType::U64, wgpu::Features::SHADER_INT64),
            (DType::F64, wgpu::Features::SHADER_F64),
        ] {
            let native_path = matches!(native.dtype_path(dtype), DTypePath::Native(_));
            assert_eq!(native_path, features.contains(feature), "{dtype}: {}", native.dtype_path(dtype));
            println!("{dtype} on the default context: {}", native.dtype_path(dtype));
        }
        out.push(("native context", native));
    }
    if let Some(emulated) = common::ctx_with(ContextOptions::emulated()) {
        for dtype in [DType::F16, DType::BF16, DType::I64, DType::U64] {
            assert!(matches!(emulated.dtype_path(dtype), DTypePath::Emulated(_)), "{dtype} must be emulated");
        }
        out.push(("forced-emulated context", emulated));
    }
    out
}

fn exhaustive_16_bit<T: FloatElement>(from_bits: fn(u16) -> T) {
    for (path, ctx) in contexts() {
        let x = to_dyn((0..=u16::MAX).map(from_bits).collect(), &[1 << 16]);
        for (name, alpha, bound) in [("LeakyRelu", 0.01f32, 1), ("Elu", 1.0, 1), ("Elu", 0.7, 1)] {
            let (y, expected) = if name == "Elu" {
                (elu(&ctx, x.view(), alpha).unwrap(), reference::elu(x.view(), alpha))
            } else {
                (leaky_relu(&ctx, x.view(), alpha).unwrap(), reference::leaky_relu(x.view(), alpha))
            };
            let what = format!("{name}(alpha={alpha}) {} {path}", T::DTYPE);
            let worst = max_ulp(&what, &y, &expected, &x);
            println!("{what}: max error {worst} ULP over all 65536 bit patterns");
            assert!(worst <= bound, "{what}: {worst} ULP > {bound}");
            assert_passthrough(&what, &y, &x);
        }
        // PRelu: every bit pattern against slopes drawn from all bit patterns too; exact.
        let mut rng = StdRng::seed_from_u64(16);
        let slope = to_dyn((0..1 << 16).map(|_| from_bits(rng.random())).collect(), &[1 << 16]);
        let y = prelu(&ctx, x.view(), slope.view()).unwrap();
        let expected = reference::prelu(x.view(), slope.view()).unwrap();
        let what = format!("PRelu {} {path}", T::DTYPE);
        let worst = max_ulp(&what, &y, &expected, &x);
        println!("{what}: max error {worst} ULP over all 65536 bit patterns");
        assert_eq!(worst, 0, "{what}");
        assert_passthrough(&what, &y, &x);
        // Odd lengths and a per-channel slope on the packed layout.
        let odd = to_dyn((0..3 * 5 * 7).map(|i| from_bits(((i * 2654435761u32) >> 16) as u16)).collect(), &[3, 5, 7]);
        let channel = to_dyn(vec![from_bits(0x3c00), from_bits(0xb800), from_bits(0)], &[3, 1, 1]);
        let y = prelu(&ctx, odd.view(), channel.view()).unwrap();
        assert_eq!(max_ulp("odd prelu", &y, &reference::prelu(odd.view(), channel.view()).unwrap(), &odd), 0);
        let y = leaky_relu(&ctx, odd.slice(ndarray::s![.., 1..4, ..;2]), 0.5).unwrap();
        let sliced = odd.slice(ndarray::s![.., 1..4, ..;2]).to_owned().into_dyn();
        assert!(max_ulp("odd sliced", &y.into_dyn(), &reference::leaky_relu(sliced.view(), 0.5), &sliced) <= 1);
    }
}

#[test]
fn f16_exhaustive_on_native_and_emulated_paths() {
    exhaustive_16_bit(f16::from_bits);
}

#[test]
fn bf16_exhaustive_on_native_and_emulated_paths() {
    exhaustive_16_bit(bf16::from_bits);
}

fn f64_inputs() -> ArrayD<f64> {
    // 2^16 log-spaced negatives from -1e-300 to -800, random normals, specials.
    let n = 1 << 16;
    let (lo, hi) = (1e-300f64.ln(), 800f64.ln());
    let mut xs: Vec<f64> = (0..n).map(|i| -(lo + (hi - lo) * i as f64 / (n - 1) as f64).exp()).collect();
    let mut rng = StdRng::seed_from_u64(64);
    xs.extend((0..4096).map(|_| rng.random_range(-40.0..40.0)));
    xs.extend([
        f64::NAN,
        -f64::NAN,
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
        -0.34657359027997264,
        -std::f64::consts::LN_2,
        -37.9,
        -38.0,
        -745.1,
    ]);
    let len = xs.len();
    to_dyn(xs, &[len])
}

#[test]
fn f64_sweeps() {
    for (path, ctx) in contexts() {
        if !ctx.info().features.contains(wgpu::Features::SHADER_F64) {
            println!("f64 {path}: device lacks SHADER_F64 (covered by f64_without_shader_f64_is_refused_or_falls_back)");
            continue;
        }
        let x = f64_inputs();
        for alpha in [1.0f32, 0.7, 0.01, -2.5] {
            let y = elu(&ctx, x.view(), alpha).unwrap();
            let worst = max_ulp("Elu f64", &y, &reference::elu(x.view(), alpha), &x);
            println!("Elu(alpha={alpha}) f64 {path}: max error {worst} ULP over {} inputs", x.len());
            assert!(worst <= 2, "Elu f64 alpha {alpha}: {worst} ULP");
            let y = leaky_relu(&ctx, x.view(), alpha).unwrap();
            let worst = max_ulp("LeakyRelu f64", &y, &reference::leaky_relu(x.view(), alpha), &x);
            println!("LeakyRelu(alpha={alpha}) f64 {path}: max error {worst} ULP");
            assert_eq!(worst, 0);
            assert_passthrough("LeakyRelu f64", &y, &x);
        }
        let slope = x.mapv(|v| if v.is_finite() { v / 3.0 } else { 0.5 });
        let y = prelu(&ctx, x.view(), slope.view()).unwrap();
        assert_eq!(max_ulp("PRelu f64", &y, &reference::prelu(x.view(), slope.view()).unwrap(), &x), 0);
        println!("PRelu f64 {path}: max error 0 ULP");
    }
}

#[test]
fn f64_without_shader_f64_is_refused_or_falls_back() {
    let Some(shared) = common::ctx() else { return };
    // A device created without optional features, as an application might hand us.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .unwrap_or_else(|e| panic!("{} exists, so an adapter must: {e}", shared.info().adapter.name));
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let plain = Context::from_device(device.clone(), queue.clone(), &adapter, ContextOptions::default());
    assert!(!plain.info().features.contains(wgpu::Features::SHADER_F64));
    let x = f64_inputs();
    match elu(&plain, x.view(), 1.0) {
        Err(Error::Unsupported { op: "Elu", dtype: DType::F64, reason }) => assert!(reason.contains("SHADER_F64")),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    assert!(matches!(prelu(&plain, x.view(), x.view()), Err(Error::Unsupported { .. })));
    let fallback = Context::from_device(device, queue, &adapter, ContextOptions::default().with_f64_cpu_fallback(true));
    let y = elu(&fallback, x.view(), 1.0).unwrap();
    assert_eq!(max_ulp("f64 fallback Elu", &y, &reference::elu(x.view(), 1.0), &x), 0);
    assert_passthrough("f64 fallback Elu", &y, &x);
    let y = prelu(&fallback, x.view(), x.view()).unwrap();
    assert_eq!(max_ulp("f64 fallback PRelu", &y, &reference::prelu(x.view(), x.view()).unwrap(), &x), 0);
    // Without SHADER_F16 and SHADER_INT64, the emulated paths take over by themselves.
    let h = to_dyn((0..1001u16).map(|i| f16::from_bits(i.wrapping_mul(65))).collect(), &[1001]);
    let y = elu(&plain, h.view(), 1.0).unwrap();
    assert!(max_ulp("f16 on a plain device", &y, &reference::elu(h.view(), 1.0), &h) <= 1);
    let big = to_dyn(vec![i64::MIN, -(1 << 53) - 1, 7], &[3]);
    let y = prelu(&plain, big.view(), to_dyn(vec![-3i64], &[1]).view()).unwrap();
    assert_eq!(y, reference::prelu(big.view(), to_dyn(vec![-3i64], &[1]).view()).unwrap());
}

fn check_integers<T: Element>(ctx: &Context, path: &str, values: &[T], slopes: &[T]) {
    // Every value against every slope, with the slope broadcast along X's last dim.
    let x = to_dyn(values.iter().flat_map(|&v| slopes.iter().map(move |_| v)).collect(), &[values.len(), slopes.len()]);
    let slope = to_dyn(slopes.to_vec(), &[slopes.len()]);
    let y = prelu(ctx, x.view(), slope.view()).unwrap();
    let expected = reference::prelu(x.view(), slope.view()).unwrap();
    assert_eq!(y, expected, "PRelu {} {path}", T::DTYPE);
    println!("PRelu {} {path}: exact over {} pairs", T::DTYPE, x.len());
}

#[test]
fn integer_prelu_wraps_like_numpy() {
    let mut rng = StdRng::seed_from_u64(32);
    for (path, ctx) in contexts() {
        let mut i32s = vec![i32::MIN, i32::MIN + 1, -65537, -3, -1, 0, 1, 65536, i32::MAX];
        i32s.extend((0..40).map(|_| rng.random::<i32>()));
        check_integers(&ctx, path, &i32s, &[-1, 0, 1, 2, -65536, i32::MAX, i32::MIN, 12345]);
        let mut i64s = vec![i64::MIN, i64::MIN + 1, -(1 << 53) - 1, -(1 << 53) - 3, -(1 << 32), -(1 << 31) - 1, -1, 0, 1 << 62, i64::MAX];
        i64s.extend((0..40).map(|_| rng.random::<i64>()));
        check_integers(&ctx, path, &i64s, &[-1, 0, 3, -(1 << 32) - 7, i64::MAX, i64::MIN, (1 << 53) + 1]);
        let mut u32s = vec![0u32, 1, 1 << 31, (1 << 31) + 5, u32::MAX];
        u32s.extend((0..20).map(|_| rng.random::<u32>()));
        check_integers(&ctx, path, &u32s, &[0, 2, u32::MAX]);
        let mut u64s = vec![0u64, 1, 1 << 63, (1 << 63) + 5, u64::MAX, 1 << 53];
        u64s.extend((0..20).map(|_| rng.random::<u64>()));
        check_integers(&ctx, path, &u64s, &[0, 2, u64::MAX]);
        // Spot checks written out: the wrap cases the issue names.
        let y = prelu(&ctx, to_dyn(vec![i32::MIN], &[1]).view(), to_dyn(vec![-1i32], &[1]).view()).unwrap();
        assert_eq!(y[[0]], i32::MIN, "-2^31 * -1 wraps to -2^31");
        let y = prelu(&ctx, to_dyn(vec![i64::MIN], &[1]).view(), to_dyn(vec![-1i64], &[1]).view()).unwrap();
        assert_eq!(y[[0]], i64::MIN);
        let big = -(1i64 << 53) - 1;
        let y = prelu(&ctx, to_dyn(vec![big], &[1]).view(), to_dyn(vec![3i64], &[1]).view()).unwrap();
        assert_eq!(y[[0]], big * 3, "i64 beyond 2^53 is not rounded through f64");
        let y = prelu(&ctx, to_dyn(vec![u64::MAX], &[1]).view(), to_dyn(vec![0u64], &[1]).view()).unwrap();
        assert_eq!(y[[0]], u64::MAX, "unsigned values with the top bit set are not negative");
    }
}

#[test]
fn float_only_ops_refuse_integer_tensors() {
    let Some(ctx) = common::ctx() else { return };
    let x = ctx.upload(ArrayD::<i32>::zeros(IxDyn(&[4])).view()).unwrap();
    match ctx.run_activations(&[Activation::elu(1.0)], &x) {
        Err(Error::DTypeNotAllowed { op: "Elu", dtype: DType::I32, .. }) => {}
        other => panic!("expected DTypeNotAllowed, got {other:?}"),
    }
    let slope = ctx.upload(ArrayD::<i64>::zeros(IxDyn(&[1])).view()).unwrap();
    assert!(matches!(ctx.run_prelu(&x, &slope), Err(Error::DTypeMismatch { .. })));
}

//! SwiGLU on the GPU against the CPU reference (`src/cpu/gated.rs`, the exact `(a b)
//! sigmoid(alpha a)` rounded once): A over Swish's sweep and its specials against B of every
//! magnitude, every 16-bit A, products beyond f32's range and subnormal results, alphas, and what
//! is refused.

mod common;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::ops::{SWIGLU, SWISH, attributes_from};
use wgpu_activations::{FloatElement, reference, swiglu, ulp};

fn check<T: FloatElement + wgpu_activations::Blocking>(a: &ArrayD<T>, b: &ArrayD<T>, alpha: f32, what: &str) -> u64 {
    check_on(common::ctx().expect("a GPU"), a, b, alpha, what)
}

fn check_on<T: FloatElement + wgpu_activations::Blocking>(
    ctx: &wgpu_activations::Context,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    alpha: f32,
    what: &str,
) -> u64 {
    let y = swiglu(ctx, a.view(), b.view(), alpha).unwrap_or_else(|e| panic!("{what}: {e}"));
    let expected = reference::swiglu(a.view(), b.view(), alpha).unwrap();
    let bound = SWIGLU.max_ulp.for_dtype(T::DTYPE);
    let mut worst = 0;
    for (i, (&g, &e)) in y.iter().zip(expected.iter()).enumerate() {
        let distance = ulp::ulp_distance(g, e).unwrap_or(u64::MAX);
        assert!(
            ulp::within_ulp(g, e, bound),
            "SwiGLU {} {what} alpha {alpha}: a {:e} b {:e}: {:e} against {:e} ({distance} ULP > {bound})",
            T::DTYPE,
            a.iter().nth(i).unwrap().to_f64(),
            b.iter().nth(i).unwrap().to_f64(),
            g.to_f64(),
            e.to_f64()
        );
        worst = worst.max(distance);
    }
    worst
}

fn values<T: FloatElement>(values: &[f64]) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(&[values.len()]), values.iter().map(|&v| T::from_f64(v)).collect()).unwrap()
}

/// A over Swish's log-spaced sweep and specials, B random over many magnitudes.
fn sweeps<T: FloatElement + wgpu_activations::Blocking>() {
    if common::ctx().is_none() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(0x5916);
    let mut a_values = SWISH.sweep.values(1 << 14, T::DTYPE == wgpu_activations::DType::F64);
    a_values.extend([0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-40, -1e-40]);
    let b_values: Vec<f64> = (0..a_values.len())
        .map(|i| {
            let magnitude = 10f64.powf(rng.random_range(-30.0..30.0));
            match i % 9 {
                0 => 0.0,
                1 => 1.0,
                _ if i % 2 == 0 => -magnitude,
                _ => magnitude,
            }
        })
        .collect();
    let (a, b) = (values::<T>(&a_values), values::<T>(&b_values));
    for alpha in [1.0f32, 1.702, 0.5, -2.0] {
        let worst = check(&a, &b, alpha, "sweep");
        println!("SwiGLU {} alpha {alpha}: worst {worst} ULP over {} pairs", T::DTYPE, a.len());
    }
}

tests_per_dtype!(sweeps: f32, f16, bf16, f64);

/// Every 16-bit A against B of a few magnitudes.
fn every_16_bit_a<T: FloatElement + wgpu_activations::Blocking>() {
    if common::ctx().is_none() {
        return;
    }
    let bits: Vec<u16> = (0..=u16::MAX).collect();
    let a = common::to_dyn(bytemuck::pod_collect_to_vec::<u16, T>(&bits), &[1 << 16]);
    for b_value in [1.0, -3.5, 1e-3] {
        let b = ArrayD::from_elem(IxDyn(&[1 << 16]), T::from_f64(b_value));
        let worst = check(&a, &b, 1.0, &format!("every A, B {b_value}"));
        println!("SwiGLU {} B {b_value}: worst {worst} ULP over every A", T::DTYPE);
    }
}

tests_per_dtype!(every_16_bit_a: f16, bf16);

/// Products beyond f32's range with a sigmoid far below 1 (finite results), and subnormal results.
#[test]
fn products_beyond_range_and_subnormal_results() {
    if common::ctx().is_none() {
        return;
    }
    // A B up to 2^256: beyond 2^192 too (-2.9e29 1.1e29), and results far below A B (-150 1e37,
    // -190 3e38: e^-190 3e38 lies near f32's smallest normal).
    let a = values::<f32>(&[-100.0, -95.0, -80.0, 3e38, -3e38, 1e-30, -1e-38, 20.0, -2.9e29, -150.0, -190.0, -3e38]);
    let b = values::<f32>(&[1e37, 3e38, 1e30, 2.0, 2.0, 1e-15, 1e-5, 1e-44, 1.1e29, 1e37, 3e38, -3e38]);
    let worst = check(&a, &b, 1.0, "beyond range");
    println!("SwiGLU f32 beyond range and subnormal: worst {worst} ULP");
}

/// The guarded products, forced in one pass and in two on whatever adapter runs the suite, around
/// the ends of the gate's plain range (`src/ops/plain_products.rs`, `swiglu`): A dense about
/// 2^-124 / alpha and 20 / alpha (and beyond), B such that A B lies dense about 2^-96, subnormal factors, and
/// the products' own extremes, infinite or overflowing ones included. On SwiftShader, which
/// flushes, a range too wide fails here; where the adapter keeps subnormals, the results are also
/// the float unit's kernel's bits (the plain copy is `gated_product_of_in_range`'s, which leaves
/// out the cases beyond the range).
#[test]
fn guarded_products_hold_about_the_plain_ranges_ends() {
    use wgpu_activations::{ContextOptions, SubnormalProducts};
    let Some(default) = common::ctx() else { return };
    let float_unit = common::float_unit_where_subnormals_kept(default);
    let mut rng = StdRng::seed_from_u64(0x6a7e);
    let nearby = |v: f32, rng: &mut StdRng| {
        let bits = (v.to_bits() as i64 + rng.random_range(-40_000i64..40_000)).max(0) as u32;
        f32::from_bits(bits) * if rng.random_bool(0.5) { -1.0 } else { 1.0 }
    };
    for products in [SubnormalProducts::Guarded, SubnormalProducts::GuardedInTwoPasses] {
        let ctx = common::ctx_with(ContextOptions::from_env().with_subnormal_products(products)).unwrap();
        for alpha in [1.0f32, 1.702, 0.5, -2.0, 3e-20] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..8192 {
                // A about its floor and its top, B making A B about 2^-96 or anything.
                let floor = (4.0 * f32::MIN_POSITIVE / alpha.abs()).max(f32::MIN_POSITIVE);
                // Beyond the top too: there a wider range would give subnormal results flushed.
                let top = 20.0 / alpha.abs();
                let end = [floor, top, 2.0 * top, 4.0 * top, 1.0, 1e-20][rng.random_range(0..6)];
                let a_value = nearby(end, &mut rng);
                let product = nearby(2f32.powi(-96), &mut rng);
                let b_value = match rng.random_range(0..6) {
                    0 | 1 => product / a_value,
                    2 => nearby(f32::from_bits(0x0040_0000), &mut rng),
                    3 => nearby(f32::MAX / a_value.abs().max(1e-30), &mut rng),
                    4 if rng.random_bool(0.1) => f32::INFINITY,
                    _ => nearby(2f32.powi(rng.random_range(-100..100)), &mut rng),
                };
                a.push(a_value);
                b.push(if b_value.is_nan() { 1.0 } else { b_value });
            }
            let (a, b) = (values_f32(&a), values_f32(&b));
            let worst = check_on(&ctx, &a, &b, alpha, &format!("{products:?}"));
            if let Some(float_unit) = &float_unit {
                let y = swiglu(&ctx, a.view(), b.view(), alpha).unwrap();
                let twin = swiglu(float_unit, a.view(), b.view(), alpha).unwrap();
                common::assert_same_bits(
                    &format!("SwiGLU f32 {products:?} alpha {alpha}, against the float unit's"),
                    &y,
                    &twin,
                );
            }
            println!("SwiGLU f32 {products:?} alpha {alpha}: worst {worst} ULP about the plain range's ends");
        }
    }
}

fn values_f32(values: &[f32]) -> ArrayD<f32> {
    ArrayD::from_shape_vec(IxDyn(&[values.len()]), values.to_vec()).unwrap()
}

/// A and B of different shapes (no broadcasting), and a dtype SwiGLU does not take, are refused.
#[test]
fn bad_input_is_refused() {
    let Some(ctx) = common::ctx() else { return };
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[3]));
    let error = swiglu(ctx, a.view(), b.view(), 1.0).unwrap_err().to_string();
    assert!(error.contains("SwiGLU"), "{error}");
    let x = ctx.upload(ndarray::arr1(&[1i32, 2]).view()).unwrap();
    assert!(ctx.run_swiglu(&x, &x, 1.0).unwrap_err().to_string().contains("SwiGLU"));
    let f = ctx.upload(ndarray::arr1(&[1.0f32, 2.0]).view()).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    assert!(ctx.encode_swiglu(&mut encoder, &f, &f, 1.0, &f).is_err(), "Y overlapping A");
}

/// An odd number of 16-bit elements: the other half of the last word, past Y, is written back as
/// it was (a caller's buffer may hold its own data there).
#[test]
fn the_half_word_past_an_odd_y_is_kept() {
    use wgpu_activations::{DType, wgpu};
    let Some(ctx) = common::ctx() else { return };
    let device = ctx.device();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("odd y"),
        size: 8,
        usage,
        mapped_at_creation: false,
    });
    ctx.queue().write_buffer(&buffer, 0, bytemuck::cast_slice(&[0u16, 0, 0, 0xabcd]));
    let y = ctx.tensor_from_buffer(buffer.clone(), 0, &[3], DType::F16).unwrap();
    let whole = ctx.tensor_from_buffer(buffer, 0, &[4], DType::F16).unwrap();
    let a = ctx.upload(ndarray::arr1(&[f16::from_f32(1.0), f16::from_f32(-2.0), f16::from_f32(3.0)]).view()).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    ctx.encode_swiglu(&mut encoder, &a, &a, 1.0, &y).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let back = ctx.download::<f16>(&whole).unwrap();
    assert_eq!(back[[3]].to_bits(), 0xabcd);
    let expected =
        reference::swiglu(ctx.download::<f16>(&a).unwrap().view(), ctx.download::<f16>(&a).unwrap().view(), 1.0);
    assert_eq!(back.slice(ndarray::s![..3]).iter().collect::<Vec<_>>(), expected.unwrap().iter().collect::<Vec<_>>());
}

/// SwiGLU as a chain step (`Activation::swiglu`): fused with unary steps and a PRelu, each step
/// rounding as it would alone, so the fused result is the separate calls' bit for bit, and
/// within the chain's bound of the reference; in place, into the caller's encoder, and on host
/// arrays.
fn fused_in_chains<T: FloatElement + wgpu_activations::Blocking>() {
    use wgpu_activations::{Activation, activations, reference::ChainStep};
    let Some(ctx) = common::ctx() else { return };
    let mut rng = StdRng::seed_from_u64(0x6a7e);
    let shape = [3, 5, 67];
    let len = shape.iter().product::<usize>();
    let random = |rng: &mut StdRng, scale: f64| -> ArrayD<T> {
        let v = (0..len).map(|_| T::from_f64(rng.random_range(-scale..scale))).collect();
        ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap()
    };
    let (x, b) = (random(&mut rng, 12.0), random(&mut rng, 3.0));
    let slope =
        ArrayD::from_shape_vec(IxDyn(&[5, 1]), (0..5).map(|i| T::from_f64(i as f64 * 0.5 - 1.0)).collect()).unwrap();
    let (device_b, device_slope) = (ctx.upload(b.view()).unwrap(), ctx.upload(slope.view()).unwrap());
    let chain = [
        Activation::elu(0.5),
        Activation::swiglu(&device_b, 1.702),
        Activation::prelu(&device_slope),
        Activation::clip(-4.0, 4.0),
    ];
    let fused = activations(ctx, &chain, x.view()).unwrap();
    // The same steps one call each.
    let mut separate = activations(ctx, &chain[..1], x.view()).unwrap();
    separate = swiglu(ctx, separate.view(), b.view(), 1.702).unwrap();
    separate = activations(ctx, &chain[2..], separate.view()).unwrap();
    for (i, (f, s)) in fused.iter().zip(&separate).enumerate() {
        assert_eq!(
            bytemuck::bytes_of(f),
            bytemuck::bytes_of(s),
            "{} element {i}: fused {:e}, separate {:e}",
            T::DTYPE,
            f.to_f64(),
            s.to_f64()
        );
    }
    let steps: Vec<ChainStep<'_, T>> = vec![
        chain[0].reference_step().unwrap(),
        ChainStep::Swiglu(b.view(), attributes_from(&[1.702])),
        ChainStep::Prelu(slope.view()),
        chain[3].reference_step().unwrap(),
    ];
    wgpu_activations::reference::check_chain(x.view(), &steps, fused.view()).unwrap();

    // In place on a device tensor, and into the caller's encoder.
    let device_x = ctx.upload(x.view()).unwrap();
    ctx.run_activations_in_place(&chain, &device_x).unwrap();
    assert_eq!(ctx.download::<T>(&device_x).unwrap(), fused);
    let (device_x, y) = (ctx.upload(x.view()).unwrap(), ctx.upload(x.view()).unwrap());
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    ctx.encode_activations(&mut encoder, &chain, &device_x, &y).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(ctx.download::<T>(&y).unwrap(), fused);
    // A and B the same tensor (the chain's X read twice).
    let both = ctx.run_activations(&[Activation::swiglu(&device_x, 1.0)], &device_x).unwrap();
    assert_eq!(ctx.download::<T>(&both).unwrap(), swiglu(ctx, x.view(), x.view(), 1.0).unwrap());
}

tests_per_dtype!(fused_in_chains: f32, f16, bf16, f64);

/// What a SwiGLU step refuses on the device (B of another shape, even one PRelu would broadcast;
/// an integer X; B overlapping the tensor written), and f64 on the device: a device chain and a
/// host chain holding it, within its bound of the reference.
#[test]
fn swiglu_steps_refuse_bad_input_and_run_f64() {
    use wgpu_activations::{Activation, Error, activations};
    let Some(ctx) = common::ctx() else { return };
    let x = ctx.upload(ArrayD::<f32>::zeros(IxDyn(&[2, 3])).view()).unwrap();
    let row = ctx.upload(ArrayD::<f32>::zeros(IxDyn(&[3])).view()).unwrap();
    let error = ctx.run_activations(&[Activation::swiglu(&row, 1.0)], &x).unwrap_err();
    assert!(matches!(error, Error::ShapeMismatch { .. }) && error.to_string().contains("SwiGLU"), "{error}");
    let ints = ctx.upload(ndarray::arr1(&[1i32, 2]).view()).unwrap();
    let error = ctx.run_activations(&[Activation::swiglu(&ints, 1.0)], &ints).unwrap_err();
    assert!(error.to_string().contains("SwiGLU"), "{error}");
    let error = ctx.run_activations_in_place(&[Activation::swiglu(&x, 1.0)], &x).unwrap_err();
    assert!(matches!(error, Error::InvalidBuffer { .. }), "B overlapping Y: {error}");
    let a = values::<f64>(&[-3.0, -0.5, 0.0, 2.5, 40.0, -1e200, 1e160, -745.5]);
    let b = values::<f64>(&[1.5, -2.0, 7.0, 0.25, -1.0, 1e200, 1e160, 3.0]);
    let device_b = ctx.upload(b.view()).unwrap();
    let expected = reference::swiglu(a.view(), b.view(), 0.5).unwrap().mapv(|v| v.max(0.0));
    let bound = SWIGLU.max_ulp.f64;
    let chain = [Activation::swiglu(&device_b, 0.5), Activation::with_defaults(&wgpu_activations::ops::RELU)];
    if !ctx.runs_on_cpu(wgpu_activations::DType::F64) {
        let device_a = ctx.upload(a.view()).unwrap();
        let y = ctx.download::<f64>(&ctx.run_activations(&chain, &device_a).unwrap()).unwrap();
        assert!(y.iter().zip(expected.iter()).all(|(&g, &e)| ulp::within_ulp(g, e, bound)), "{y} against {expected}");
    }
    let y = activations(ctx, &chain, a.view()).unwrap();
    assert!(y.iter().zip(expected.iter()).all(|(&g, &e)| ulp::within_ulp(g, e, bound)), "{y} against {expected}");
}

/// Every pair of special values (signed zeros, infinities, NaN, the largest and subnormal
/// magnitudes) with alphas that make alpha A infinite, NaN (0 inf) or -inf, in the standalone
/// kernel and as a chain step.
fn specials<T: FloatElement + wgpu_activations::Blocking>() {
    use wgpu_activations::{Activation, activations};
    let Some(ctx) = common::ctx() else { return };
    let max = match T::DTYPE {
        wgpu_activations::DType::F16 => 65504.0,
        wgpu_activations::DType::BF16 => 3.3895313892515355e38,
        wgpu_activations::DType::F64 => f64::MAX,
        _ => f64::from(f32::MAX),
    };
    let specials =
        [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, max, -max, 1e-40, -3.0, 90.0, -200.0];
    let pairs: Vec<(f64, f64)> = specials.iter().flat_map(|&a| specials.iter().map(move |&b| (a, b))).collect();
    let a = values::<T>(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let b = values::<T>(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let device_b = ctx.upload(b.view()).unwrap();
    for alpha in [1.0f32, -2.0, 0.0] {
        check(&a, &b, alpha, "specials");
        let fused = activations(ctx, &[Activation::swiglu(&device_b, alpha)], a.view()).unwrap();
        let expected = reference::swiglu(a.view(), b.view(), alpha).unwrap();
        for (i, (&g, &e)) in fused.iter().zip(expected.iter()).enumerate() {
            let bound = SWIGLU.max_ulp.for_dtype(T::DTYPE);
            assert!(
                ulp::within_ulp(g, e, bound),
                "SwiGLU step {} alpha {alpha}: a {:e} b {:e}: {:e} against {:e}",
                T::DTYPE,
                pairs[i].0,
                pairs[i].1,
                g.to_f64(),
                e.to_f64()
            );
        }
    }
}

tests_per_dtype!(specials: f32, f16, bf16, f64);

/// Arrays beyond one binding and one buffer: windows of 4 KiB and host pieces of 64 KiB, with
/// a tail, B uploaded in the same pieces (host) or bound whole per window (device, in a chain).
#[test]
fn large_arrays_run_in_binding_windows_and_host_pieces() {
    use wgpu_activations::ops::ELU;
    use wgpu_activations::reference::ChainStep;
    use wgpu_activations::{Activation, ContextOptions, activations};
    let options = ContextOptions::from_env().with_max_binding_bytes(4096).with_max_buffer_bytes(64 << 10);
    let Some(ctx) = common::ctx_with(options) else { return };
    let mut rng = StdRng::seed_from_u64(0x91ec);
    let mut random =
        |n: usize, scale: f64| values::<f32>(&(0..n).map(|_| rng.random_range(-scale..scale)).collect::<Vec<_>>());
    let (a, b) = (random(100_003, 9.0), random(100_003, 2.0));
    let y = swiglu(&ctx, a.view(), b.view(), 1.702).unwrap();
    let expected = reference::swiglu(a.view(), b.view(), 1.702).unwrap();
    for (i, (&g, &e)) in y.iter().zip(expected.iter()).enumerate() {
        assert!(ulp::within_ulp(g, e, SWIGLU.max_ulp.f32), "element {i}: {g:e} against {e:e}");
    }
    let (a16, b16) = (a.mapv(f16::from_f32), b.mapv(f16::from_f32));
    let y16 = swiglu(&ctx, a16.view(), b16.view(), 1.0).unwrap();
    let expected16 = reference::swiglu(a16.view(), b16.view(), 1.0).unwrap();
    assert!(y16.iter().zip(expected16.iter()).all(|(&g, &e)| ulp::within_ulp(g, e, SWIGLU.max_ulp.f16)));
    let small = ndarray::Array1::from_iter(a.iter().take(1000).copied()).into_dyn();
    let device_b = ctx.upload(b.slice(ndarray::s![..1000]).view()).unwrap();
    let fused = activations(&ctx, &[Activation::elu(1.0), Activation::swiglu(&device_b, 1.0)], small.view()).unwrap();
    let b_small = b.slice(ndarray::s![..1000]).into_dyn();
    let steps =
        [ChainStep::Unary(&ELU, attributes_from(&[1.0])), ChainStep::Swiglu(b_small.view(), attributes_from(&[1.0]))];
    reference::check_chain(small.view(), &steps, fused.view()).unwrap();
}

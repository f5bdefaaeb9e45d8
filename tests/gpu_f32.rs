//! Every operator on f32, on the GPU adapter, compared with the CPU reference: odd sizes,
//! ranks 0 to 6, empty dims, transposed and sliced views, specials, unusual alphas, every PRelu
//! slope pattern, chunked dispatch, async calls, fused chains and device-resident tensors.

mod common;

use common::{assert_close, f32_specials, random_f32, to_dyn};
use std::future::Future;

use ndarray::{Array, ArrayD, Axis, IxDyn, array, s};
use wgpu_activations::{
    Activation, Context, ContextOptions, Element, Error, activations, activations_async, elu, elu_async, leaky_relu,
    leaky_relu_async, prelu, prelu_async, reference,
};

const ODD_SIZES: [usize; 6] = [1, 3, 255, 257, 65537, 1_000_003];
const ALPHAS: [f32; 5] = [0.01, 1.0, 0.0, -0.7, 3.0];
/// Elu's bound against the correctly rounded result (issue: <= 2 ULP for every negative f32).
const ELU_F32_ULP: u64 = 2;

fn check_unary(ctx: &Context, what: &str, x: ndarray::ArrayViewD<'_, f32>) {
    for alpha in ALPHAS {
        let y = leaky_relu(ctx, x.view(), alpha).unwrap();
        assert_close(&format!("{what} leaky_relu({alpha})"), y.view(), reference::leaky_relu(x.view(), alpha).view(), x.view(), 0);
        let y = elu(ctx, x.view(), alpha).unwrap();
        assert_close(&format!("{what} elu({alpha})"), y.view(), reference::elu(x.view(), alpha).view(), x.view(), ELU_F32_ULP);
    }
}

#[test]
fn unary_ops_on_odd_sizes() {
    let ctx = gpu_or_skip!();
    for (i, &n) in ODD_SIZES.iter().enumerate() {
        let mut data = random_f32(n, i as u64);
        let specials = f32_specials();
        let k = specials.len().min(n);
        data[..k].copy_from_slice(&specials[..k]);
        check_unary(ctx, &format!("n={n}"), to_dyn(data, &[n]).view());
    }
}

#[test]
fn unary_ops_on_ranks_zero_to_six_and_empty_dims() {
    let ctx = gpu_or_skip!();
    let shapes: [&[usize]; 10] =
        [&[], &[5], &[3, 4], &[2, 3, 5], &[2, 1, 3, 4], &[1, 2, 3, 2, 3], &[2, 1, 2, 3, 1, 5], &[0], &[3, 0, 2], &[0, 0, 0, 0, 0, 0]];
    for (i, shape) in shapes.iter().enumerate() {
        let n = shape.iter().product();
        let x = to_dyn(random_f32(n, 100 + i as u64), shape);
        check_unary(ctx, &format!("shape {shape:?}"), x.view());
        assert_eq!(leaky_relu(ctx, x.view(), 0.2).unwrap().shape(), *shape);
    }
    // Typed dimensions keep their type: a 0-d array in, a 0-d array out.
    let scalar = ndarray::arr0(-2.0f32);
    assert_eq!(leaky_relu(ctx, scalar.view(), 0.5).unwrap(), ndarray::arr0(-1.0f32));
}

#[test]
fn transposed_and_sliced_inputs() {
    let ctx = gpu_or_skip!();
    let base = Array::from_shape_vec((33, 17, 5), random_f32(33 * 17 * 5, 7)).unwrap();
    let transposed = base.view().reversed_axes();
    check_unary(ctx, "transposed", transposed.into_dyn());
    let sliced = base.slice(s![3..30;4, ..;-2, 1..4]);
    check_unary(ctx, "sliced", sliced.into_dyn());
    let permuted = base.view().permuted_axes([1, 2, 0]);
    check_unary(ctx, "permuted", permuted.into_dyn());
    let column = base.index_axis(Axis(2), 3);
    check_unary(ctx, "column", column.into_dyn());
}

#[test]
fn specials_keep_their_bits() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(f32_specials(), &[f32_specials().len()]);
    for alpha in ALPHAS {
        let y = leaky_relu(ctx, x.view(), alpha).unwrap();
        for (a, b) in y.iter().zip(x.iter()) {
            if !b.is_negative() {
                // Where(X < 0, .., X): X itself, bit for bit (NaN payloads, -0.0, +inf).
                assert_eq!(a.to_bits(), b.to_bits(), "leaky_relu({alpha}) passthrough of {b:?}");
            }
        }
        let e = elu(ctx, x.view(), alpha).unwrap();
        let at = |v: f32| x.iter().position(|&q| q.to_bits() == v.to_bits()).unwrap();
        assert_eq!(e[at(f32::NEG_INFINITY)], -alpha, "Elu(-inf) = -alpha");
        assert_eq!(e[at(-0.0)].to_bits(), (-0.0f32).to_bits());
        assert!(e[at(f32::NAN)].is_nan());
        let l = y[at(f32::NEG_INFINITY)];
        if alpha == 0.0 {
            assert!(l.is_nan(), "LeakyRelu(-inf) with alpha 0 is 0 * -inf = NaN");
        } else {
            assert_eq!(l, alpha * f32::NEG_INFINITY);
        }
    }
}

#[test]
fn elu_f32_ulp_sweep_over_log_spaced_negatives() {
    let ctx = gpu_or_skip!();
    // 2^20 log-spaced negatives from -1e-38 to -104, plus the specials.
    let n = 1 << 20;
    let (lo, hi) = (1e-38f64.ln(), 104f64.ln());
    let mut xs: Vec<f32> = (0..n).map(|i| -((lo + (hi - lo) * i as f64 / (n - 1) as f64).exp() as f32)).collect();
    xs.extend(f32_specials());
    let x = to_dyn(xs, &[n + f32_specials().len()]);
    let y = elu(ctx, x.view(), 1.0).unwrap();
    let expected = reference::elu(x.view(), 1.0);
    let mut worst = (0u64, 0.0f32);
    for ((a, e), xv) in y.iter().zip(expected.iter()).zip(x.iter()) {
        if e.is_subnormal() && *a == 0.0 {
            continue; // WGSL may flush subnormal results to a zero of the same sign
        }
        let d = wgpu_activations::ulp::ulp_distance(*a, *e).unwrap_or(u64::MAX);
        if d > worst.0 {
            worst = (d, *xv);
        }
    }
    println!("Elu f32 sweep: max error {} ULP (at x = {:e}) over {} inputs", worst.0, worst.1, x.len());
    assert!(worst.0 <= ELU_F32_ULP, "max Elu f32 error {} ULP at x = {:e}", worst.0, worst.1);
    assert_close("elu sweep", y.view(), expected.view(), x.view(), ELU_F32_ULP);
}

fn check_prelu(ctx: &Context, x_shape: &[usize], slope_shape: &[usize], seed: u64) {
    let x = to_dyn(random_f32(x_shape.iter().product(), seed), x_shape);
    let mut slope_values = random_f32(slope_shape.iter().product(), seed + 1);
    if let Some(first) = slope_values.first_mut() {
        *first = 0.0;
    }
    let slope = to_dyn(slope_values, slope_shape);
    let y = prelu(ctx, x.view(), slope.view()).unwrap();
    let expected = reference::prelu(x.view(), slope.view()).unwrap();
    assert_close(&format!("prelu x{x_shape:?} slope{slope_shape:?}"), y.view(), expected.view(), x.view(), 0);
}

#[test]
fn prelu_slope_patterns() {
    let ctx = gpu_or_skip!();
    let x: &[usize] = &[2, 3, 5, 7];
    let slopes: [&[usize]; 10] = [
        &[],           // scalar
        &[1],          // one element
        &[3, 1, 1],    // per channel
        &[1, 3, 1, 1], // per channel, full rank
        &[7],          // last dim
        &[5, 7],       // trailing two dims
        &[2, 3, 5, 7], // full shape
        &[2, 1, 1, 7], // outer and inner
        &[1, 1, 5, 1], // middle
        &[2, 1, 5, 1], // alternating
    ];
    for (i, slope) in slopes.iter().enumerate() {
        check_prelu(ctx, x, slope, 10 * i as u64);
    }
    // Rank-6 mixed pattern, and X ranks 0 and 1.
    check_prelu(ctx, &[2, 3, 4, 5, 3, 2], &[2, 1, 4, 1, 3, 1], 1);
    check_prelu(ctx, &[2, 3, 4, 5, 3, 2], &[3, 1, 5, 1, 1], 2);
    check_prelu(ctx, &[], &[], 3);
    check_prelu(ctx, &[65537], &[1], 4);
    check_prelu(ctx, &[1_000_003], &[1_000_003], 5);
    check_prelu(ctx, &[4, 0, 3], &[3], 6);
    // Transposed X.
    let base = Array::from_shape_vec((6, 4, 3), random_f32(72, 9)).unwrap();
    let xt = base.view().reversed_axes();
    let slope = array![[0.5f32], [-2.0], [0.0], [4.0]];
    let y = prelu(ctx, xt, slope.view()).unwrap();
    assert_close("prelu transposed", y.view(), reference::prelu(xt, slope.view()).unwrap().view(), xt, 0);
}

#[test]
fn prelu_refuses_slopes_that_do_not_broadcast() {
    let ctx = gpu_or_skip!();
    let x = ArrayD::<f32>::zeros(IxDyn(&[2, 3, 4]));
    for bad in [&[3usize][..], &[2, 1, 1, 1], &[4, 3], &[2, 1]] {
        let slope = ArrayD::<f32>::zeros(IxDyn(bad));
        match prelu(ctx, x.view(), slope.view()) {
            Err(Error::NotBroadcastable { x: xs, slope: ss, .. }) => {
                assert_eq!(xs, vec![2, 3, 4]);
                assert_eq!(ss, bad.to_vec());
            }
            other => panic!("slope {bad:?}: expected NotBroadcastable, got {other:?}"),
        }
    }
}

#[test]
fn large_tensors_run_in_binding_windows_and_host_pieces() {
    let options = ContextOptions::default().with_max_binding_bytes(4096).with_max_buffer_bytes(64 << 10);
    let Some(ctx) = common::ctx_with(options) else {
        return;
    };
    // 100_003 elements: many 4 KiB windows per buffer, and several 64 KiB host pieces.
    let n = 100_003;
    let x = to_dyn(random_f32(n, 42), &[n]);
    check_unary(&ctx, "windowed", x.view());
    check_prelu(&ctx, &[7, 14287, 1], &[7, 1, 1], 3);
    check_prelu(&ctx, &[100_003], &[100_003], 4);
    check_prelu(&ctx, &[1001, 99, 1], &[1001, 1, 1], 5);
    // A slope read whole by every window must fit one binding: refused with the sizes.
    let x = to_dyn(random_f32(4 * 3000, 7), &[4, 3000]);
    let slope = to_dyn(random_f32(3000, 8), &[3000]);
    assert!(matches!(prelu(&ctx, x.view(), slope.view()), Err(Error::TooLarge { .. })));
    let chain = [Activation::elu(0.5), Activation::leaky_relu(0.2)];
    let y = activations(&ctx, &chain, x.view()).unwrap();
    let expected = reference::leaky_relu(reference::elu(x.view(), 0.5).view(), 0.2);
    assert_close("windowed chain", y.view(), expected.view(), x.view(), ELU_F32_ULP);
}

#[test]
fn fused_chain_matches_separate_ops() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(random_f32(4099, 5), &[4099]);
    let chain = [Activation::leaky_relu(-0.5), Activation::elu(2.0), Activation::leaky_relu(3.0)];
    let y = activations(ctx, &chain, x.view()).unwrap();
    let step1 = reference::leaky_relu(x.view(), -0.5);
    let step2 = reference::elu(step1.view(), 2.0);
    let expected = reference::leaky_relu(step2.view(), 3.0);
    // Step 2's input is the reference's step 1 exactly (LeakyRelu is exact), so the chain
    // inherits Elu's bound, then scaled exactly.
    assert_close("fused chain", y.view(), expected.view(), x.view(), ELU_F32_ULP);
    assert!(matches!(activations(ctx, &[], x.view()), Err(Error::InvalidAttribute { .. })));
    let too_long = vec![Activation::elu(1.0); 9];
    assert!(matches!(activations(ctx, &too_long, x.view()), Err(Error::InvalidAttribute { .. })));
}

#[test]
fn async_calls_match_blocking_calls() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(random_f32(1001, 6), &[7, 11, 13]);
    let slope = array![0.25f32];
    let (l, e, p, c) = pollster::block_on(async {
        (
            leaky_relu_async(ctx, x.view(), 0.3).await.unwrap(),
            elu_async(ctx, x.view(), 0.3).await.unwrap(),
            prelu_async(ctx, x.view(), slope.view()).await.unwrap(),
            activations_async(ctx, &[Activation::elu(1.0)], x.view()).await.unwrap(),
        )
    });
    assert_eq!(l, leaky_relu(ctx, x.view(), 0.3).unwrap());
    assert_eq!(e, elu(ctx, x.view(), 0.3).unwrap());
    assert_eq!(p, prelu(ctx, x.view(), slope.view()).unwrap());
    assert_eq!(c, elu(ctx, x.view(), 1.0).unwrap());
}

#[test]
fn device_tensors_chain_without_host_round_trips() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(random_f32(3 * 64 * 5, 8), &[3, 64, 5]);
    let slope = array![[0.5f32], [-1.0], [2.0]].into_shape_with_order((3, 1, 1)).unwrap();
    let on_device = ctx.upload(x.view()).unwrap();
    let slope_on_device = ctx.upload(slope.view()).unwrap();
    let a = ctx.run_activations(&[Activation::elu(1.0)], &on_device).unwrap();
    let b = ctx.run_prelu(&a, &slope_on_device).unwrap();
    let y = ctx.download::<f32>(&b).unwrap();
    let expected = reference::prelu(reference::elu(x.view(), 1.0).view(), slope.view()).unwrap();
    assert_close("device chain", y.view(), expected.view(), x.view(), ELU_F32_ULP);
    assert!(matches!(ctx.download::<f64>(&b), Err(Error::DTypeMismatch { .. })));
}

#[test]
fn pipelines_are_compiled_once_per_kernel() {
    let Some(ctx) = common::ctx_with(ContextOptions::default()) else { return };
    let x = to_dyn(random_f32(100, 9), &[100]);
    leaky_relu(&ctx, x.view(), 0.1).unwrap();
    let after_first = ctx.cached_pipeline_count();
    assert_eq!(after_first, 1);
    for alpha in [0.2, -3.0, 0.0] {
        leaky_relu(&ctx, x.view(), alpha).unwrap();
    }
    assert_eq!(ctx.cached_pipeline_count(), 1, "a new alpha must not compile a new pipeline");
    elu(&ctx, x.view(), 1.0).unwrap();
    prelu(&ctx, x.view(), array![0.5f32].view()).unwrap();
    prelu(&ctx, x.view(), x.view()).unwrap();
    assert_eq!(ctx.cached_pipeline_count(), 4, "elu, prelu scalar, prelu same");
    // Many threads asking for the same kernel at once still share one.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| activations(&ctx, &[Activation::elu(1.0), Activation::elu(2.0)], x.view()).unwrap());
        }
    });
    assert_eq!(ctx.cached_pipeline_count(), 5);
}

#[test]
fn adopts_a_device_the_caller_owns() {
    let Some(ctx) = common::ctx() else { return };
    // Build a device ourselves, as an application with its own renderer would.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()));
    let Ok(adapter) = adapter else {
        panic!("the shared context found an adapter ({}), so this must too", ctx.info().adapter.name)
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let adopted = Context::from_device(device.clone(), queue, &adapter, ContextOptions::default());
    assert!(adopted.device() == &device);
    let x = array![-1.0f32, 2.0];
    assert_eq!(leaky_relu(&adopted, x.view(), 0.5).unwrap(), array![-0.5f32, 2.0]);
    assert_eq!(adopted.info().adapter.name, adapter.get_info().name);
}

#[test]
fn idle_buffers_are_pooled_and_can_be_released() {
    let Some(ctx) = common::ctx_with(ContextOptions::default()) else { return };
    let x = to_dyn(random_f32(10_000, 12), &[10_000]);
    elu(&ctx, x.view(), 1.0).unwrap();
    let idle = ctx.idle_buffer_bytes();
    assert!(idle >= 2 * 40_000, "input, output and readback buffers return to the pool: {idle}");
    elu(&ctx, x.view(), 1.0).unwrap();
    assert_eq!(ctx.idle_buffer_bytes(), idle, "a second call of the same size reuses them");
    ctx.release_idle_buffers();
    assert_eq!(ctx.idle_buffer_bytes(), 0);
    assert_eq!(elu(&ctx, x.view(), 1.0).unwrap().len(), 10_000);
}

#[test]
fn tensors_from_another_context_are_refused() {
    let Some(first) = common::ctx() else { return };
    let Some(second) = common::ctx_with(ContextOptions::default()) else { return };
    let x = first.upload(array![-1.0f32, 2.0].view()).unwrap();
    assert!(matches!(second.run_activations(&[Activation::elu(1.0)], &x), Err(Error::ForeignTensor { .. })));
    assert!(matches!(second.download::<f32>(&x), Err(Error::ForeignTensor { .. })));
}

#[test]
fn a_cancelled_async_call_leaves_the_context_usable() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(random_f32(100_000, 11), &[100_000]);
    for _ in 0..3 {
        // Poll once (it submits and starts the map), then drop it mid-wait.
        let mut future = std::pin::pin!(elu_async(ctx, x.view(), 1.0));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let _ = future.as_mut().poll(&mut cx);
    }
    let y = elu(ctx, x.view(), 1.0).unwrap();
    assert_close("after cancellation", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), ELU_F32_ULP);
}

#[test]
fn prelu_host_pieces_keep_slope_windows_aligned() {
    // Tiny buffers and the smallest binding: many host pieces, each reading an unaligned part
    // of an outer-pattern slope.
    let options = ContextOptions::default().with_max_buffer_bytes(256).with_max_binding_bytes(0);
    let Some(ctx) = common::ctx_with(options) else { return };
    check_prelu(&ctx, &[50, 3], &[50, 1], 12);
    check_prelu(&ctx, &[301], &[301], 13);
}

#[test]
fn elu_keeps_the_sign_of_tiny_negatives() {
    let ctx = gpu_or_skip!();
    let x = array![-1e-30f32, f32::from_bits(0x8000_0001), -2.9e-8, -3.0e-8];
    let y = elu(ctx, x.view(), 1.0).unwrap();
    for (a, b) in y.iter().zip(x.iter()) {
        assert!(a.is_sign_negative(), "Elu({b:e}) = {a:e} lost its sign");
    }
    assert_close("tiny", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 0);
}

//! The engine: compiled kernels cached once per kernel and bounded, pooled buffers, binding
//! windows, adopted devices (also with lowered limits), foreign tensors, asynchronous calls on
//! one poller thread, and cancellation at any point from many threads.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use common::{assert_close, assert_same_bits, samples, to_dyn};
use ndarray::array;
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::{
    Activation, Context, ContextOptions, Error, activations, activations_async, elu, elu_async, leaky_relu,
    leaky_relu_async, prelu, prelu_async, reference,
};

#[test]
fn kernels_are_compiled_once_per_kernel() {
    let Some(ctx) = common::ctx_with(ContextOptions::from_env().with_step_programs(false)) else { return };
    let x = to_dyn(samples::<f32>(100, 9), &[100]);
    let k = common::kernels_per_chain(&ctx);
    leaky_relu(&ctx, x.view(), 0.1).unwrap();
    assert_eq!(ctx.pipeline_cache_stats().cached, k);
    for alpha in [0.2, -3.0, 0.0] {
        leaky_relu(&ctx, x.view(), alpha).unwrap();
    }
    assert_eq!(ctx.pipeline_cache_stats().cached, k, "a new alpha must not compile a new kernel");
    elu(&ctx, x.view(), 1.0).unwrap();
    prelu(&ctx, x.view(), array![0.5f32].view()).unwrap();
    prelu(&ctx, x.view(), x.view()).unwrap();
    assert_eq!(ctx.pipeline_cache_stats().cached, 4 * k, "elu, prelu scalar, prelu same shape");
    // Many threads asking for the same kernel at once still share one.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| activations(&ctx, &[Activation::elu(1.0), Activation::elu(2.0)], x.view()).unwrap());
        }
    });
    assert_eq!(ctx.pipeline_cache_stats().cached, 5 * k);
    assert_eq!(ctx.pipeline_cache_stats().compiled, 5 * k as u64);
}

/// A step program is one kernel for every chain over the same operators: Elu twice and three
/// times share one, and Elu with LeakyRelu in any order another; a single step keeps its own.
#[test]
fn a_step_program_serves_every_chain_over_its_operators() {
    let Some(ctx) = common::ctx_with(ContextOptions::from_env().with_step_programs(true)) else { return };
    let x = to_dyn(samples::<f32>(100, 9), &[100]);
    let k = common::kernels_per_chain(&ctx) as u64;
    let (e, l) = (Activation::elu(1.0), Activation::leaky_relu(0.1));
    let step = |step: &Activation, x: ndarray::ArrayD<f32>| activations(&ctx, std::slice::from_ref(step), x.view());
    step(&e, x.clone()).unwrap();
    step(&l, x.clone()).unwrap();
    assert_eq!(ctx.pipeline_cache_stats().compiled, 2 * k, "Elu and LeakyRelu alone");
    let chains = [
        vec![e.clone(), e.clone()],
        vec![e.clone(), e.clone(), e.clone()],
        vec![e.clone(), l.clone()],
        vec![l, e.clone(), e],
    ];
    for chain in chains {
        let y = activations(&ctx, &chain, x.view()).unwrap();
        let expected = chain.iter().fold(x.clone(), |x, s| step(s, x).unwrap());
        assert_same_bits("step program", &y, &expected);
    }
    assert_eq!(ctx.pipeline_cache_stats().compiled, 4 * k, "and the programs {{Elu}} and {{Elu, LeakyRelu}}");
}

/// On a CPU adapter, where compiling a kernel costs more than running it on a small tensor,
/// chains run as step programs below 16 workgroups (one kernel for both orders of two
/// operators) and as a kernel per chain from there; elsewhere always a kernel per chain, the
/// same for both sizes (on the H200 the large tensor compiled none: the test expected two).
#[test]
fn cpu_adapters_run_small_tensors_chains_as_step_programs() {
    let Some(ctx) = common::ctx_with(ContextOptions::from_env()) else { return };
    let k = common::kernels_per_chain(&ctx) as u64;
    let cpu = ctx.info().adapter.device_type == wgpu::DeviceType::Cpu;
    let (e, l) = (Activation::elu(1.0), Activation::leaky_relu(0.1));
    let mut chain_kernels = Vec::new();
    for elements in [4096, 1 << 20] {
        let x = to_dyn(samples::<f32>(elements, 4), &[elements]);
        let step =
            |step: &Activation, x: &ndarray::ArrayD<f32>| activations(&ctx, std::slice::from_ref(step), x.view());
        let expected = [step(&l, &step(&e, &x).unwrap()).unwrap(), step(&e, &step(&l, &x).unwrap()).unwrap()];
        let before = ctx.pipeline_cache_stats().compiled;
        for (chain, expected) in [[e.clone(), l.clone()], [l.clone(), e.clone()]].iter().zip(&expected) {
            assert_same_bits("chain", &activations(&ctx, chain, x.view()).unwrap(), expected);
        }
        chain_kernels.push(ctx.pipeline_cache_stats().compiled - before);
    }
    let expected = if cpu { [k, 2 * k] } else { [2 * k, 0] };
    assert_eq!(chain_kernels, expected, "kernels of the two chains, small and large: {}", ctx.info().adapter.name);
}

/// On llvmpipe, where the straight-line form is the default, a tensor of fewer than 256 whole
/// workgroups takes the loop form, which compiles faster: the same chain on a small and a large
/// tensor is two kernels there, one kernel elsewhere or where a form is asked for, and right in
/// each form.
#[test]
fn llvmpipe_takes_the_straight_line_for_large_tensors_only() {
    let Some(ctx) = common::ctx_with(ContextOptions::from_env().with_step_programs(false)) else { return };
    let asked = ContextOptions::from_env().with_straight_line(true).with_step_programs(false);
    let Some(asked) = common::ctx_with(asked) else { return };
    let small = to_dyn(samples::<f32>(4096, 5), &[4096]);
    let large = to_dyn(samples::<f32>(1 << 20, 6), &[1 << 20]);
    for context in [&ctx, &asked] {
        for x in [&small, &large] {
            let y = elu(context, x.view(), 1.0).unwrap();
            assert_close("elu", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
        }
    }
    let k = common::kernels_per_chain(&ctx) as u64;
    let forms = if ctx.info().adapter.name.contains("llvmpipe") { 2 } else { 1 };
    assert_eq!(ctx.pipeline_cache_stats().compiled, forms * k, "{}", ctx.info().adapter.name);
    assert_eq!(asked.pipeline_cache_stats().compiled, k, "a form asked for holds for every tensor");
}

#[test]
fn the_kernel_cache_is_bounded_and_counts_evictions() {
    let options = ContextOptions::from_env().with_pipeline_cache_capacity(3).with_step_programs(false);
    let Some(ctx) = common::ctx_with(options) else { return };
    let x = to_dyn(samples::<f32>(64, 1), &[64]);
    let chains = [
        vec![Activation::elu(1.0)],
        vec![Activation::leaky_relu(0.1)],
        vec![Activation::elu(1.0), Activation::leaky_relu(0.1)],
        vec![Activation::leaky_relu(0.1), Activation::elu(1.0)],
        vec![Activation::elu(1.0), Activation::elu(1.0)],
    ];
    for chain in &chains {
        activations(&ctx, chain, x.view()).unwrap();
    }
    // Each chain compiles k kernels (one per pass); all but the last 3 were evicted.
    let k = common::kernels_per_chain(&ctx) as u64;
    let stats = ctx.pipeline_cache_stats();
    assert_eq!((stats.cached, stats.compiled, stats.evicted, stats.capacity), (3, 5 * k, 5 * k - 3, 3), "{stats:?}");
    // An evicted kernel is compiled again when needed, and still correct.
    let y = activations(&ctx, &chains[0], x.view()).unwrap();
    assert_close("after eviction", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
    assert_eq!(ctx.pipeline_cache_stats().cached, 3);
}

#[test]
fn idle_buffers_are_pooled_and_can_be_released() {
    let Some(ctx) = common::ctx_with(ContextOptions::from_env().with_validation(false)) else { return };
    let x = to_dyn(samples::<f32>(10_000, 12), &[10_000]);
    elu(&ctx, x.view(), 1.0).unwrap();
    let idle = ctx.pool_stats().idle_bytes;
    assert!(idle >= 2 * 40_000, "the upload and readback buffers return to the pool: {idle}");
    elu(&ctx, x.view(), 1.0).unwrap();
    assert_eq!(ctx.pool_stats().idle_bytes, idle, "a second call of the same size reuses them");
    ctx.release_idle_buffers();
    assert_eq!(ctx.pool_stats().idle_bytes, 0);
    assert_eq!(elu(&ctx, x.view(), 1.0).unwrap().len(), 10_000);
}

#[test]
fn the_pool_never_holds_more_than_its_capacity() {
    let capacity = 256 << 10;
    let options = ContextOptions::from_env().with_validation(false).with_pool_capacity_bytes(capacity);
    let Some(ctx) = common::ctx_with(options) else { return };
    // Sizes whose buffers together exceed the capacity several times over, then buffers
    // larger than all of it: beyond the capacity the pool keeps only the last one returned of
    // each usage (the upload and the readback), which the next call of that size takes again.
    let mut oversized = 0u64;
    for (seed, len) in [1_000usize, 20_000, 50_000, 3_000, 70_000, 30_000, 200_000, 200_000].into_iter().enumerate() {
        // Each usage's largest buffer so far, if beyond the capacity (a size class is below the
        // next power of two).
        let class_bound = (4 * len as u64).next_power_of_two();
        if class_bound > capacity {
            oversized = oversized.max(2 * class_bound);
        }
        let x = to_dyn(samples::<f32>(len, seed as u64), &[len]);
        let y = elu(&ctx, x.view(), 1.0).unwrap();
        assert_close("pooled elu", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
        let stats = ctx.pool_stats();
        assert!(stats.idle_bytes <= capacity + oversized, "{len} elements: the pool holds {stats:?}");
    }
    let before = ctx.pool_stats();
    assert!(before.idle_bytes > capacity, "the last call's large buffers are kept: {before:?}");
    let x = to_dyn(samples::<f32>(200_000, 9), &[200_000]);
    elu(&ctx, x.view(), 1.0).unwrap();
    assert_eq!(ctx.pool_stats(), before, "a call of the same size reuses them");
    ctx.release_idle_buffers();
    assert_eq!(ctx.pool_stats().idle_bytes, 0);
}

/// The kernels over an axis take their parameters (and, in chunks, their scratch) from the pool
/// and give them back once their submission is done, as the elementwise ones do: a second call
/// reuses them.
#[test]
fn the_kernels_over_an_axis_pool_their_buffers() {
    use wgpu_activations::ops::HARDMAX;
    let Some(ctx) = common::ctx_with(ContextOptions::from_env().with_validation(false)) else { return };
    // Rows of 2^15: a CPU adapter takes them in chunks, with scratch.
    let x_host = to_dyn(samples::<f32>(2 << 15, 21), &[2, 1 << 15]);
    let x = ctx.upload(x_host.view()).unwrap();
    let y = ctx.run_axis(&HARDMAX, &x, -1, None).unwrap();
    let expected = reference::axis_op(&HARDMAX, None, x_host.view(), -1).unwrap();
    assert_same_bits("Hardmax", &ctx.download::<f32>(&y).unwrap(), &expected);
    ctx.release_idle_buffers();
    ctx.download::<f32>(&y).unwrap();
    let download_alone = ctx.pool_stats();
    ctx.release_idle_buffers();
    let y = ctx.run_axis(&HARDMAX, &x, -1, None).unwrap();
    ctx.download::<f32>(&y).unwrap();
    let with_axis = ctx.pool_stats();
    assert!(
        with_axis.idle_buffers > download_alone.idle_buffers,
        "the parameters come back: {with_axis:?} against {download_alone:?} for the download alone"
    );
    for _ in 0..3 {
        let y = ctx.run_axis(&HARDMAX, &x, -1, None).unwrap();
        assert_same_bits("Hardmax again", &ctx.download::<f32>(&y).unwrap(), &expected);
        assert_eq!(ctx.pool_stats(), with_axis, "a call of the same shape reuses them");
    }
}

#[test]
fn large_tensors_run_in_binding_windows_and_host_pieces() {
    let options = ContextOptions::from_env().with_max_binding_bytes(4096).with_max_buffer_bytes(64 << 10);
    let Some(ctx) = common::ctx_with(options) else { return };
    // 100_003 elements: many 4 KiB windows per buffer, several 64 KiB host pieces, and a tail.
    let x = to_dyn(samples::<f32>(100_003, 42), &[100_003]);
    for alpha in [0.01f32, -0.7] {
        let y = leaky_relu(&ctx, x.view(), alpha).unwrap();
        assert_close("windowed leaky_relu", y.view(), reference::leaky_relu(x.view(), alpha).view(), x.view(), 0);
    }
    let chain = [Activation::elu(0.5), Activation::leaky_relu(0.2)];
    let y = activations(&ctx, &chain, x.view()).unwrap();
    let expected = reference::leaky_relu(reference::elu(x.view(), 0.5).view(), 0.2);
    assert_close("windowed chain", y.view(), expected.view(), x.view(), 2);
}

#[test]
fn device_tensors_chain_without_host_round_trips() {
    let ctx = gpu_or_skip!();
    let x = to_dyn(samples::<f32>(3 * 64 * 5, 8), &[3, 64, 5]);
    let slope = array![[0.5f32], [-1.0], [2.0]].into_shape_with_order((3, 1, 1)).unwrap();
    let on_device = ctx.upload(x.view()).unwrap();
    let slope_on_device = ctx.upload(slope.view()).unwrap();
    let a = ctx.run_activations(&[Activation::elu(1.0)], &on_device).unwrap();
    let b = ctx.run_prelu(&a, &slope_on_device).unwrap();
    let y = ctx.download::<f32>(&b).unwrap();
    let expected = reference::prelu(reference::elu(x.view(), 1.0).view(), slope.view()).unwrap();
    assert_close("device chain", y.view(), expected.view(), x.view(), 2);
    assert!(matches!(ctx.download::<f64>(&b), Err(Error::DTypeMismatch { .. })));
}

#[test]
fn adopts_a_device_the_caller_owns() {
    let Some(ctx) = common::ctx() else { return };
    // Build a device ourselves, as an application with its own renderer would.
    let (adapter, device, queue) = own_device(wgpu::Limits::default());
    let adopted = Context::from_device(device.clone(), queue, &adapter, ContextOptions::from_env());
    assert!(adopted.device() == &device);
    assert_eq!(leaky_relu(&adopted, array![-1.0f32, 2.0].view(), 0.5).unwrap(), array![-0.5f32, 2.0]);
    assert_eq!(adopted.info().adapter.name, ctx.info().adapter.name);
}

#[test]
fn an_adopted_device_destroyed_by_its_owner_turns_every_call_into_device_lost() {
    let _alone = pollers_to_myself();
    if common::ctx().is_none() {
        return;
    }
    for first in ["upload", "host array"] {
        let (adapter, device, queue) = own_device(wgpu::Limits::default());
        let adopted = Context::from_device(device.clone(), queue, &adapter, ContextOptions::from_env());
        let x = array![-1.0f32, 2.0];
        let t = adopted.upload(x.view()).unwrap();
        device.destroy();
        // The very first call after the owner's destroy(), whichever it is.
        let outcome = match first {
            "upload" => adopted.upload(x.view()).map(drop),
            _ => leaky_relu(&adopted, x.view(), 0.5).map(drop),
        };
        assert!(matches!(outcome, Err(Error::DeviceLost { .. })), "{first}: {outcome:?}");
        let later = [
            ("host array", leaky_relu(&adopted, x.view(), 0.5).map(drop)),
            ("run", adopted.run_activations(&[Activation::elu(1.0)], &t).map(drop)),
            ("download", adopted.download::<f32>(&t).map(drop)),
            ("empty tensor", adopted.empty_tensor(&[2], wgpu_activations::DType::F32).map(drop)),
        ];
        for (path, outcome) in later {
            assert!(matches!(outcome, Err(Error::DeviceLost { .. })), "{path} after {first}: {outcome:?}");
        }
    }
}

/// Every call [`call_after_loss`] makes, by name.
const CALLS_AFTER_LOSS: [&str; 12] = [
    "host array",
    "host prelu",
    "async host array",
    "upload",
    "run",
    "run in place",
    "run prelu",
    "encode",
    "download",
    "async download",
    "wrap",
    "empty tensor",
];

/// What a context holds once used: pooled buffers, cached pipelines, device tensors, an
/// application buffer.
struct Used {
    ctx: Context,
    x: ndarray::Array1<f32>,
    t: wgpu_activations::GpuTensor,
    y: wgpu_activations::GpuTensor,
    slope: wgpu_activations::GpuTensor,
    app: wgpu::Buffer,
}

impl Used {
    fn new(ctx: Context) -> Self {
        let x = ndarray::Array1::from_iter((0..4096).map(|i| i as f32 - 2048.0));
        // Host-array calls return their buffers to the pool and cache their pipelines.
        for _ in 0..3 {
            leaky_relu(&ctx, x.view(), 0.5).unwrap();
            prelu(&ctx, x.view(), array![0.25f32].view()).unwrap();
        }
        let t = ctx.upload(x.view()).unwrap();
        let y = ctx.run_activations(&[Activation::elu(1.0)], &t).unwrap();
        let slope = ctx.upload(array![0.25f32].view()).unwrap();
        ctx.download::<f32>(&y).unwrap();
        let app = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("test.app"),
            size: 4096 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Used { ctx, x, t, y, slope, app }
    }

    fn call_after_loss(&self, call: &str) -> Result<(), Error> {
        let (ctx, x, chain) = (&self.ctx, self.x.view(), [Activation::elu(1.0)]);
        match call {
            "host array" => leaky_relu(ctx, x, 0.5).map(drop),
            "host prelu" => prelu(ctx, x, array![0.25f32].view()).map(drop),
            "async host array" => pollster::block_on(leaky_relu_async(ctx, x, 0.5)).map(drop),
            "upload" => ctx.upload(x).map(drop),
            "run" => ctx.run_activations(&chain, &self.t).map(drop),
            "run in place" => ctx.run_activations_in_place(&chain, &self.t),
            "run prelu" => ctx.run_prelu(&self.t, &self.slope).map(drop),
            "encode" => {
                let mut encoder = ctx.device().create_command_encoder(&Default::default());
                ctx.encode_activations(&mut encoder, &chain, &self.t, &self.y)
            }
            "download" => ctx.download::<f32>(&self.y).map(drop),
            "async download" => pollster::block_on(ctx.download_async::<f32>(&self.y)).map(drop),
            "wrap" => ctx.tensor_from_buffer(self.app.clone(), 0, &[4096], wgpu_activations::DType::F32).map(drop),
            "empty tensor" => ctx.empty_tensor(&[2], wgpu_activations::DType::F32).map(drop),
            other => unreachable!("no call named {other}"),
        }
    }
}

/// The held-out application's sequence, on a device the context created and on one it adopted:
/// the context is used (its pool holds buffers, its cache pipelines, device tensors live), a
/// readback is pending, work is encoded into the application's encoder but not submitted, and
/// submitted work is still running; then the device is destroyed. The first call after that, whichever it is, and every call
/// after it return DeviceLost; so do the pending readback and the encoded work's submission.
#[test]
fn a_device_destroyed_after_use_turns_every_call_into_device_lost() {
    let _alone = pollers_to_myself();
    if common::ctx().is_none() {
        return;
    }
    for ownership in ["created", "adopted"] {
        for first in CALLS_AFTER_LOSS {
            let ctx = match ownership {
                "created" => common::ctx_with(ContextOptions::from_env()).unwrap(),
                _ => {
                    let (adapter, device, queue) = own_device(wgpu::Limits::default());
                    Context::from_device(device, queue, &adapter, ContextOptions::from_env())
                }
            };
            let used = Used::new(ctx);
            let ctx = &used.ctx;
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            ctx.encode_activations(&mut encoder, &[Activation::leaky_relu(0.5)], &used.t, &used.y).unwrap();
            // A readback whose map is pending (the poller thread may complete one at once: retry).
            let pending = (0..20)
                .map(|_| Box::pin(ctx.download_async::<f32>(&used.y)))
                .find_map(|mut readback| {
                    readback.as_mut().poll(&mut TaskContext::from_waker(Waker::noop())).is_pending().then_some(readback)
                })
                .expect("a readback still pending after its first poll");
            // Work in flight when the device goes: wgpu reports a destroyed device's loss only
            // from a poll that finds the queue empty, so the first call must find out otherwise.
            let big = ctx.empty_tensor(&[1 << 22], wgpu_activations::DType::F32).unwrap();
            for _ in 0..4 {
                ctx.run_activations_in_place(&[Activation::elu(1.0)], &big).unwrap();
            }
            ctx.device().destroy();
            let what = |call: &str| format!("{call} on a {ownership} device (first: {first})");
            let outcome = used.call_after_loss(first);
            assert!(matches!(outcome, Err(Error::DeviceLost { .. })), "{}: {outcome:?}", what(first));
            let pending = pollster::block_on(pending).map(drop);
            assert!(matches!(pending, Err(Error::DeviceLost { .. })), "{}: {pending:?}", what("the pending readback"));
            // The application submits what it encoded before the loss: nothing fails or panics.
            ctx.queue().submit([encoder.finish()]);
            for call in CALLS_AFTER_LOSS {
                let outcome = used.call_after_loss(call);
                assert!(matches!(outcome, Err(Error::DeviceLost { .. })), "{}: {outcome:?}", what(call));
            }
            assert!(ctx.is_lost(), "{}", what("is_lost"));
        }
    }
}

/// Products exact in two passes (forced here; the default where the probe finds the device
/// flushing): the first pass leaves each Vector with a product it cannot trust (here one of a
/// subnormal) unwritten and lists its invocation, the second computes those. More
/// invocations are listed than the second pass's 256 workgroups (the most the device may
/// dispatch in one dimension) hold, so its invocations each take several; in place and not,
/// through a per-channel slope whose cursor the second pass must move as the first did; with
/// the driver's loop and its straight-line form, whose Vectors after the last whole workgroup
/// the `rest` pass takes (and lists).
#[test]
fn the_second_pass_computes_every_vector_the_first_marked() {
    if common::ctx().is_none() {
        return;
    }
    // Each product flagged, in the loop; flagged by the steps' plain ranges (LeakyRelu's; PRelu
    // has none, and flags its products), in straight-line code.
    use wgpu_activations::SubnormalProducts::{GuardedInTwoPasses, OnIntegers};
    for (straight_line, products) in [(false, OnIntegers), (true, GuardedInTwoPasses)] {
        let limits = wgpu::Limits { max_compute_workgroups_per_dimension: 256, ..wgpu::Limits::downlevel_defaults() };
        let (adapter, device, queue) = own_device(limits);
        let options = ContextOptions::from_env().with_subnormal_products(products).with_straight_line(straight_line);
        let ctx = Context::from_device(device, queue, &adapter, options);
        assert_eq!(common::kernels_per_chain(&ctx), 2);
        // 2^21 + 2101 elements: 512 whole workgroups of 1024 Vectors, 525 Vectors after them and
        // a tail of one element; a subnormal in every 7th Vector (about 75,000 invocations
        // listed, some 300 workgroups' worth).
        let (channels, run) = (3, (1 << 21) / 3 + 701);
        let mut x = to_dyn(samples::<f32>(channels * run, 21), &[channels, run]);
        for (i, value) in x.iter_mut().enumerate() {
            if i % 28 == 5 {
                *value = -f32::from_bits(0x0000_1234 + i as u32 % 1000);
            }
        }
        let slope = array![[0.5f32], [-1.25], [3.0]];
        let chain = |slope: &wgpu_activations::GpuTensor| [Activation::leaky_relu(0.1), Activation::prelu(slope)];
        let expected = reference::prelu(reference::leaky_relu(x.view(), 0.1).view(), slope.view()).unwrap();
        let on_device = ctx.upload(slope.view()).unwrap();
        let form = if straight_line { "straight-line" } else { "loop" };
        let what = format!("two passes ({products:?}), {form}");
        let y = activations(&ctx, &chain(&on_device), x.view()).unwrap();
        assert_close(&what, y.view(), expected.view(), x.view(), 0);
        let t = ctx.upload(x.view()).unwrap();
        ctx.run_activations_in_place(&chain(&on_device), &t).unwrap();
        let y = ctx.download::<f32>(&t).unwrap();
        assert_close(&format!("{what}, in place"), y.view(), expected.view(), x.view(), 0);
    }
}

#[test]
fn the_subnormal_probe_measures_every_native_context_and_chooses_the_products() {
    let Some(ctx) = common::ctx() else { return };
    let (adapter, device, queue) = own_device(wgpu::Limits::default());
    let adopted = Context::from_device(device, queue, &adapter, ContextOptions::default());
    for (what, ctx) in [("created", ctx), ("adopted", &adopted)] {
        let info = ctx.info();
        assert_ne!(
            info.subnormals,
            wgpu_activations::Subnormals::NotMeasured,
            "{what}: natively the probe is waited for"
        );
        // The f64 unit's own probe, where there is one (lavapipe: kept, so native f64).
        let has_f64 = info.features.contains(wgpu::Features::SHADER_F64);
        let measured_f64 = info.subnormals_f64 != wgpu_activations::Subnormals::NotMeasured;
        assert_eq!(measured_f64, has_f64, "{what}: {}", info.subnormals_f64);
        if std::env::var_os(wgpu_activations::SUBNORMALS_ENV).is_none() {
            assert_eq!(info.subnormal_products_on_integers, info.subnormals.may_flush(), "{what}: {}", info.subnormals);
            // Two passes where masked code runs on every lane (a CPU adapter), one on a GPU.
            let masked = matches!(info.adapter.device_type, wgpu::DeviceType::Cpu | wgpu::DeviceType::Other);
            assert_eq!(info.subnormal_products_in_two_passes, info.subnormals.may_flush() && masked, "{what}");
            // Either checks products only outside each step's plain range.
            assert_eq!(info.subnormal_products_guarded, info.subnormals.may_flush(), "{what}");
            if has_f64 {
                let path = ctx.dtype_path(wgpu_activations::DType::F64);
                let native = matches!(path, wgpu_activations::DTypePath::Native(_));
                assert_eq!(native, !info.subnormals_f64.may_flush(), "{what}: f64 {path}");
            }
        }
    }
    // Forced either way, whatever the probe found.
    for (products, on_integers, two_passes) in [
        (wgpu_activations::SubnormalProducts::OnIntegers, true, true),
        (wgpu_activations::SubnormalProducts::OnIntegersInOnePass, true, false),
        (wgpu_activations::SubnormalProducts::Guarded, true, false),
        (wgpu_activations::SubnormalProducts::GuardedInTwoPasses, true, true),
        (wgpu_activations::SubnormalProducts::OnHardware, false, false),
    ] {
        let forced = common::ctx_with(ContextOptions::from_env().with_subnormal_products(products)).unwrap();
        assert_eq!(forced.info().subnormal_products_on_integers, on_integers, "{products:?}");
        assert_eq!(forced.info().subnormal_products_in_two_passes, two_passes, "{products:?}");
    }
}

/// An adapter, device and queue of our own, with `limits`.
fn own_device(limits: wgpu::Limits) -> (wgpu::Adapter, wgpu::Device, wgpu::Queue) {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).expect("an adapter");
    let (device, queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .expect("a device with these limits");
    (adapter, device, queue)
}

#[test]
fn adopted_devices_with_lowered_limits_work_or_refuse_with_errors() {
    if common::ctx().is_none() {
        return;
    }
    // 256 workgroups per dimension: large tensors take 2-D grids and more windows.
    let limits = wgpu::Limits { max_compute_workgroups_per_dimension: 256, ..wgpu::Limits::downlevel_defaults() };
    let (adapter, device, queue) = own_device(limits);
    let ctx = Context::from_device(device, queue, &adapter, ContextOptions::from_env());
    let x = to_dyn(samples::<f32>(600_001, 3), &[600_001]);
    let y = elu(&ctx, x.view(), 1.0).unwrap();
    assert_close("256 workgroups per dimension", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
    // A 64-byte uniform binding cannot hold the kernels' parameters: an error value, no panic.
    let limits = wgpu::Limits { max_uniform_buffer_binding_size: 64, ..wgpu::Limits::downlevel_defaults() };
    let (adapter, device, queue) = own_device(limits);
    let ctx = Context::from_device(device, queue, &adapter, ContextOptions::from_env());
    match elu(&ctx, x.view(), 1.0) {
        Err(Error::Unsupported { reason, .. }) => {
            assert!(reason.contains("max_uniform_buffer_binding_size"), "{reason}")
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn tensors_from_another_context_are_refused() {
    let Some(first) = common::ctx() else { return };
    let Some(second) = common::ctx_with(ContextOptions::from_env()) else { return };
    let x = first.upload(array![-1.0f32, 2.0].view()).unwrap();
    assert!(matches!(second.run_activations(&[Activation::elu(1.0)], &x), Err(Error::ForeignTensor { .. })));
    assert!(matches!(second.download::<f32>(&x), Err(Error::ForeignTensor { .. })));
}

#[test]
fn a_tensor_of_a_dropped_context_is_refused_by_the_next_one() {
    if common::ctx().is_none() {
        return;
    }
    // The next context may reuse the dropped one's memory; its identity is a counter, not an
    // address, so the tensor is still foreign.
    let old = common::ctx_with(ContextOptions::from_env()).unwrap();
    let tensor = old.upload(array![1.0f32, -2.0].view()).unwrap();
    drop(old);
    for _ in 0..3 {
        let new = common::ctx_with(ContextOptions::from_env()).unwrap();
        assert!(matches!(new.download::<f32>(&tensor), Err(Error::ForeignTensor { .. })));
        assert!(matches!(new.run_activations(&[Activation::elu(1.0)], &tensor), Err(Error::ForeignTensor { .. })));
    }
}

#[test]
fn async_calls_match_blocking_calls() {
    let _alone = pollers_to_myself();
    let ctx = gpu_or_skip!();
    let x = to_dyn(samples::<f32>(1001, 6), &[7, 11, 13]);
    let slope = array![0.25f32];
    let (l, e, p, c) = pollster::block_on(async {
        (
            leaky_relu_async(ctx, x.view(), 0.3).await.unwrap(),
            elu_async(ctx, x.view(), 0.3).await.unwrap(),
            prelu_async(ctx, x.view(), slope.view()).await.unwrap(),
            activations_async(ctx, &[Activation::elu(1.0)], x.view()).await.unwrap(),
        )
    });
    assert_same_bits("leaky_relu_async", &l, &leaky_relu(ctx, x.view(), 0.3).unwrap());
    assert_same_bits("elu_async", &e, &elu(ctx, x.view(), 0.3).unwrap());
    assert_same_bits("prelu_async", &p, &prelu(ctx, x.view(), slope.view()).unwrap());
    assert_same_bits("activations_async", &c, &elu(ctx, x.view(), 1.0).unwrap());
}

/// The poller threads of this process (Linux: their names, as the kernel keeps them, cut to 15
/// bytes), for the one-poller-per-context check. Counting every thread measured the driver too:
/// NVIDIA's starts threads of its own while work is in flight (52 to 58 on an H200).
fn poller_threads() -> Option<usize> {
    const POLLER: &str = "wgpu-activations-poller";
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        tasks
            .flatten()
            .filter(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|name| POLLER.starts_with(name.trim_end()) && !name.trim_end().is_empty())
            })
            .count(),
    )
}

/// Held by the tests that start pollers, so that one test's count sees no other test's.
static POLLERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn pollers_to_myself() -> std::sync::MutexGuard<'static, ()> {
    POLLERS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Polls every future until all are done, without any executor thread, noting the most threads
/// seen meanwhile.
fn join_all<F: Future>(mut futures: Vec<Pin<Box<F>>>) -> (Vec<F::Output>, usize) {
    let mut results: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let mut cx = TaskContext::from_waker(Waker::noop());
    let mut most = 0;
    while results.iter().any(Option::is_none) {
        for (future, result) in futures.iter_mut().zip(results.iter_mut()) {
            if result.is_none() {
                if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                    *result = Some(out);
                }
            }
        }
        most = most.max(poller_threads().unwrap_or(0));
        std::thread::sleep(Duration::from_micros(200));
    }
    (results.into_iter().flatten().collect(), most)
}

#[test]
fn sixty_four_concurrent_downloads_use_one_poller_thread() {
    let _alone = pollers_to_myself();
    let Some(ctx) = common::ctx_with(ContextOptions::from_env()) else { return };
    let tensors: Vec<_> = (0..64)
        .map(|i| ctx.upload(to_dyn(samples::<f32>(10_000 + i, i as u64), &[10_000 + i]).view()).unwrap())
        .collect();
    // Warm up: the poller exists once one async read has run.
    pollster::block_on(ctx.download_async::<f32>(&tensors[0])).unwrap();
    let before = poller_threads();
    // The count goes by the poller's name: one that no longer matches would count nothing.
    assert_ne!(before, Some(0), "the warm-up's poller thread is not found by its name");
    let futures: Vec<_> = tensors.iter().map(|t| Box::pin(ctx.download_async::<f32>(t))).collect();
    let (results, most) = join_all(futures);
    for (result, tensor) in results.into_iter().zip(&tensors) {
        assert_same_bits("download_async", &result.unwrap(), &ctx.download::<f32>(tensor).unwrap());
    }
    if let Some(before) = before {
        assert!(most <= before + 1, "poller threads went from {before} to {most} for 64 concurrent downloads");
    }
}

#[test]
fn dropping_futures_at_any_point_from_many_threads_is_safe() {
    let _alone = pollers_to_myself();
    let Some(ctx) = common::ctx_with(ContextOptions::from_env()) else { return };
    let x = to_dyn(samples::<f32>(100_000, 11), &[100_000]);
    let expected = reference::elu(x.view(), 1.0);
    let deadline = Instant::now() + Duration::from_secs(3);
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (ctx, x) = (&ctx, &x);
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(t);
                let mut cx = TaskContext::from_waker(Waker::noop());
                while Instant::now() < deadline {
                    let mut future = Box::pin(elu_async(ctx, x.view(), 1.0));
                    for _ in 0..rng.random_range(0..4) {
                        if future.as_mut().poll(&mut cx).is_ready() {
                            break;
                        }
                        std::thread::sleep(Duration::from_micros(rng.random_range(0..200)));
                    }
                    drop(future);
                }
            });
        }
        for _ in 0..2 {
            let (ctx, x, expected) = (&ctx, &x, &expected);
            scope.spawn(move || {
                while Instant::now() < deadline {
                    let y = elu(ctx, x.view(), 1.0).unwrap();
                    assert_close("beside cancellations", y.view(), expected.view(), x.view(), 2);
                }
            });
        }
    });
    // A pooled staging buffer left mapped would make these fail (map_async panics on a mapped
    // buffer; a submission using one is a validation error).
    for _ in 0..20 {
        let y = elu(&ctx, x.view(), 1.0).unwrap();
        assert_close("after cancellations", y.view(), expected.view(), x.view(), 2);
        let y = pollster::block_on(elu_async(&ctx, x.view(), 1.0)).unwrap();
        assert_close("async after cancellations", y.view(), expected.view(), x.view(), 2);
    }
}

#[test]
fn a_device_without_optional_features_runs_every_dtype() {
    if common::ctx().is_none() {
        return;
    }
    // A device created without optional features, as an application might hand us: f64 runs in
    // software on the GPU, f16 and i64 take their emulated paths, by themselves.
    let (adapter, device, queue) = own_device(wgpu::Limits::default());
    assert!(!device.features().contains(wgpu::Features::SHADER_F64));
    let plain = Context::from_device(device.clone(), queue.clone(), &adapter, ContextOptions::from_env());
    for dtype in [wgpu_activations::DType::F64, wgpu_activations::DType::F16, wgpu_activations::DType::I64] {
        assert!(
            matches!(plain.dtype_path(dtype), wgpu_activations::DTypePath::Emulated(_)),
            "{dtype}: {}",
            plain.dtype_path(dtype)
        );
    }
    let x = to_dyn(samples::<f64>(5000, 3), &[5000]);
    let y = elu(&plain, x.view(), 1.0).unwrap();
    assert_close("software f64 Elu", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
    let y = prelu(&plain, x.view(), x.view()).unwrap();
    assert_close("software f64 PRelu", y.view(), reference::prelu(x.view(), x.view()).unwrap().view(), x.view(), 0);
    let h = to_dyn(samples::<half::f16>(1001, 4), &[1001]);
    assert_close(
        "f16 on a plain device",
        elu(&plain, h.view(), 1.0).unwrap().view(),
        reference::elu(h.view(), 1.0).view(),
        h.view(),
        1,
    );
    let big = array![i64::MIN, -(1 << 53) - 1, 7];
    assert_eq!(
        prelu(&plain, big.view(), array![-3i64].view()).unwrap(),
        reference::prelu(big.view(), array![-3i64].view()).unwrap()
    );
    // The CPU fallback stays an option.
    let fallback =
        Context::from_device(device, queue, &adapter, ContextOptions::from_env().with_f64_cpu_fallback(true));
    assert_eq!(fallback.dtype_path(wgpu_activations::DType::F64), wgpu_activations::DTypePath::CpuFallback);
    let y = elu(&fallback, x.view(), 1.0).unwrap();
    assert_same_bits("CPU fallback", &y, &reference::elu(x.view(), 1.0));
}

/// A readback's timeout measures a device that makes no progress, not a driver compiling:
/// with no time at all to wait, a call whose kernel is new still finishes (its compile allowance
/// covers it, as CPU drivers compile at the first dispatch), and the same call once that kernel
/// has run times out, as does any call without the allowance.
#[test]
fn a_readback_timeout_leaves_out_the_compile_of_new_kernels() {
    let no_wait = ContextOptions::from_env().with_validation(false).with_readback_timeout(Duration::ZERO);
    let Some(ctx) = common::ctx_with(no_wait.clone()) else { return };
    let x = to_dyn(samples::<f32>(1000, 4), &[1000]);
    let first = leaky_relu(&ctx, x.view(), 0.5).expect("a new kernel's first run has its compile allowance");
    assert_same_bits("first run", &first, &reference::leaky_relu(x.view(), 0.5));
    let again = leaky_relu(&ctx, x.view(), 0.5);
    assert!(matches!(again, Err(Error::Timeout { during: "readback", after }) if after.is_zero()), "{again:?}");
    elu(&ctx, x.view(), 1.0).expect("another new kernel has its allowance");

    let Some(strict) = common::ctx_with(no_wait.with_compile_allowance(Duration::ZERO)) else { return };
    let outcome = leaky_relu(&strict, x.view(), 0.5);
    assert!(matches!(outcome, Err(Error::Timeout { during: "readback", .. })), "{outcome:?}");
    // A context that timed out still works with time to wait.
    let patient = common::ctx_with(ContextOptions::from_env()).expect("a context");
    assert_same_bits("after", &leaky_relu(&patient, x.view(), 0.5).unwrap(), &first);
}

/// A framework's pooled page: X, B and Y are disjoint ranges of one buffer, as burn's allocator
/// hands them out. Each kind of kernel runs there (WebGPU cannot bind one buffer read-only beside
/// writable in a dispatch: the inputs are bound writable too), within its bound.
#[test]
fn kernels_run_on_disjoint_ranges_of_one_buffer() {
    use wgpu_activations::ops::{HARDMAX, SWIGLU};
    use wgpu_activations::{DType, ulp, wgpu};
    let Some(ctx) = common::ctx() else { return };
    let align = u64::from(ctx.info().limits.min_storage_buffer_offset_alignment).max(256);
    let (rows, n) = (8usize, 300usize);
    let len = rows * n;
    let stride = ((len * 4) as u64).next_multiple_of(align);
    let page = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("framework page"),
        size: 5 * stride,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let x_host = to_dyn(samples::<f32>(len, 7), &[rows, n]);
    let b_host = to_dyn(samples::<f32>(len, 8), &[rows, n]);
    let at = |slot: u64| ctx.tensor_from_buffer(page.clone(), slot * stride, &[rows, n], DType::F32).unwrap();
    let (x, b, y, z) = (at(0), at(1), at(2), at(3));
    ctx.queue().write_buffer(&page, 0, bytemuck::cast_slice(x_host.as_slice().unwrap()));
    ctx.queue().write_buffer(&page, stride, bytemuck::cast_slice(b_host.as_slice().unwrap()));
    let worst = |got: &ndarray::ArrayD<f32>, want: ndarray::ArrayD<f32>| {
        ulp::max_ulp_error(got.as_slice().unwrap(), want.as_slice().unwrap()).map_or(0, |(u, _)| u)
    };

    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    // Hardmax: the kernel over an axis with the least arithmetic (Softmax's compiles for seconds
    // on GL, holding the adapter's context, which wgpu-hal gives up waiting for after 6 s: a
    // parallel test's poll panicked); its bindings are what this checks.
    ctx.encode_axis(&mut encoder, &HARDMAX, &x, &y, -1, None).unwrap();
    ctx.encode_swiglu(&mut encoder, &x, &b, 1.0, &z).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let hardmax = reference::axis_op(&HARDMAX, None, x_host.view(), -1).unwrap();
    assert_same_bits("Hardmax", &ctx.download::<f32>(&y).unwrap(), &hardmax);
    let gated = reference::swiglu(x_host.view(), b_host.view(), 1.0).unwrap();
    let got = ctx.download::<f32>(&z).unwrap();
    let (u, i) = ulp::max_ulp_error(got.as_slice().unwrap(), gated.as_slice().unwrap()).unwrap();
    assert!(
        u <= SWIGLU.max_ulp.f32,
        "{u} ULP at {i}: a {} b {} got {} want {}",
        x_host.as_slice().unwrap()[i],
        b_host.as_slice().unwrap()[i],
        got.as_slice().unwrap()[i],
        gated.as_slice().unwrap()[i]
    );

    // A chain with a PRelu slope of its own in the page too, out of place and in place.
    let slope_host = to_dyn(samples::<f32>(n, 9), &[n]);
    let slope = ctx.tensor_from_buffer(page.clone(), 4 * stride, &[n], DType::F32).unwrap();
    ctx.queue().write_buffer(&page, slope.offset(), bytemuck::cast_slice(slope_host.as_slice().unwrap()));
    let chain = [Activation::elu(1.0), Activation::leaky_relu(0.2), Activation::prelu(&slope)];
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    ctx.encode_activations(&mut encoder, &chain, &x, &y).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let step = reference::leaky_relu(reference::elu(x_host.view(), 1.0).view(), 0.2);
    let expected = reference::prelu(step.view(), slope_host.view()).unwrap();
    assert!(worst(&ctx.download::<f32>(&y).unwrap(), expected.clone()) <= 2);
    ctx.run_activations_in_place(&chain[2..], &x).unwrap();
    let in_place = reference::prelu(x_host.view(), slope_host.view()).unwrap();
    assert!(worst(&ctx.download::<f32>(&x).unwrap(), in_place) == 0);
    ctx.queue().write_buffer(&page, 0, bytemuck::cast_slice(x_host.as_slice().unwrap()));
    // Overlapping ranges are refused, never raced.
    let overlapping = ctx.tensor_from_buffer(page.clone(), slope.offset(), &[rows, n], DType::F32);
    if let Ok(overlapping) = overlapping {
        assert!(ctx.run_activations_in_place(&chain, &overlapping).is_err());
    }
    // X itself is untouched by all three.
    assert_same_bits("X", &ctx.download::<f32>(&x).unwrap(), &x_host);
}

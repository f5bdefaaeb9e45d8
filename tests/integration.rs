//! Running inside the application's own wgpu program: its buffers wrapped as tensors, our work
//! recorded into its encoder between its own passes, in place or not, on every dtype path;
//! validation mode; and a device that goes away.

mod common;

use std::time::{Duration, Instant};

use common::{Sample, assert_same_bits, new_path, path_contexts, samples, to_dyn};
use half::{bf16, f16};
use ndarray::{ArrayD, array};
use wgpu_activations::{
    Activation, Context, ContextOptions, DType, Error, GpuTensor, activations, activations_in_place, leaky_relu,
    leaky_relu_async, prelu, prelu_in_place, reference,
};

const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

fn buffer(ctx: &Context, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.app"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn wrapped_buffers_are_checked() {
    let Some(ctx) = common::ctx() else { return };
    let align = u64::from(ctx.info().limits.min_storage_buffer_offset_alignment);
    let big = buffer(ctx, 4 * align, STORAGE);
    let wrapped = ctx.tensor_from_buffer(big.clone(), align, &[3, 5], DType::F32).unwrap();
    assert_eq!((wrapped.offset(), wrapped.shape()), (align, &[3usize, 5][..]));
    assert!(wrapped.buffer() == &big);
    let misaligned = ctx.tensor_from_buffer(big.clone(), 4, &[3], DType::F32);
    assert!(
        matches!(&misaligned, Err(Error::InvalidBuffer { reason }) if reason.contains("alignment")),
        "{misaligned:?}"
    );
    let past_the_end = ctx.tensor_from_buffer(big.clone(), 3 * align, &[(align / 4 + 1) as usize], DType::F32);
    assert!(
        matches!(&past_the_end, Err(Error::InvalidBuffer { reason }) if reason.contains("past the end")),
        "{past_the_end:?}"
    );
    let overflowing = ctx.tensor_from_buffer(big.clone(), 0, &[usize::MAX, 2], DType::F32);
    assert!(matches!(overflowing, Err(Error::InvalidBuffer { .. })));
    let not_storage = buffer(ctx, 256, wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::UNIFORM);
    let refused = ctx.tensor_from_buffer(not_storage, 0, &[4], DType::F32);
    assert!(matches!(&refused, Err(Error::InvalidBuffer { reason }) if reason.contains("STORAGE")), "{refused:?}");
}

#[test]
fn a_buffer_of_another_device_is_refused() {
    if common::ctx().is_none() {
        return;
    }
    // Two devices of one instance: wgpu reports the mismatch, and the wrap is refused. (A
    // buffer of another instance cannot be told apart: wgpu-core panics looking it up.)
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).unwrap();
    let (ours, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let (theirs, _) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let ctx = Context::from_device(ours, queue, &adapter, ContextOptions::from_env());
    let foreign = theirs.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: STORAGE,
        mapped_at_creation: false,
    });
    let refused = ctx.tensor_from_buffer(foreign, 0, &[4], DType::F32);
    assert!(matches!(&refused, Err(Error::InvalidBuffer { reason }) if reason.contains("device")), "{refused:?}");
}

/// The application's own compute pass: copies `words` u32 words from `from` to `to`.
fn app_copy_pass(
    ctx: &Context,
    encoder: &mut wgpu::CommandEncoder,
    from: &wgpu::Buffer,
    to: &wgpu::Buffer,
    words: u32,
) {
    let module = ctx.device().create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("test.app.copy"),
        source: wgpu::ShaderSource::Wgsl(
            "@group(0) @binding(0) var<storage, read> a: array<u32>;
             @group(0) @binding(1) var<storage, read_write> b: array<u32>;
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
                 if (id.x < arrayLength(&a) && id.x < arrayLength(&b)) { b[id.x] = a[id.x]; }
             }"
            .into(),
        ),
    });
    let pipeline = ctx.device().create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("test.app.copy"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let group = ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("test.app.copy"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: from.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: to.as_entire_binding() },
        ],
    });
    let mut pass = encoder
        .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("test.app.copy"), timestamp_writes: None });
    pass.set_pipeline(&pipeline);
    pass.set_bind_group(0, &group, &[]);
    pass.dispatch_workgroups(words.div_ceil(64), 1, 1);
}

/// Reads an application buffer back the way an application would.
fn app_read(ctx: &Context, buffer: &wgpu::Buffer, bytes: u64) -> Vec<u8> {
    let staging = self::buffer(ctx, bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    ctx.queue().submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |_| {});
    ctx.device().poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let data = staging.get_mapped_range(..).unwrap().to_vec();
    staging.unmap();
    data
}

/// The application's passes before and after ours, in one encoder and one submission:
/// input -> (app copy) -> a -> (our chain, in place or into b) -> (app copy) -> out.
fn encoded_between_app_passes<T: Sample>(ctx: &Context, path: &str, chain: &dyn Fn(&Context) -> Vec<Activation>) {
    let (len, shape) = (1001usize, [7usize, 143]);
    let values = to_dyn(samples::<T>(len, 3), &shape);
    let bytes = ((len * T::DTYPE.size_bytes()) as u64).next_multiple_of(16);
    let input = buffer(ctx, bytes, STORAGE);
    // The queue writes whole 4-byte words.
    let mut data = bytemuck::cast_slice::<T, u8>(values.as_slice().unwrap()).to_vec();
    data.resize(data.len().next_multiple_of(4), 0);
    ctx.queue().write_buffer(&input, 0, &data);
    for in_place in [true, false] {
        let (a, b, out) = (buffer(ctx, bytes, STORAGE), buffer(ctx, bytes, STORAGE), buffer(ctx, bytes, STORAGE));
        let x = ctx.tensor_from_buffer(a.clone(), 0, &shape, T::DTYPE).unwrap();
        let y = if in_place { x.clone() } else { ctx.tensor_from_buffer(b.clone(), 0, &shape, T::DTYPE).unwrap() };
        let steps = chain(ctx);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        app_copy_pass(ctx, &mut encoder, &input, &a, (bytes / 4) as u32);
        ctx.encode_activations(&mut encoder, &steps, &x, &y).unwrap();
        app_copy_pass(ctx, &mut encoder, y.buffer(), &out, (bytes / 4) as u32);
        ctx.queue().submit([encoder.finish()]);
        let got: Vec<T> = bytemuck::pod_collect_to_vec(&app_read(ctx, &out, bytes)[..len * T::DTYPE.size_bytes()]);
        let expected = activations(ctx, &steps, values.view()).unwrap();
        let what = format!("{} {path} in place {in_place}: {steps:?}", T::DTYPE);
        assert_same_bits(&what, &to_dyn(got, &shape), &expected);
        // The next call reports what validation found in the work the caller submitted.
        ctx.download::<T>(&ctx.upload(values.view()).unwrap()).unwrap();
    }
}

fn float_chain<T: Sample>(ctx: &Context) -> Vec<Activation> {
    let slope = ctx.upload(to_dyn(samples::<T>(7, 9), &[7, 1]).view()).unwrap();
    vec![Activation::prelu(&slope), Activation::elu(1.0), Activation::leaky_relu(0.2)]
}

fn prelu_only<T: Sample>(ctx: &Context) -> Vec<Activation> {
    vec![Activation::prelu(&ctx.upload(to_dyn(samples::<T>(1, 9), &[1]).view()).unwrap())]
}

#[test]
fn work_recorded_between_the_callers_passes_on_every_path() {
    let contexts = path_contexts();
    for (i, (path, ctx)) in contexts.iter().enumerate() {
        let new = |dtype| new_path(&contexts, i, dtype);
        new(DType::F32).then(|| encoded_between_app_passes::<f32>(ctx, path, &|ctx| float_chain::<f32>(ctx)));
        new(DType::F16).then(|| encoded_between_app_passes::<f16>(ctx, path, &|ctx| float_chain::<f16>(ctx)));
        new(DType::BF16).then(|| encoded_between_app_passes::<bf16>(ctx, path, &|ctx| float_chain::<bf16>(ctx)));
        new(DType::F64).then(|| encoded_between_app_passes::<f64>(ctx, path, &|ctx| float_chain::<f64>(ctx)));
        new(DType::I32).then(|| encoded_between_app_passes::<i32>(ctx, path, &|ctx| prelu_only::<i32>(ctx)));
        new(DType::I64).then(|| encoded_between_app_passes::<i64>(ctx, path, &|ctx| prelu_only::<i64>(ctx)));
        new(DType::U32).then(|| encoded_between_app_passes::<u32>(ctx, path, &|ctx| prelu_only::<u32>(ctx)));
        new(DType::U64).then(|| encoded_between_app_passes::<u64>(ctx, path, &|ctx| prelu_only::<u64>(ctx)));
    }
}

#[test]
fn in_place_forms_overwrite_the_input() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(samples::<f32>(3 * 5 * 7, 4), &[3, 5, 7]);
    let mut y = x.clone();
    activations_in_place(ctx, &[Activation::elu(1.0)], y.view_mut()).unwrap();
    common::assert_close("activations_in_place", y.view(), reference::elu(x.view(), 1.0).view(), x.view(), 2);
    // A non-contiguous view is written in its own layout.
    let mut z = x.clone();
    activations_in_place(ctx, &[Activation::leaky_relu(0.5)], z.view_mut().reversed_axes()).unwrap();
    assert_same_bits("in place, transposed", &z, &reference::leaky_relu(x.view(), 0.5));
    let slope = array![[0.5f32], [-1.0], [2.0], [0.0], [3.0]];
    let mut p = x.clone();
    prelu_in_place(ctx, p.view_mut(), slope.view()).unwrap();
    assert_same_bits("prelu_in_place", &p, &reference::prelu(x.view(), slope.view()).unwrap());
    let on_device = ctx.upload(x.view()).unwrap();
    let slope_on_device = ctx.upload(slope.view()).unwrap();
    ctx.run_prelu_in_place(&on_device, &slope_on_device).unwrap();
    assert_same_bits("run_prelu_in_place", &ctx.download::<f32>(&on_device).unwrap(), &p);
}

#[test]
fn validation_mode_catches_a_wrong_result_on_every_path() {
    if common::ctx().is_none() {
        return;
    }
    let options = ContextOptions::from_env().with_validation(true).with_corrupted_results(true);
    let ctx = common::ctx_with(options).unwrap();
    let x = to_dyn((1..=64).map(|i| -(i as f32) * 0.25).collect(), &[64]);
    // Host arrays: the call itself fails, naming op, dtype, index and both values.
    match leaky_relu(&ctx, x.view(), 0.5) {
        Err(Error::ValidationMismatch { op, dtype: DType::F32, index: 0, gpu, reference, bound: 0 }) => {
            assert_eq!(op, "LeakyRelu");
            assert_eq!((gpu.as_str(), reference.as_str()), ("0.0", "-0.125"));
        }
        other => panic!("expected a validation mismatch, got {other:?}"),
    }
    // Device tensors: the download of the result reports it.
    let t = ctx.upload(x.view()).unwrap();
    let y = ctx.run_activations(&[Activation::elu(1.0)], &t).unwrap();
    assert!(matches!(ctx.download::<f32>(&y), Err(Error::ValidationMismatch { .. })));
    // Work recorded into the caller's encoder: the next call reports it.
    let y = ctx.empty_tensor(&[64], DType::F32).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    ctx.encode_activations(&mut encoder, &[Activation::elu(1.0)], &t, &y).unwrap();
    ctx.queue().submit([encoder.finish()]);
    ctx.device().poll(wgpu::PollType::wait_indefinitely()).unwrap();
    assert!(matches!(ctx.upload(x.view()), Err(Error::ValidationMismatch { .. })));
    // Without the corruption, validation passes the same work.
    let ctx = common::ctx_with(ContextOptions::from_env().with_validation(true)).unwrap();
    assert!(leaky_relu(&ctx, x.view(), 0.5).is_ok());
    let y = ctx.run_activations(&[Activation::elu(1.0)], &ctx.upload(x.view()).unwrap()).unwrap();
    assert!(ctx.download::<f32>(&y).is_ok());
}

/// Every API path on a context whose device was destroyed.
fn every_path_reports_loss(ctx: &Context, t: &GpuTensor, app: &wgpu::Buffer) -> Vec<(&'static str, Result<(), Error>)> {
    let x = array![-1.0f32, 2.0];
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    vec![
        ("host array", leaky_relu(ctx, x.view(), 0.5).map(drop)),
        ("host prelu", prelu(ctx, x.view(), x.view()).map(drop)),
        ("async host array", pollster::block_on(leaky_relu_async(ctx, x.view(), 0.5)).map(drop)),
        ("upload", ctx.upload(x.view()).map(drop)),
        ("run", ctx.run_activations(&[Activation::elu(1.0)], t).map(drop)),
        ("run in place", ctx.run_activations_in_place(&[Activation::elu(1.0)], t)),
        ("encode", ctx.encode_activations(&mut encoder, &[Activation::elu(1.0)], t, t)),
        ("download", ctx.download::<f32>(t).map(drop)),
        ("async download", pollster::block_on(ctx.download_async::<f32>(t)).map(drop)),
        ("wrap", ctx.tensor_from_buffer(app.clone(), 0, &[2], DType::F32).map(drop)),
        ("empty tensor", ctx.empty_tensor(&[2], DType::F32).map(drop)),
    ]
}

#[test]
fn a_destroyed_device_turns_every_call_into_device_lost() {
    if common::ctx().is_none() {
        return;
    }
    let options = ContextOptions::from_env().with_readback_timeout(Duration::from_secs(5));
    let ctx = common::ctx_with(options).unwrap();
    let x = to_dyn(samples::<f32>(100_000, 1), &[100_000]);
    let t = ctx.upload(x.view()).unwrap();
    let app = buffer(&ctx, 256, STORAGE);
    // Calls in flight on another thread while the device goes.
    let started = Instant::now();
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let mut outcomes = Vec::new();
            for _ in 0..200 {
                outcomes.push(leaky_relu(&ctx, x.view(), 0.5).map(drop));
            }
            outcomes
        });
        std::thread::sleep(Duration::from_millis(50));
        ctx.device().destroy();
        for outcome in worker.join().unwrap() {
            assert!(matches!(outcome, Ok(()) | Err(Error::DeviceLost { .. })), "{outcome:?}");
        }
    });
    assert!(ctx.is_lost());
    for (path, outcome) in every_path_reports_loss(&ctx, &t, &app) {
        assert!(matches!(outcome, Err(Error::DeviceLost { .. })), "{path}: {outcome:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    // A new context on a new device works.
    let fresh = common::ctx_with(ContextOptions::from_env()).unwrap();
    assert_eq!(leaky_relu(&fresh, array![-2.0f32].view(), 0.5).unwrap(), array![-1.0f32]);
}

#[test]
fn a_tensor_may_be_dropped_before_the_callers_submission() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(samples::<f32>(4096, 8), &[4096]);
    let out = buffer(ctx, 4096 * 4, STORAGE);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let t = ctx.upload(x.view()).unwrap();
        let y = ctx.tensor_from_buffer(out.clone(), 0, &[4096], DType::F32).unwrap();
        ctx.encode_activations(&mut encoder, &[Activation::leaky_relu(0.5)], &t, &y).unwrap();
    }
    // Other work reuses pooled buffers before the caller submits; the recorded work keeps its own.
    for _ in 0..4 {
        leaky_relu(ctx, to_dyn(samples::<f32>(4096, 99), &[4096]).view(), 3.0).unwrap();
    }
    ctx.queue().submit([encoder.finish()]);
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&app_read(ctx, &out, 4096 * 4));
    assert_same_bits("kept alive", &ndarray::Array1::from(got).into_dyn(), &reference::leaky_relu(x.view(), 0.5));
    let _: ArrayD<f32> = x;
}

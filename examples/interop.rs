//! The library inside an application's own wgpu program: the application's compute shader
//! fills its own buffer, our fused Elu -> LeakyRelu chain and an in-place per-channel PRelu are
//! recorded into the application's encoder after it, the application copies the result into
//! its own staging buffer, and one submit runs it all. The result is checked against the CPU
//! reference.
//!
//! ```text
//! cargo run --release --example interop
//! ```

use std::process::ExitCode;

use ndarray::{Array1, ArrayD, IxDyn};
use wgpu::util::DeviceExt;
use wgpu_activations::{Activation, Context, ContextOptions, DType, reference, ulp};

/// Channels, height and width of the application's feature map.
const SHAPE: [usize; 3] = [8, 96, 128];

/// The application's own kernel: a feature map of smooth waves over negative and positive values.
const APP_SHADER: &str = r"
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(256)
fn produce(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&data) {
        return;
    }
    let t = f32(i % 12288u);
    data[i] = 6.0 * sin(t * 0.0131) * cos(f32(i / 12288u) + t * 0.0007) - 1.5;
}
";

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("interop: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    // The application's device, made the way it makes it.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
    let (device, queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { label: Some("app.device"), ..Default::default() }),
    )?;
    // The library adopts it: no second device, no copies between devices.
    let ctx = Context::from_device(device.clone(), queue.clone(), &adapter, ContextOptions::from_env());
    println!("interop: on {} ({:?})", ctx.info().adapter.name, ctx.info().adapter.backend);

    let len: usize = SHAPE.iter().product();
    let bytes = (len * 4) as u64;
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let features = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app.features"),
        size: bytes,
        usage: storage,
        mapped_at_creation: false,
    });
    let activated = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app.activated"),
        size: bytes,
        usage: storage,
        mapped_at_creation: false,
    });
    let staging = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (features_staging, activated_staging) = (staging("app.features-staging"), staging("app.activated-staging"));
    // A per-channel slope, [C, 1, 1], uploaded by the application as an ordinary buffer.
    let slope_values: Vec<f32> = (0..SHAPE[0]).map(|c| 0.05 + 0.1 * c as f32).collect();
    let slope_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("app.slope"),
        contents: bytemuck::cast_slice(&slope_values),
        usage: wgpu::BufferUsages::STORAGE,
    });

    // Our tensors are views of the application's buffers: no copy.
    let x = ctx.tensor_from_buffer(features.clone(), 0, &SHAPE, DType::F32)?;
    let y = ctx.tensor_from_buffer(activated.clone(), 0, &SHAPE, DType::F32)?;
    let slope = ctx.tensor_from_buffer(slope_buffer, 0, &[SHAPE[0], 1, 1], DType::F32)?;

    // The application's own pass.
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("app.produce"),
        source: wgpu::ShaderSource::Wgsl(APP_SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("app.produce"),
        layout: None,
        module: &module,
        entry_point: Some("produce"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("app.produce"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: features.as_entire_binding() }],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.frame") });
    {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("app.produce"), timestamp_writes: None });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(len.div_ceil(256) as u32, 1, 1);
    }
    // Ours, recorded after it in the same encoder: a fused chain (one kernel), then PRelu in
    // place on its result.
    let chain = [Activation::elu(1.0), Activation::leaky_relu(0.2)];
    ctx.encode_activations(&mut encoder, &chain, &x, &y)?;
    ctx.encode_prelu(&mut encoder, &y, &slope, &y)?;
    // The application's copies, after ours; then one submit.
    encoder.copy_buffer_to_buffer(&features, 0, &features_staging, 0, bytes);
    encoder.copy_buffer_to_buffer(&activated, 0, &activated_staging, 0, bytes);
    queue.submit([encoder.finish()]);

    let produced = read_back(&device, &features_staging)?;
    let result = read_back(&device, &activated_staging)?;

    // The check: the reference applied to what the application's kernel produced (WGSL's sin
    // and cos are not correctly rounded, so the CPU cannot recompute the input itself).
    let x_host = ArrayD::from_shape_vec(IxDyn(&SHAPE), produced)?;
    let step = reference::leaky_relu(reference::elu(x_host.view(), 1.0).view(), 0.2);
    let slope_host = Array1::from(slope_values).into_shape_with_order(IxDyn(&[SHAPE[0], 1, 1]))?;
    let expected = reference::prelu(step.view(), slope_host.view())?;
    let bound = wgpu_activations::ops::chain_bound(chain.iter().map(|a| a.max_ulp(DType::F32)));
    let (worst, at) = ulp::max_ulp_error(&result, expected.as_slice().unwrap_or_default()).unwrap_or((0, 0));
    let negatives = x_host.iter().filter(|v| **v < 0.0).count();
    println!(
        "interop: app kernel -> Elu -> LeakyRelu (fused) -> PRelu in place, one encoder, one submit: {len} elements \
         ({negatives} negative)"
    );
    println!("interop: max {worst} ULP against the CPU reference (bound {bound}) at element {at}");
    if worst <= bound {
        println!("interop: OK");
        Ok(true)
    } else {
        println!("interop: FAILED: GPU {}, reference {}", result[at], expected.as_slice().unwrap_or_default()[at]);
        Ok(false)
    }
}

/// The application's readback of its own staging buffer.
fn read_back(device: &wgpu::Device, staging: &wgpu::Buffer) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    staging.slice(..).map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    receiver.recv()??;
    let values = bytemuck::pod_collect_to_vec(&staging.slice(..).get_mapped_range()?);
    staging.unmap();
    Ok(values)
}

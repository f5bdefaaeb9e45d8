//! The yardstick of the host path: a minimal hand-written wgpu program doing what
//! `leaky_relu(&ctx, x, alpha)` does, on the same device: write the input into a buffer, one
//! dispatch of a vectorised LeakyRelu in place, copy into a staging buffer, map, copy out. Its
//! buffers and pipeline are made once, as a program that knows its size would make them.

use crate::engine::PlainKernel;

const SHADER: &str = "
@group(0) @binding(0) var<uniform> alpha: vec4<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let base = (w.y * n.x + w.x) * 1024u + l;
    for (var k = 0u; k < 4u; k++) {
        let i = base + k * 256u;
        if (i < arrayLength(&x)) {
            let v = x[i];
            let negative = (v > vec4(0x80000000u)) & (v <= vec4(0xff800000u));
            x[i] = select(v, bitcast<vec4<u32>>(bitcast<vec4<f32>>(v) * alpha.x), negative);
        }
    }
}";

/// The program, for `len` f32 elements (a multiple of 4).
pub(crate) struct RawLeakyRelu {
    kernel: PlainKernel,
    bind_group: wgpu::BindGroup,
    data: wgpu::Buffer,
    staging: wgpu::Buffer,
    groups: (u32, u32),
    bytes: u64,
}

impl RawLeakyRelu {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue, len: usize, alpha: f32) -> Self {
        let bytes = (len * 4) as u64;
        let kernel = PlainKernel::new(device, "raw.leaky_relu", SHADER);
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        let uniform = buffer("raw.alpha", 16, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
        queue.write_buffer(&uniform, 0, bytemuck::cast_slice(&[alpha, 0.0, 0.0, 0.0]));
        let data = buffer(
            "raw.data",
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        let staging = buffer("raw.staging", bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let bind_group = kernel.bind(device, &[uniform.as_entire_binding(), data.as_entire_binding()]);
        let groups = (len as u64 / 4).div_ceil(1024);
        let max = u64::from(device.limits().max_compute_workgroups_per_dimension);
        let x = groups.clamp(1, max);
        RawLeakyRelu { kernel, bind_group, data, staging, groups: (x as u32, groups.div_ceil(x) as u32), bytes }
    }

    /// One call returning a new vector, as `leaky_relu(&ctx, x)` returns a new array.
    pub(crate) fn run(&self, device: &wgpu::Device, queue: &wgpu::Queue, x: &[f32]) -> Vec<f32> {
        self.dispatch(device, queue, x);
        let out = match self.staging.get_mapped_range(..) {
            Ok(view) => bytemuck::cast_slice(&view).to_vec(),
            Err(_) => Vec::new(),
        };
        self.staging.unmap();
        out
    }

    /// One call overwriting `x`, as `activations_in_place` does.
    pub(crate) fn run_in_place(&self, device: &wgpu::Device, queue: &wgpu::Queue, x: &mut [f32]) {
        self.dispatch(device, queue, x);
        if let Ok(view) = self.staging.get_mapped_range(..) {
            x.copy_from_slice(bytemuck::cast_slice(&view));
        }
        self.staging.unmap();
    }

    /// Upload, dispatch, copy to staging, map, wait.
    fn dispatch(&self, device: &wgpu::Device, queue: &wgpu::Queue, x: &[f32]) {
        queue.write_buffer(&self.data, 0, bytemuck::cast_slice(x));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("raw") });
        self.kernel.encode(&mut encoder, &self.bind_group, self.groups, None);
        encoder.copy_buffer_to_buffer(&self.data, 0, &self.staging, 0, self.bytes);
        queue.submit([encoder.finish()]);
        self.staging.map_async(wgpu::MapMode::Read, .., |_| {});
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
    }
}

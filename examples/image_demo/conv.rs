//! The demo's own GPU work, as an application would write it: a depthwise 3 x 3 convolution in
//! its own WGSL, reading an f32 image and writing the element type the activations run in.

use wgpu::util::DeviceExt;
use wgpu_activations::DType;

/// The convolution, per output element pair. `STORE_PAIR` is replaced by the store for the
/// output type: f32 elements, or two 16-bit values packed in one u32 word.
const CONV_WGSL: &str = r"
struct Params {
    width: u32,
    height: u32,
    count: u32,
    _pad: u32,
    weights: array<vec4<f32>, 3>, // 3 x 3 kernel, row-major, in .xyz of each row
}

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<OUT_WORD>;
@group(0) @binding(2) var<uniform> params: Params;

fn pixel(plane: u32, x: i32, y: i32) -> f32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return image[plane + cy * params.width + cx];
}

fn conv(i: u32) -> f32 {
    if i >= params.count {
        return 0.0;
    }
    let plane_size = params.width * params.height;
    let plane = i / plane_size * plane_size;
    let x = i32((i % plane_size) % params.width);
    let y = i32((i % plane_size) / params.width);
    var sum = 0.0;
    for (var dy = -1; dy <= 1; dy++) {
        let row = params.weights[dy + 1];
        sum += row.x * pixel(plane, x - 1, y + dy) + row.y * pixel(plane, x, y + dy) + row.z * pixel(plane, x + 1, y + dy);
    }
    return sum;
}

// bfloat16 bits of an f32, rounded to nearest even; NaN stays a quiet NaN.
fn bf16_bits(v: f32) -> u32 {
    let bits = bitcast<u32>(v);
    if (bits & 0x7fffffffu) > 0x7f800000u {
        return (bits >> 16u) | 0x40u;
    }
    return (bits + 0x7fffu + ((bits >> 16u) & 1u)) >> 16u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let pair = id.x + id.y * groups.x * 256u;
    let first = pair * 2u;
    if first >= params.count {
        return;
    }
    let a = conv(first);
    let b = conv(first + 1u);
    STORE_PAIR
}
";

/// The shader text for an output of `dtype` (f32, f16 or bf16).
fn shader(dtype: DType) -> String {
    let (word, store) = match dtype {
        DType::F32 => ("f32", "out[first] = a;\n    if first + 1u < params.count { out[first + 1u] = b; }"),
        DType::F16 => ("u32", "out[pair] = pack2x16float(vec2<f32>(a, b));"),
        _ => ("u32", "out[pair] = bf16_bits(a) | (bf16_bits(b) << 16u);"),
    };
    CONV_WGSL.replace("OUT_WORD", word).replace("STORE_PAIR", store)
}

/// An application's compute pipeline: one WGSL source, entry point `main`, implicit layout.
pub(crate) fn compute_pipeline(device: &wgpu::Device, label: &str, wgsl: &str) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A sharpening kernel: the centre weighted up, its four neighbours down.
pub(crate) const SHARPEN: [[f32; 3]; 3] = [[0.0, -1.0, 0.0], [-1.0, 5.0, -1.0], [0.0, -1.0, 0.0]];

/// The convolution's pipeline and parameters for one image size and output type.
pub(crate) struct Conv {
    pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    count: u32,
}

impl Conv {
    pub(crate) fn new(device: &wgpu::Device, dtype: DType, width: u32, height: u32, channels: u32) -> Self {
        let pipeline = compute_pipeline(device, "demo.conv3x3", &shader(dtype));
        let count = width * height * channels;
        let mut words: Vec<u32> = vec![width, height, count, 0];
        for row in SHARPEN {
            words.extend(row.iter().map(|w| w.to_bits()));
            words.push(0);
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("demo.conv3x3.params"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        Conv { pipeline, params, count }
    }

    /// Records the convolution of `image` (f32) into `out` in the caller's encoder.
    pub(crate) fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) {
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("demo.conv3x3"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: image.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: self.params.as_entire_binding() },
            ],
        });
        let groups = self.count.div_ceil(2).div_ceil(256);
        let (x, y) = if groups > 65_535 { (65_535, groups.div_ceil(65_535)) } else { (groups, 1) };
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("demo.conv3x3"), timestamp_writes: None });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}

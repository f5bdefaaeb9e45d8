//! The demo's network, shared by the native demo and the web page: its own GPU work, as an
//! application would write it (a depthwise 3 x 3 convolution in its own WGSL, reading an f32
//! image and writing the element type the activations run in), then the library's activation
//! chains on application buffers, all recorded into one encoder.

use ndarray::{ArrayD, IxDyn};
use wgpu::util::DeviceExt;
use wgpu_activations::{Activation, Context, DType, FloatElement, GpuTensor, ops, reference, ulp};

/// PRelu's slope per colour channel, Elu's and LeakyRelu's alpha.
pub(crate) const SLOPES: [f32; 3] = [0.6, 0.3, 0.05];
pub(crate) const ELU_ALPHA: f32 = 1.0;
pub(crate) const LEAKY_ALPHA: f32 = 0.3;

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

/// One element type's run over the image: the context, the image (f32, planar RGB) and its size.
/// The demos' activations read and write application buffers of its `[1, 3, H, W]` shape.
pub(crate) struct Run<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) image: &'a wgpu::Buffer,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl Run<'_> {
    pub(crate) fn shape(&self) -> [usize; 4] {
        [1, 3, self.height as usize, self.width as usize]
    }

    /// An application buffer holding one tensor of `T` in [`Run::shape`].
    pub(crate) fn buffer<T: FloatElement>(&self, label: &str) -> wgpu::Buffer {
        let bytes = (self.shape().iter().product::<usize>() * T::DTYPE.size_bytes()) as u64;
        self.ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.next_multiple_of(4),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    }
}

/// A chain of the network: its name, what its attributes are, its steps.
pub(crate) type Chain = (&'static str, String, Vec<Activation>);

/// The network for one element type: the convolution into `conv_out`, then each chain from
/// `conv_out` into its output.
pub(crate) struct Network<T> {
    pub(crate) conv: Conv,
    pub(crate) conv_buffer: wgpu::Buffer,
    pub(crate) conv_out: GpuTensor,
    pub(crate) chains: [Chain; 4],
    pub(crate) outputs: Vec<GpuTensor>,
    /// PRelu's slope as the reference reads it, `[1, 3, 1, 1]`.
    pub(crate) slope: ArrayD<T>,
}

impl Run<'_> {
    /// Builds the network for `T`; its buffers are labelled `{prefix}.{name}`.
    pub(crate) fn network<T: FloatElement>(&self, prefix: &str) -> wgpu_activations::Result<Network<T>> {
        let (ctx, device) = (self.ctx, self.ctx.device());
        let dtype = T::DTYPE;
        let conv = Conv::new(device, dtype, self.width, self.height, 3);
        let wrap = |buffer: &wgpu::Buffer| ctx.tensor_from_buffer(buffer.clone(), 0, &self.shape(), dtype);
        let conv_buffer = self.buffer::<T>(&format!("{prefix}.conv"));
        let conv_out = wrap(&conv_buffer)?;
        let mut slope_words: Vec<T> = SLOPES.iter().map(|&s| T::from_f64(f64::from(s))).collect();
        slope_words.resize(4, T::from_f64(0.0)); // the buffer rounds to whole 4-byte words
        let slope_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{prefix}.slope")),
            contents: bytemuck::cast_slice(&slope_words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let prelu = Activation::prelu(&ctx.tensor_from_buffer(slope_buffer, 0, &[1, 3, 1, 1], dtype)?);
        let chains: [Chain; 4] = [
            ("PRelu", format!("slopes R {} G {} B {}", SLOPES[0], SLOPES[1], SLOPES[2]), vec![prelu.clone()]),
            ("Elu", format!("alpha {ELU_ALPHA}"), vec![Activation::elu(ELU_ALPHA)]),
            ("LeakyRelu", format!("alpha {LEAKY_ALPHA}"), vec![Activation::leaky_relu(LEAKY_ALPHA)]),
            (
                "PRelu > Elu > LeakyRelu",
                "fused: one kernel".into(),
                vec![prelu, Activation::elu(ELU_ALPHA), Activation::leaky_relu(LEAKY_ALPHA)],
            ),
        ];
        let outputs = chains
            .iter()
            .map(|(name, _, _)| wrap(&self.buffer::<T>(&format!("{prefix}.{name}"))))
            .collect::<wgpu_activations::Result<_>>()?;
        let slope = ArrayD::from_shape_fn(IxDyn(&[1, 3, 1, 1]), |i| slope_words[i[1]]);
        Ok(Network { conv, conv_buffer, conv_out, chains, outputs, slope })
    }

    /// The demo's convolution, then every chain, in one encoder and one submit.
    pub(crate) fn submit<T>(&self, network: &Network<T>, label: &str) -> wgpu_activations::Result<()> {
        let (ctx, device) = (self.ctx, self.ctx.device());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        self.encode_conv(network, &mut encoder);
        for ((_, _, chain), y) in network.chains.iter().zip(&network.outputs) {
            ctx.encode_activations(&mut encoder, chain, &network.conv_out, y)?;
        }
        ctx.queue().submit([encoder.finish()]);
        Ok(())
    }

    /// Records the convolution alone (to time it).
    pub(crate) fn encode_conv<T>(&self, network: &Network<T>, encoder: &mut wgpu::CommandEncoder) {
        network.conv.encode(self.ctx.device(), encoder, self.image, &network.conv_buffer);
    }
}

impl<T: FloatElement> Network<T> {
    /// The CPU reference of `chain` on `x`, its PRelu steps on the network's slope.
    pub(crate) fn reference(&self, x: &ArrayD<T>, chain: &[Activation]) -> wgpu_activations::Result<ArrayD<T>> {
        let mut y = x.clone();
        for step in chain {
            y = match step.reference_step::<T>() {
                Some(reference::ChainStep::Unary(op, attributes)) => reference::unary(op, &attributes, y.view()),
                _ => reference::prelu(y.view(), self.slope.view())?,
            };
        }
        Ok(y)
    }
}

/// One step's outcome: what ran, its times, its values and their distance from the reference.
pub(crate) struct StepResult {
    pub(crate) dtype: DType,
    pub(crate) title: String,
    pub(crate) detail: String,
    pub(crate) gpu_ms: f64,
    /// The reference's time; none for the convolution, which has no reference.
    pub(crate) cpu_ms: Option<f64>,
    pub(crate) worst_ulp: Option<u64>,
    pub(crate) bound: u64,
    pub(crate) values: Vec<f32>,
    /// Each value's ULP distance from the reference, where the caller keeps them.
    #[cfg_attr(target_arch = "wasm32", expect(dead_code, reason = "the page draws no heat map"))]
    pub(crate) ulps: Vec<u64>,
}

impl StepResult {
    /// The convolution's step: its output `x`.
    pub(crate) fn convolution<T: FloatElement>(x: &ArrayD<T>, gpu_ms: f64) -> StepResult {
        StepResult {
            dtype: T::DTYPE,
            title: "3x3 sharpen".into(),
            detail: format!("the demo's own WGSL, {}", T::DTYPE),
            gpu_ms,
            cpu_ms: None,
            worst_ulp: None,
            bound: 0,
            values: x.iter().map(|v| v.to_f64() as f32).collect(),
            ulps: Vec::new(),
        }
    }

    /// A chain's step: what the GPU gave against the reference; `(gpu_ms, cpu_ms)` their times.
    pub(crate) fn chain<T: FloatElement>(
        (name, detail, chain): &Chain,
        gpu: &[T],
        expected: &ArrayD<T>,
        (gpu_ms, cpu_ms): (f64, f64),
        keep_ulps: bool,
    ) -> StepResult {
        let ulps: Vec<u64> = gpu
            .iter()
            .zip(expected.iter())
            .map(|(&g, &e)| if ulp::within_ulp(g, e, 0) { 0 } else { ulp::ulp_distance(g, e).unwrap_or(u64::MAX) })
            .collect();
        let worst = ulps.iter().copied().max().unwrap_or(0);
        StepResult {
            dtype: T::DTYPE,
            title: (*name).to_string(),
            detail: format!("{detail}, {}", T::DTYPE),
            gpu_ms,
            cpu_ms: Some(cpu_ms),
            worst_ulp: Some(worst),
            bound: ops::chain_bound(chain.iter().map(|a| a.max_ulp(T::DTYPE))),
            values: gpu.iter().map(|v| v.to_f64() as f32).collect(),
            ulps: if keep_ulps { ulps } else { Vec::new() },
        }
    }
}

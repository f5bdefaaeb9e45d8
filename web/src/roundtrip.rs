//! The host round trip in the browser, against the peer: a host array of f32 in, the result back
//! on the host, for LeakyRelu, Elu, PRelu with a scalar slope and Softmax over rows of 1000, by
//! - this library (`leaky_relu_async`, `elu_async`, `prelu_async`, `softmax_async`),
//! - a plain WebGPU program an application would write (buffers and pipeline made once; per
//!   call: write the input, one dispatch of the textbook kernel, `exp(x) - 1` for Elu, a
//!   workgroup a row for Softmax (the row's maximum, the sum of `exp(x - max)`, the quotients),
//!   copy to a staging buffer, map, copy out),
//! - ONNX Runtime Web's WebGPU provider (the `onnxruntime-web` npm package, which
//!   `cargo xtask bench-web` serves at `/ort/`; the page's `globalThis.ortBench` runs a
//!   one-node model built here),
//!
//! measured alternately, medians; and the accuracy of each against the correctly rounded
//! result, on the timed inputs and on the browser checks' samples (special values and values
//! over the whole exponent range, subnormals included).

use ndarray::Array1;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wgpu_activations::onnx::HostTensor;
use wgpu_activations::onnx::proto::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TypeProto, ValueInfoProto, type_proto,
};
use wgpu_activations::ops;
use wgpu_activations::{Context, ulp};

use crate::bench::{PlainKernel, median};
use crate::page;
use crate::samples::Sample;

/// Calls per implementation (alternating) after one warm-up call each.
pub const ROUNDS: usize = 7;
/// The accuracy sweep's length (plus the special values).
pub const SWEEP: usize = 65_536;
const LEAKY_ALPHA: f32 = 0.01;
const ELU_ALPHA: f32 = 1.0;
const PRELU_SLOPE: f32 = 0.25;
/// The rows of the operators over an axis, here and in the bench: a classifier's 1000 classes,
/// over the last axis.
pub const AXIS_ROW: usize = 1000;

/// The operators of the table.
#[derive(Clone, Copy, PartialEq)]
pub enum Op {
    LeakyRelu,
    Elu,
    PreluScalar,
    /// Over rows of [`AXIS_ROW`] (of the whole input where it is shorter), the last axis.
    Softmax,
}

impl Op {
    const ALL: [Op; 4] = [Op::LeakyRelu, Op::Elu, Op::PreluScalar, Op::Softmax];

    fn name(self) -> &'static str {
        match self {
            Op::LeakyRelu => "LeakyRelu",
            Op::Elu => "Elu",
            Op::PreluScalar => "PRelu scalar slope",
            Op::Softmax => "Softmax, rows of 1000",
        }
    }

    pub fn onnx_name(self) -> &'static str {
        match self {
            Op::LeakyRelu => "LeakyRelu",
            Op::Elu => "Elu",
            Op::PreluScalar => "PRelu",
            Op::Softmax => "Softmax",
        }
    }

    /// The shape `len` inputs take: one dimension, or Softmax's rows (`len` a multiple of
    /// their length, as [`Op::whole_rows`] makes it).
    pub fn shape(self, len: usize) -> Vec<usize> {
        match self {
            Op::Softmax => {
                let row = AXIS_ROW.min(len).max(1);
                vec![len / row, row]
            }
            _ => vec![len],
        }
    }

    /// The first `len` inputs' whole rows: all of them but for Softmax.
    pub fn whole_rows(self, len: usize) -> usize {
        let row: usize = self.shape(len)[1..].iter().product();
        len - len % row.max(1)
    }

    /// The correctly rounded results (Softmax's: the CPU reference's, rounded once from f64).
    fn reference(self, x: &[f32]) -> Result<Vec<f32>, String> {
        let x = Array1::from_vec(x.to_vec());
        let y = match self {
            Op::LeakyRelu => wgpu_activations::reference::leaky_relu(x.view(), LEAKY_ALPHA),
            Op::Elu => wgpu_activations::reference::elu(x.view(), ELU_ALPHA),
            Op::PreluScalar => {
                let slope = Array1::from_vec(vec![PRELU_SLOPE]);
                wgpu_activations::reference::prelu(x.view(), slope.view()).unwrap_or_else(|_| x.clone())
            }
            Op::Softmax => {
                let shape = self.shape(x.len());
                let rows = x.into_shape_with_order(shape).map_err(|e| e.to_string());
                let y = rows.and_then(|rows| {
                    wgpu_activations::reference::axis_op(&ops::SOFTMAX, None, rows.view(), -1)
                        .map_err(|e| e.to_string())
                });
                return y.map(|y| y.into_raw_vec_and_offset().0);
            }
        };
        Ok(y.to_vec())
    }

    /// The bound this library states for the operator in f32.
    fn bound(self) -> u64 {
        match self {
            Op::LeakyRelu => ops::LEAKY_RELU.max_ulp.f32,
            Op::Elu => ops::ELU.max_ulp.f32,
            Op::PreluScalar => ops::PRELU.max_ulp.f32,
            Op::Softmax => ops::SOFTMAX.max_ulp.f32,
        }
    }

    /// The plain program's kernel body: `x` (a `vec4<f32>`) to the result, with `p` the
    /// uniform parameter (alpha or the slope).
    pub fn plain_expression(self) -> &'static str {
        match self {
            Op::LeakyRelu | Op::PreluScalar => "select(p * x, x, x >= vec4(0.0))",
            Op::Elu => "select(p * (exp(x) - 1.0), x, x > vec4(0.0))",
            Op::Softmax => "exp(x - max) / sum, a workgroup a row",
        }
    }

    fn parameter(self) -> f32 {
        match self {
            Op::LeakyRelu => LEAKY_ALPHA,
            Op::Elu => ELU_ALPHA,
            Op::PreluScalar => PRELU_SLOPE,
            Op::Softmax => 0.0,
        }
    }

    async fn ours(self, ctx: &Context, x: &[f32]) -> Result<Vec<f32>, String> {
        let view = ndarray::ArrayView1::from(x);
        let y = match self {
            Op::LeakyRelu => wgpu_activations::leaky_relu_async(ctx, view, LEAKY_ALPHA).await,
            Op::Elu => wgpu_activations::elu_async(ctx, view, ELU_ALPHA).await,
            Op::PreluScalar => {
                let slope = Array1::from_vec(vec![PRELU_SLOPE]);
                wgpu_activations::prelu_async(ctx, view, slope.view()).await
            }
            Op::Softmax => {
                let rows = view.into_shape_with_order(self.shape(x.len())).map_err(|e| e.to_string())?;
                let y = wgpu_activations::softmax_async(ctx, rows, -1).await;
                return y.map(|y| y.into_raw_vec_and_offset().0).map_err(|e| e.to_string());
            }
        };
        y.map(|y| y.into_raw_vec_and_offset().0).map_err(|e| e.to_string())
    }

    /// A one-node model of the operator at opset 17, X of any shape, checked by loading it
    /// with this library's ONNX layer.
    fn model(self) -> Result<Vec<u8>, String> {
        use prost::Message;
        let float_tensor = |name: &str| ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor { elem_type: Some(1), shape: None })),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut inputs = vec!["X".to_string()];
        let mut initializer = Vec::new();
        let mut attribute = Vec::new();
        match self {
            Op::PreluScalar => {
                inputs.push("slope".into());
                initializer.push(HostTensor::F32(ndarray::arr1(&[PRELU_SLOPE]).into_dyn()).to_proto("slope"));
            }
            Op::Softmax => attribute.push(wgpu_activations::onnx::proto::AttributeProto {
                name: Some("axis".into()),
                i: Some(-1),
                r#type: Some(2),
                ..Default::default()
            }),
            Op::LeakyRelu | Op::Elu => attribute.push(wgpu_activations::onnx::proto::AttributeProto {
                name: Some("alpha".into()),
                f: Some(self.parameter()),
                r#type: Some(1),
                ..Default::default()
            }),
        }
        let bytes = ModelProto {
            ir_version: Some(8),
            opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
            graph: Some(GraphProto {
                name: Some("round_trip".into()),
                node: vec![NodeProto {
                    op_type: Some(self.onnx_name().into()),
                    input: inputs,
                    output: vec!["Y".into()],
                    attribute,
                    ..Default::default()
                }],
                input: vec![float_tensor("X")],
                output: vec![float_tensor("Y")],
                initializer,
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec();
        let model = wgpu_activations::onnx::OnnxModel::from_bytes(&bytes).map_err(|e| e.to_string())?;
        if model.operators().first().map(|(name, _)| *name) != Some(self.onnx_name()) {
            return Err(format!("the round trip's {} model reads as {:?}", self.onnx_name(), model.operators()));
        }
        Ok(bytes)
    }
}

/// The plain WebGPU program for one operator and one length.
pub struct Plain {
    kernel: PlainKernel,
    src: wgpu::Buffer,
    dst: wgpu::Buffer,
    staging: wgpu::Buffer,
    bytes: u64,
}

/// The textbook Softmax an application would write: a workgroup a row (`parameter.x` its
/// length), the row's maximum and the sum of `exp(x - max)` each reduced in workgroup memory,
/// then `exp(x - max) / sum`.
const PLAIN_SOFTMAX_WGSL: &str = "
@group(0) @binding(0) var<uniform> parameter: vec4<f32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

var<workgroup> partial: array<f32, 256>;

fn reduce(lane: u32, value: f32, is_sum: bool) -> f32 {
    partial[lane] = value;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if lane < stride {
            let other = partial[lane + stride];
            partial[lane] = select(max(partial[lane], other), partial[lane] + other, is_sum);
        }
        workgroupBarrier();
    }
    let total = partial[0];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let n = u32(parameter.x);
    let row = group.x + group.y * groups.x;
    if row >= arrayLength(&src) / n {
        return;
    }
    let base = row * n;
    var m = bitcast<f32>(0xff7fffffu); // -f32::MAX (WGSL has no infinity literal)
    for (var i = lane; i < n; i += 256u) {
        m = max(m, src[base + i]);
    }
    let row_max = reduce(lane, m, false);
    var sum = 0.0;
    for (var i = lane; i < n; i += 256u) {
        sum += exp(src[base + i] - row_max);
    }
    let row_sum = reduce(lane, sum, true);
    for (var i = lane; i < n; i += 256u) {
        dst[base + i] = exp(src[base + i] - row_max) / row_sum;
    }
}
";

impl Plain {
    pub fn new(ctx: &Context, op: Op, len: usize) -> Plain {
        let (device, queue) = (ctx.device(), ctx.queue());
        let shader = format!(
            "@group(0) @binding(0) var<uniform> parameter: vec4<f32>;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
    let i = id.x + id.y * groups.x * 256u;
    if i < arrayLength(&src) {{
        let x = src[i];
        let p = parameter.x;
        dst[i] = {};
    }}
}}",
            op.plain_expression()
        );
        let bytes = (len.next_multiple_of(4) * 4) as u64;
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        let uniform =
            buffer("web-bench.plain.parameter", 16, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
        let shape = op.shape(len);
        let (parameter, shader) = match op {
            Op::Softmax => (shape[1] as f32, PLAIN_SOFTMAX_WGSL.to_string()),
            _ => (op.parameter(), shader),
        };
        queue.write_buffer(&uniform, 0, bytemuck::cast_slice(&[parameter, 0.0, 0.0, 0.0]));
        let src = buffer("web-bench.plain.src", bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST);
        let dst = buffer("web-bench.plain.dst", bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
        let staging =
            buffer("web-bench.plain.staging", bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let buffers = [&uniform, &src, &dst];
        let kernel = match op {
            Op::Softmax => PlainKernel::with_workgroups(device, "web-bench.plain", &shader, &buffers, shape[0] as u32),
            _ => PlainKernel::new(device, "web-bench.plain", &shader, &buffers, bytes),
        };
        Plain { kernel, src, dst, staging, bytes }
    }

    /// The kernel's dispatch alone, from its input buffer to its output buffer.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.kernel.encode(encoder);
    }

    /// Writes `x` into the kernel's input buffer.
    pub fn load(&self, ctx: &Context, x: &[f32]) {
        let mut padded;
        let input = if x.len().is_multiple_of(4) {
            x
        } else {
            padded = x.to_vec();
            padded.resize(x.len().next_multiple_of(4), 0.0);
            &padded
        };
        ctx.queue().write_buffer(&self.src, 0, bytemuck::cast_slice(input));
    }

    /// One call: upload, dispatch, copy to staging, map, copy out into a new vector.
    async fn run(&self, ctx: &Context, x: &[f32]) -> Result<Vec<f32>, String> {
        self.load(ctx, x);
        let mut encoder =
            ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("web-bench.plain") });
        self.encode(&mut encoder);
        encoder.copy_buffer_to_buffer(&self.dst, 0, &self.staging, 0, self.bytes);
        ctx.queue().submit([encoder.finish()]);
        page::mapped_for_reading(&self.staging).await?;
        let out = {
            let view = self.staging.get_mapped_range(..).map_err(|e| e.to_string())?;
            bytemuck::cast_slice::<u8, f32>(&view)[..x.len()].to_vec()
        };
        self.staging.unmap();
        Ok(out)
    }
}

/// ONNX Runtime Web through the page's `globalThis.ortBench` (bench.html): `session(model)`
/// and `run(session, x)`, both promises.
struct OrtWeb {
    bench: JsValue,
    session: JsValue,
}

impl OrtWeb {
    /// A session for `op`, or why there is none (the package not served, the model refused).
    async fn new(op: Op) -> Result<OrtWeb, String> {
        let bench = js_sys::Reflect::get(&js_sys::global(), &"ortBench".into()).map_err(|e| page::js_error(&e))?;
        if bench.is_undefined() || bench.is_null() {
            return Err("not served (cargo xtask bench-web serves onnxruntime-web at /ort/)".into());
        }
        let model = js_sys::Uint8Array::from(&op.model()?[..]);
        let session = call(&bench, "session", &[model.into()]).await?;
        Ok(OrtWeb { bench, session })
    }

    /// X of `shape`.
    async fn run(&self, x: &js_sys::Float32Array, shape: &[usize]) -> Result<js_sys::Float32Array, String> {
        let dims: js_sys::Array = shape.iter().map(|&d| JsValue::from_f64(d as f64)).collect();
        let y = call(&self.bench, "run", &[self.session.clone(), x.clone().into(), dims.into()]).await?;
        y.dyn_into::<js_sys::Float32Array>().map_err(|_| "ONNX Runtime Web gave no Float32Array".to_string())
    }

    async fn release(&self) {
        let _ = call(&self.bench, "release", std::slice::from_ref(&self.session)).await;
    }
}

/// Awaits `object[method](...args)`, a promise.
async fn call(object: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let function: js_sys::Function = js_sys::Reflect::get(object, &method.into())
        .map_err(|e| page::js_error(&e))?
        .dyn_into()
        .map_err(|_| format!("ortBench.{method} is not a function"))?;
    let list = js_sys::Array::new();
    for arg in args {
        list.push(arg);
    }
    let promise: js_sys::Promise = function
        .apply(object, &list)
        .map_err(|e| page::js_error(&e))?
        .dyn_into()
        .map_err(|_| format!("ortBench.{method} gave no promise"))?;
    JsFuture::from(promise).await.map_err(|e| page::js_error(&e))
}

/// Worst ULP distance from the correctly rounded result and how many results are beyond 2 ULP
/// (a NaN for a number or a number for a NaN counts as beyond, and makes the worst "NaN").
#[derive(Clone, Copy, Default)]
pub struct Accuracy {
    worst: Option<u64>,
    nan_mismatch: bool,
    beyond_two: usize,
}

impl Accuracy {
    fn of(got: &[f32], want: &[f32]) -> Accuracy {
        let mut accuracy = Accuracy { worst: Some(0), ..Accuracy::default() };
        for (&g, &w) in got.iter().zip(want) {
            match ulp::ulp_distance(g, w) {
                Some(d) => {
                    accuracy.worst = accuracy.worst.max(Some(d));
                    accuracy.beyond_two += usize::from(d > 2);
                }
                None => {
                    accuracy.nan_mismatch = true;
                    accuracy.beyond_two += 1;
                }
            }
        }
        accuracy
    }

    fn words(&self) -> String {
        match (self.nan_mismatch, self.worst) {
            (true, _) => format!("NaN/number ({} beyond 2)", self.beyond_two),
            (false, Some(w)) if w >= 100_000 => format!("{w:.2e} ({} beyond 2)", self.beyond_two),
            (false, Some(w)) => format!("{w} ({} beyond 2)", self.beyond_two),
            (false, None) => "-".into(),
        }
    }

    fn json(&self) -> String {
        format!(
            "{{\"worst_ulp\":{},\"nan_mismatch\":{},\"beyond_2_ulp\":{}}}",
            self.worst.map_or("null".into(), |w| w.to_string()),
            self.nan_mismatch,
            self.beyond_two
        )
    }
}

/// One implementation's figures for one operator.
pub struct Side {
    pub who: &'static str,
    /// Median milliseconds per call, or why it did not run.
    pub ms: Result<f64, String>,
    pub timed_inputs: Accuracy,
    pub sweep: Accuracy,
}

pub struct RoundTrip {
    pub op: &'static str,
    pub bound: u64,
    pub sides: Vec<Side>,
}

impl RoundTrip {
    pub fn html(&self) -> String {
        let ours = self.sides.first().and_then(|s| s.ms.as_ref().ok().copied());
        let mut html = String::new();
        for side in &self.sides {
            let (ms, ratio) = match (&side.ms, ours) {
                (Ok(ms), Some(o)) => (format!("{ms:.1}"), format!("{:.2}", o / ms)),
                (Ok(ms), None) => (format!("{ms:.1}"), "-".into()),
                (Err(e), _) => (page::escape(e), "-".into()),
            };
            html.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{ms}</td><td>{ratio}</td><td>{}</td><td>{}</td></tr>",
                self.op,
                side.who,
                side.timed_inputs.words(),
                side.sweep.words()
            ));
        }
        html
    }

    pub fn json(&self) -> String {
        let sides: Vec<String> = self
            .sides
            .iter()
            .map(|s| {
                let ms = match &s.ms {
                    Ok(ms) => format!("{ms:.3}"),
                    Err(_) => "null".into(),
                };
                let error =
                    s.ms.as_ref().err().map_or("null".into(), |e| format!("\"{}\"", e.replace(['"', '\\'], "'")));
                format!(
                    "{{\"who\":\"{}\",\"ms\":{ms},\"error\":{error},\"timed_inputs\":{},\"sweep\":{}}}",
                    s.who,
                    s.timed_inputs.json(),
                    s.sweep.json()
                )
            })
            .collect();
        format!("{{\"op\":\"{}\",\"bound\":{},\"sides\":[{}]}}", self.op, self.bound, sides.join(","))
    }
}

/// The operators' round trips on `elements` f32 inputs drawn as the bench draws them (Softmax:
/// their whole rows of 1000).
pub async fn measure(ctx: &Context, elements: usize) -> Result<Vec<RoundTrip>, String> {
    let mut rng = page::Rng::new(7);
    let all_x: Vec<f32> = (0..elements).map(|_| f32::typical(&mut rng)).collect();
    let all_sweep: Vec<f32> = f32::samples(&mut rng, SWEEP);
    let mut tables = Vec::new();
    for op in Op::ALL {
        let (x, sweep) = (&all_x[..op.whole_rows(all_x.len())], &all_sweep[..op.whole_rows(all_sweep.len())]);
        let (shape, sweep_shape) = (op.shape(x.len()), op.shape(sweep.len()));
        let (x_js, sweep_js) = (js_sys::Float32Array::from(x), js_sys::Float32Array::from(sweep));
        page::set_text("bench", &format!("round trip: {}…", op.name()));
        page::yield_to_browser().await;
        let (want, want_sweep) = (op.reference(x)?, op.reference(sweep)?);
        let plain = Plain::new(ctx, op, x.len());
        let plain_sweep = Plain::new(ctx, op, sweep.len());
        let ort = OrtWeb::new(op).await;
        // Warm-up calls (kernel compilation, first touches), which also give the outputs
        // whose accuracy is reported (every call computes the same).
        let ours_out = op.ours(ctx, x).await?;
        let plain_out = plain.run(ctx, x).await?;
        let ort = match ort {
            Ok(session) => session.run(&x_js, &shape).await.map(|y| (session, y.to_vec())),
            Err(e) => Err(e),
        };
        let (mut t_ours, mut t_plain, mut t_ort) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let started = page::now_ms();
            op.ours(ctx, x).await?;
            t_ours.push(page::now_ms() - started);
            let started = page::now_ms();
            plain.run(ctx, x).await?;
            t_plain.push(page::now_ms() - started);
            if let Ok((session, _)) = &ort {
                let started = page::now_ms();
                session.run(&x_js, &shape).await?;
                t_ort.push(page::now_ms() - started);
            }
            page::yield_to_browser().await;
        }
        let ours = Side {
            who: "wgpu-activations",
            ms: Ok(median(t_ours)),
            timed_inputs: Accuracy::of(&ours_out, &want),
            sweep: Accuracy::of(&op.ours(ctx, sweep).await?, &want_sweep),
        };
        let plain = Side {
            who: "plain WebGPU program",
            ms: Ok(median(t_plain)),
            timed_inputs: Accuracy::of(&plain_out, &want),
            sweep: Accuracy::of(&plain_sweep.run(ctx, sweep).await?, &want_sweep),
        };
        let who = "ONNX Runtime Web (WebGPU)";
        let ort_side = match ort {
            Ok((session, out)) => {
                let swept = session.run(&sweep_js, &sweep_shape).await.map(|y| y.to_vec());
                session.release().await;
                Side {
                    who,
                    ms: Ok(median(t_ort)),
                    timed_inputs: Accuracy::of(&out, &want),
                    sweep: swept.map_or_else(|_| Accuracy::default(), |y| Accuracy::of(&y, &want_sweep)),
                }
            }
            Err(e) => Side { who, ms: Err(e), timed_inputs: Accuracy::default(), sweep: Accuracy::default() },
        };
        tables.push(RoundTrip { op: op.name(), bound: op.bound(), sides: vec![ours, plain, ort_side] });
    }
    Ok(tables)
}

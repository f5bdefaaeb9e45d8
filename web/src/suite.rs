//! The browser suite: the library's GPU checks on the page's WebGPU, each result compared with
//! the CPU reference compiled to wasm. `cargo xtask test-wasm` serves the page, opens it in
//! headless Chromium and reads `globalThis.suiteReport` (JSON) as the checks finish; a check
//! that never reports is ended by that driver, which reloads the page from the next check
//! (`?from=K`), so one hang hides nothing else. `?shard=I/N` runs one of N shares of the
//! checks, for N pages side by side.

use std::future::Future;
use std::pin::Pin;

use half::{bf16, f16};
use ndarray::{Array, ArrayD, IxDyn};
use wasm_bindgen::prelude::*;
use wgpu_activations::onnx::conformance::{CaseRun, Outcome};
use wgpu_activations::ops::{self, AXIS_OPS, AxisOp, ELU, PRELU, SWIGLU, UNARY_OPS, UnaryOp};
use wgpu_activations::reference::{ChainStep, check_chain};
use wgpu_activations::{
    Activation, Context, ContextOptions, DType, Error, FloatElement, activations_async, activations_in_place_async,
    axis_op_async, prelu_async, reference, swiglu_async, ulp,
};

use crate::page;
use crate::samples::{FLOATS, Sample};

/// A check's verdict: a line on what it covered, or what went wrong.
type Verdict = Result<String, String>;
type Check = Pin<Box<dyn Future<Output = Verdict>>>;

/// One named check; it gets the suite's context.
struct Test {
    name: String,
    run: Box<dyn FnOnce(Context) -> Check>,
}

fn test<F: Future<Output = Verdict> + 'static>(name: String, run: impl FnOnce(Context) -> F + 'static) -> Test {
    Test { name, run: Box::new(move |ctx| Box::pin(run(ctx))) }
}

/// Evaluates `$body` with `$t` naming the element type of the runtime tag `$dtype`.
macro_rules! typed {
    ($dtype:expr, $t:ident => $body:expr) => {
        typed!(@arms $dtype, $t, $body; BF16 bf16, F16 f16, F32 f32, F64 f64, I8 i8, I16 i16, I32 i32, I64 i64,
            U8 u8, U16 u16, U32 u32, U64 u64)
    };
    (@arms $dtype:expr, $t:ident, $body:expr; $($variant:ident $ty:ty),*) => {
        match $dtype {
            $(DType::$variant => {
                type $t = $ty;
                $body
            })*
            #[allow(unreachable_patterns, reason = "DType is non_exhaustive")]
            _ => unreachable!("a dtype this suite does not know"),
        }
    };
}

/// Float element types with their unary operators.
macro_rules! typed_float {
    ($dtype:expr, $t:ident => $body:expr) => {
        typed!(@arms $dtype, $t, $body; BF16 bf16, F16 f16, F32 f32, F64 f64)
    };
}

/// Elements per check: odd, so that the tail pass runs too, and more than one workgroup.
const ELEMENTS: usize = 4097 * 3;

/// The contract a result is held to, on every adapter: within `bound` ULP of the correctly
/// rounded reference, zeros and NaN bit for bit, subnormals included. Where the adapter
/// flushes subnormals (SwiftShader does) the library computes around it
/// (`Context::info().subnormals`), so the contract is the same.
fn compare<T: Sample>(what: &str, x: &[T], gpu: &[T], want: &[T], bound: u64) -> Verdict {
    if gpu.len() != want.len() {
        return Err(format!("{what}: {} elements back, {} expected", gpu.len(), want.len()));
    }
    let mut worst = 0;
    for (i, (&g, &w)) in gpu.iter().zip(want).enumerate() {
        if !ulp::within_ulp(g, w, bound) {
            let input = x.get(i).map_or(String::new(), |v| format!(" of {v:?}"));
            return Err(format!("{what}: element {i}{input}: GPU {g:?}, reference {w:?} (bound {bound} ULP)"));
        }
        worst = worst.max(ulp::ulp_distance(g, w).unwrap_or(0));
    }
    Ok(format!("{} elements, max {worst} ULP (bound {bound})", gpu.len()))
}

fn failed(what: &str) -> impl Fn(Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// The attribute values an operator is checked with: its defaults, and alpha 0.37 with a STRING
/// attribute at its next choice (Gelu's tanh form), where the operator has either.
fn attribute_sets(op: &UnaryOp) -> Vec<ops::Attributes> {
    let defaults = op.default_attributes();
    let mut other = defaults;
    for (slot, attribute) in other.iter_mut().zip(op.attributes) {
        if attribute.is_choice() {
            *slot = ((attribute.default as usize + 1) % attribute.choices.len()) as f32;
        } else if attribute.name == "alpha" {
            *slot = 0.37;
        }
    }
    if other == defaults { vec![defaults] } else { vec![defaults, other] }
}

fn flat<T: Copy, D: ndarray::Dimension>(a: &Array<T, D>) -> Vec<T> {
    a.iter().copied().collect()
}

/// One unary operator on samples of `T` (special values first), with each of its
/// [`attribute_sets`].
async fn unary<T: Sample>(ctx: Context, op: &'static UnaryOp) -> Verdict {
    let mut rng = page::Rng::new(op.onnx_name.len() as u64 * 31 + T::DTYPE as u64);
    let x = Array::from_vec(T::samples(&mut rng, ELEMENTS - 22));
    let mut lines = Vec::new();
    for attrs in attribute_sets(op) {
        let step = Activation::with_attributes(op, &attrs[..op.attributes.len()]);
        let y = activations_async(&ctx, &[step], x.view()).await.map_err(failed(op.onnx_name))?;
        let want = flat(&reference::unary(op, &attrs, x.view()));
        let what = format!("{} {:?}", op.onnx_name, &attrs[..op.attributes.len()]);
        lines.push(compare(&what, &flat(&x), &flat(&y), &want, op.max_ulp.for_dtype(T::DTYPE))?);
    }
    Ok(lines.join("; "))
}

/// Shapes and axes the operators over an axis are checked on: the last axis with rows of even
/// length (16-bit results stored a word at a time), a middle axis (rows interleaved), rows of
/// odd length, and rows longer than a workgroup's share.
const AXIS_CASES: [(&[usize], i64); 4] = [(&[5, 3, 64], -1), (&[5, 3, 64], 1), (&[7, 33], -1), (&[2, 4100], -1)];

/// Softmax, LogSoftmax or Hardmax on [`AXIS_CASES`], over samples of `T` (special values first:
/// rows holding NaN or infinities) and over values like logits.
async fn axis<T: Sample + FloatElement>(ctx: Context, op: &'static AxisOp) -> Verdict {
    let mut rng = page::Rng::new(op.onnx_name.len() as u64 * 17 + T::DTYPE as u64);
    let mut lines = Vec::new();
    for (shape, axis) in AXIS_CASES {
        let n = shape.iter().product();
        for (inputs, values) in
            [("samples", T::samples(&mut rng, n)), ("logits", (0..n).map(|_| T::typical(&mut rng)).collect())]
        {
            let x = Array::from_shape_vec(IxDyn(shape), values[..n].to_vec()).map_err(|e| e.to_string())?;
            let what = format!("{} {shape:?} axis {axis}, {inputs}", op.onnx_name);
            let y = axis_op_async(&ctx, op, None, x.view(), axis).await.map_err(failed(&what))?;
            let want = reference::axis_op(op, None, x.view(), axis).map_err(failed(&what))?;
            let verdict = compare(&what, &flat(&x), &flat(&y), &flat(&want), op.max_ulp.for_dtype(T::DTYPE))?;
            lines.push(format!("{shape:?} axis {axis}, {inputs}: {verdict}"));
        }
    }
    Ok(lines.join("; "))
}

/// The kernels over an axis in a GPU's forms on whatever adapter the page has (rows longer than
/// a workgroup holds in chunks a workgroup each, read twice; shorter ones a segment of a
/// workgroup sized to the row): the browser's shader compiler takes those entry points too, where
/// its software adapter would choose a CPU's.
async fn axis_in_a_gpus_forms(_ctx: Context) -> Verdict {
    let ctx = page::context(ContextOptions::default().with_axis_cpu_forms(false)).await?;
    let mut rng = page::Rng::new(4097);
    let mut lines = Vec::new();
    for (shape, axis) in [(&[2usize, 4100][..], -1i64), (&[3, 4097], -1), (&[4500, 3], 0), (&[37, 128], -1)] {
        let n = shape.iter().product();
        let values: Vec<f32> = (0..n).map(|_| f32::typical(&mut rng)).collect();
        let x = Array::from_shape_vec(IxDyn(shape), values).map_err(|e| e.to_string())?;
        for &op in AXIS_OPS {
            let what = format!("{} {shape:?} axis {axis}", op.onnx_name);
            let y = axis_op_async(&ctx, op, None, x.view(), axis).await.map_err(failed(&what))?;
            let want = reference::axis_op(op, None, x.view(), axis).map_err(failed(&what))?;
            let verdict = compare(&what, &flat(&x), &flat(&y), &flat(&want), op.max_ulp.f32)?;
            lines.push(format!("{what}: {verdict}"));
        }
    }
    Ok(lines.join("; "))
}

/// SwiGLU with alphas 1 and 1.702 over A of samples of `T` and B of values like activations.
async fn swiglu<T: Sample + FloatElement>(ctx: Context) -> Verdict {
    let mut rng = page::Rng::new(28 + T::DTYPE as u64);
    let a = Array::from_vec(T::samples(&mut rng, ELEMENTS - 22));
    let b = Array::from_vec((0..a.len()).map(|_| T::typical(&mut rng)).collect::<Vec<T>>());
    let mut lines = Vec::new();
    for alpha in [1.0, 1.702] {
        let what = format!("SwiGLU alpha {alpha}");
        let y = swiglu_async(&ctx, a.view(), b.view(), alpha).await.map_err(failed(&what))?;
        let want = reference::swiglu(a.view(), b.view(), alpha).map_err(failed(&what))?;
        lines.push(compare(&what, &flat(&a), &flat(&y), &flat(&want), SWIGLU.max_ulp.for_dtype(T::DTYPE))?);
    }
    // Fused between unary steps, B on the device, against the reference step by step.
    let device_b = ctx.upload(b.view()).map_err(failed("upload"))?;
    let steps = [Activation::elu(0.5), Activation::swiglu(&device_b, 1.702), Activation::leaky_relu(0.1)];
    let y = activations_async(&ctx, &steps, a.view()).await.map_err(failed("SwiGLU chain"))?;
    let (a, b, y) = (a.into_dyn(), b.into_dyn(), y.into_dyn());
    let chain: Vec<ChainStep<'_, T>> = steps
        .iter()
        .map(|s| {
            s.reference_step()
                .unwrap_or_else(|| ChainStep::Swiglu(b.view(), wgpu_activations::ops::attributes_from(&[1.702])))
        })
        .collect();
    check_chain(a.view(), &chain, y.view()).map_err(|e| format!("fused chain with SwiGLU: {e}"))?;
    lines.push("fused between Elu and LeakyRelu".into());
    Ok(lines.join("; "))
}

/// The slope shapes of PRelu's broadcast patterns over X of shape [3, 8, 17, 33].
const PRELU_X: [usize; 4] = [3, 8, 17, 33];
const PRELU_PATTERNS: [(&str, &[usize]); 5] = [
    ("scalar", &[1]),
    ("per-channel", &[8, 1, 1]),
    ("same-shape", &PRELU_X),
    ("last-dim", &[33]),
    ("general", &[3, 1, 17, 1]),
];

async fn prelu<T: Sample>(ctx: Context, slope_shape: &'static [usize]) -> Verdict {
    let mut rng = page::Rng::new(slope_shape.iter().product::<usize>() as u64 + T::DTYPE as u64);
    let count: usize = PRELU_X.iter().product();
    let x = ArrayD::from_shape_vec(IxDyn(&PRELU_X), T::samples(&mut rng, count)[..count].to_vec())
        .map_err(|e| e.to_string())?;
    let slope_count: usize = slope_shape.iter().product();
    let slope =
        ArrayD::from_shape_vec(IxDyn(slope_shape), (0..slope_count).map(|_| T::slope(&mut rng)).collect::<Vec<_>>())
            .map_err(|e| e.to_string())?;
    let y = prelu_async(&ctx, x.view(), slope.view()).await.map_err(failed("PRelu"))?;
    let want = reference::prelu(x.view(), slope.view()).map(|w| flat(&w)).map_err(|e| e.to_string())?;
    compare("PRelu", &flat(&x), &flat(&y), &want, PRELU.max_ulp.for_dtype(T::DTYPE))
        .map_err(|e| if slope_count <= 8 { format!("{e}; slopes {:?}", flat(&slope)) } else { e })
}

/// LeakyRelu -> Elu -> PRelu (per channel, slope on the device) -> LeakyRelu fused into one
/// kernel, against the reference step by step. On the software f64 path LeakyRelu -> PRelu:
/// Chromium's shader compilers (Tint, then SwiftShader's JIT) take 1.4 s over that kernel,
/// 17 s over soft-f64 Elu alone, and more than two minutes over any chain of three soft-f64
/// steps (measured here), past the suite's limit per check.
async fn chain<T: Sample + FloatElement>(ctx: Context) -> Verdict {
    let mut rng = page::Rng::new(77 + T::DTYPE as u64);
    let x = Array::from_shape_vec((3, 1031), T::samples(&mut rng, 3093 - 22)).map_err(|e| e.to_string())?.into_dyn();
    let slope =
        Array::from_shape_vec((3, 1), (0..3).map(|_| T::slope(&mut rng)).collect()).map_err(|e| e.to_string())?;
    let device_slope = ctx.upload(slope.view()).map_err(failed("upload"))?;
    let long = T::DTYPE != DType::F64;
    let steps: Vec<Activation> = if long {
        vec![
            Activation::leaky_relu(0.1),
            Activation::elu(0.7),
            Activation::prelu(&device_slope),
            Activation::leaky_relu(0.2),
        ]
    } else {
        vec![Activation::leaky_relu(0.1), Activation::prelu(&device_slope)]
    };
    let y = activations_async(&ctx, &steps, x.view()).await.map_err(failed("chain"))?;
    // Each step is held to its own bound against the correctly rounded result of its input,
    // carried through the steps after it (a slope scales a subnormal's rounding up).
    let slope = slope.into_dyn();
    let chain: Vec<ChainStep<'_, T>> =
        steps.iter().map(|s| s.reference_step().unwrap_or_else(|| ChainStep::Prelu(slope.view()))).collect();
    check_chain(x.view(), &chain, y.view()).map_err(|e| format!("fused chain of {}: {e}", steps.len()))?;
    Ok(format!("{} elements, {} steps fused", x.len(), steps.len()))
}

/// In place: a host array seen through a transposed (non-contiguous) view, and a device
/// tensor overwritten by its result.
async fn in_place<T: Sample + FloatElement>(ctx: Context) -> Verdict {
    let mut rng = page::Rng::new(5 + T::DTYPE as u64);
    let x = Array::from_shape_vec((61, 67), T::samples(&mut rng, 61 * 67 - 22)).map_err(|e| e.to_string())?;
    let steps = [Activation::elu(1.0), Activation::leaky_relu(0.01)];
    let want = flat(&reference::leaky_relu(reference::elu(x.view(), 1.0).view(), 0.01));
    let bound = ops::chain_bound(steps.iter().map(|s| s.max_ulp(T::DTYPE)));

    let mut host = x.clone();
    activations_in_place_async(&ctx, &steps, host.view_mut().reversed_axes()).await.map_err(failed("host"))?;
    let host_line = compare("host, transposed view", &flat(&x), &flat(&host), &want, bound)?;

    let tensor = ctx.upload(x.view()).map_err(failed("upload"))?;
    ctx.run_activations_in_place(&steps, &tensor).map_err(failed("device"))?;
    let back = ctx.download_async::<T>(&tensor).await.map_err(failed("download"))?;
    let device_line = compare("device tensor", &flat(&x), &flat(&back), &want, bound)?;
    Ok(format!("host: {host_line}; device: {device_line}"))
}

/// Recorded into the caller's encoder between two passes of the caller's own: a clear of Y
/// before (which the activation overwrites) and a copy of Y after (which must see the result).
async fn encoded<T: Sample>(ctx: Context) -> Verdict {
    let mut rng = page::Rng::new(9 + T::DTYPE as u64);
    let x = Array::from_shape_vec((4, 257), T::samples(&mut rng, 4 * 257)[..4 * 257].to_vec())
        .map_err(|e| e.to_string())?;
    let slope =
        Array::from_shape_vec((4, 1), (0..4).map(|_| T::slope(&mut rng)).collect()).map_err(|e| e.to_string())?;
    let x_device = ctx.upload(x.view()).map_err(failed("upload"))?;
    let slope_device = ctx.upload(slope.view()).map_err(failed("upload"))?;
    let y = ctx.empty_tensor(&[4, 257], T::DTYPE).map_err(failed("empty tensor"))?;
    let copy = ctx.empty_tensor(&[4, 257], T::DTYPE).map_err(failed("empty tensor"))?;
    let device = ctx.device();
    let mut encoder = device.create_command_encoder(&wgpu_activations::wgpu::CommandEncoderDescriptor {
        label: Some("browser-suite.caller-encoder"),
    });
    encoder.clear_buffer(y.buffer(), 0, None);
    ctx.encode_prelu(&mut encoder, &x_device, &slope_device, &y).map_err(failed("encode"))?;
    encoder.copy_buffer_to_buffer(y.buffer(), 0, copy.buffer(), 0, y.size_bytes().next_multiple_of(4));
    ctx.queue().submit([encoder.finish()]);
    let back = ctx.download_async::<T>(&copy).await.map_err(failed("download"))?;
    let want = reference::prelu(x.view(), slope.view()).map(|w| flat(&w)).map_err(|e| e.to_string())?;
    compare("encoded PRelu", &flat(&x), &flat(&back), &want, PRELU.max_ulp.for_dtype(T::DTYPE))
}

/// Bad input is an error value, never a panic or a hang.
async fn errors(ctx: Context) -> Verdict {
    let x = ndarray::array![[1.0f32, -2.0, 3.0], [-4.0, 5.0, -6.0]];
    let mut seen = Vec::new();
    match prelu_async(&ctx, x.view(), ndarray::array![1.0f32, 2.0].view()).await {
        Err(Error::NotBroadcastable { .. }) => seen.push("unbroadcastable slope"),
        other => return Err(format!("a [2] slope on [2, 3]: {other:?}")),
    }
    match activations_async(&ctx, &[], x.view()).await {
        Err(_) => seen.push("empty chain"),
        Ok(_) => return Err("an empty chain ran".into()),
    }
    let ints = ndarray::array![1i32, -2, 3];
    match activations_async(&ctx, &[Activation::elu(1.0)], ints.view()).await {
        Err(Error::DTypeNotAllowed { .. }) => seen.push("Elu on int32"),
        other => return Err(format!("Elu on int32: {other:?}")),
    }
    let empty = Array::<f32, _>::zeros((0, 5));
    let y = activations_async(&ctx, &[Activation::leaky_relu(0.1)], empty.view()).await.map_err(failed("empty"))?;
    if y.shape() != [0, 5] {
        return Err(format!("an empty array came back as {:?}", y.shape()));
    }
    seen.push("empty array");
    let tensor = ctx.upload(x.view()).map_err(failed("upload"))?;
    match ctx.download_async::<f64>(&tensor).await {
        Err(Error::DTypeMismatch { .. }) => seen.push("download as another dtype"),
        other => return Err(format!("an f32 tensor read as f64: {other:?}")),
    }
    Ok(seen.join(", "))
}

/// An adopted device is measured like a created one (`Context::from_device_async` awaits the
/// subnormal probe), takes the products its probe says, and computes within bounds on it.
async fn adopted_is_measured(ctx: Context) -> Verdict {
    let adopted = page::adopted_context(ContextOptions::default()).await?;
    let info = adopted.info();
    if info.subnormals == wgpu_activations::Subnormals::NotMeasured {
        return Err("the adopted device was not measured".into());
    }
    if info.subnormals != ctx.info().subnormals {
        return Err(format!("adopted: subnormals {}, created: {}", info.subnormals, ctx.info().subnormals));
    }
    if info.subnormal_products_on_integers != info.subnormals.may_flush() {
        return Err(format!(
            "subnormals {} but products on integers: {}",
            info.subnormals, info.subnormal_products_on_integers
        ));
    }
    let elu = unary::<f32>(adopted.clone(), &ELU).await?;
    let prelu = prelu::<f32>(adopted.clone(), &[8, 1, 1]).await?;
    let products = if info.subnormal_products_on_integers { "integers" } else { "hardware" };
    Ok(format!("subnormals {}, products on {products}; Elu f32: {elu}; PRelu f32: {prelu}", info.subnormals))
}

/// Every call [`call_after_loss`] makes in the browser, by name.
const CALLS_AFTER_LOSS: [&str; 11] = [
    "host array",
    "host prelu",
    "host array in place",
    "upload",
    "run",
    "run in place",
    "run prelu",
    "encode",
    "download",
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
    async fn new(ctx: Context) -> Result<Self, String> {
        let x = ndarray::Array1::from_iter((0..4096).map(|i| i as f32 - 2048.0));
        let slope = ndarray::array![0.25f32];
        // Host-array calls return their buffers to the pool and cache their pipelines.
        for _ in 0..3 {
            activations_async(&ctx, &[Activation::leaky_relu(0.5)], x.view()).await.map_err(failed("use"))?;
            prelu_async(&ctx, x.view(), slope.view()).await.map_err(failed("use"))?;
        }
        let t = ctx.upload(x.view()).map_err(failed("upload"))?;
        let y = ctx.run_activations(&[Activation::elu(1.0)], &t).map_err(failed("run"))?;
        let slope = ctx.upload(slope.view()).map_err(failed("upload"))?;
        ctx.download_async::<f32>(&y).await.map_err(failed("download"))?;
        let app = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("web.app"),
            size: 4096 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Used { ctx, x, t, y, slope, app })
    }

    async fn call_after_loss(&self, call: &str) -> Result<(), Error> {
        let (ctx, x, chain) = (&self.ctx, self.x.view(), [Activation::elu(1.0)]);
        match call {
            "host array" => activations_async(ctx, &[Activation::leaky_relu(0.5)], x).await.map(drop),
            "host prelu" => prelu_async(ctx, x, ndarray::array![0.25f32].view()).await.map(drop),
            "host array in place" => activations_in_place_async(ctx, &chain, self.x.clone().view_mut()).await,
            "upload" => ctx.upload(x).map(drop),
            "run" => ctx.run_activations(&chain, &self.t).map(drop),
            "run in place" => ctx.run_activations_in_place(&chain, &self.t),
            "run prelu" => ctx.run_prelu(&self.t, &self.slope).map(drop),
            "encode" => {
                let mut encoder = ctx.device().create_command_encoder(&Default::default());
                ctx.encode_activations(&mut encoder, &chain, &self.t, &self.y)
            }
            "download" => ctx.download_async::<f32>(&self.y).await.map(drop),
            "wrap" => ctx.tensor_from_buffer(self.app.clone(), 0, &[4096], DType::F32).map(drop),
            _ => ctx.empty_tensor(&[2], DType::F32).map(drop),
        }
    }
}

/// The held-out application's sequence in the browser, on a device the library created or one
/// the page adopted: the context is used, a readback is pending and work is encoded into the
/// page's encoder but not submitted; then the page destroys the device. The first call after
/// that (`first`, in the same turn of the event loop as `destroy()`) and every call after it
/// return DeviceLost; so does the pending readback, and submitting the encoded work is harmless.
async fn destroyed_after_use(ownership: &'static str, first: &'static str) -> Verdict {
    let ctx = match ownership {
        "created" => page::context(ContextOptions::default()).await?,
        _ => page::adopted_context(ContextOptions::default()).await?,
    };
    let used = Used::new(ctx).await?;
    let ctx = &used.ctx;
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    ctx.encode_activations(&mut encoder, &[Activation::leaky_relu(0.5)], &used.t, &used.y).map_err(failed("encode"))?;
    let mut pending = Box::pin(ctx.download_async::<f32>(&used.y));
    let noop = std::task::Waker::noop();
    if pending.as_mut().poll(&mut std::task::Context::from_waker(noop)).is_ready() {
        return Err("the readback finished before its map could".into());
    }
    ctx.device().destroy();
    let lost = |what: &str, outcome: Result<(), Error>| match outcome {
        Err(Error::DeviceLost { .. }) => Ok(()),
        other => Err(format!("{what} after destroy() on a {ownership} device (first: {first}): {other:?}")),
    };
    lost(first, used.call_after_loss(first).await)?;
    lost("the pending readback", pending.await.map(drop))?;
    ctx.queue().submit([encoder.finish()]);
    for call in CALLS_AFTER_LOSS {
        lost(call, used.call_after_loss(call).await)?;
    }
    page::yield_to_browser().await;
    for call in CALLS_AFTER_LOSS {
        lost(call, used.call_after_loss(call).await)?;
    }
    if !ctx.is_lost() {
        return Err("is_lost() is false after destroy()".into());
    }
    Ok(format!(
        "{first} first: DeviceLost; the pending readback: DeviceLost; encoded work submitted; then {} calls, in the \
         same turn and after the event loop ran: DeviceLost",
        CALLS_AFTER_LOSS.len()
    ))
}

/// Validation mode in the browser: correct results pass, and a corrupted result is caught on
/// a host call and on work recorded into a device tensor (reported by the next awaited call).
async fn validation(_ctx: Context) -> Verdict {
    let options = || ContextOptions::default().with_validation(true);
    let ctx = page::context(options()).await?;
    // The corruption zeroes the first word: start with a value whose result is not zero.
    let mut values = f32::samples(&mut page::Rng::new(3), 1000);
    values.reverse();
    values[0] = -3.5;
    let x = Array::from_vec(values);
    let y = activations_async(&ctx, &[Activation::elu(1.0)], x.view()).await.map_err(failed("validated Elu"))?;
    let want = flat(&reference::elu(x.view(), 1.0));
    compare("validated Elu", &flat(&x), &flat(&y), &want, ELU.max_ulp.f32)?;

    let corrupt = page::context(options().with_corrupted_results(true)).await?;
    match activations_async(&corrupt, &[Activation::leaky_relu(0.1)], x.view()).await {
        Err(Error::ValidationMismatch { .. }) => {}
        other => return Err(format!("a corrupted host result was not caught: {:?}", other.map(|_| "Ok"))),
    }
    let tensor = corrupt.upload(x.view()).map_err(failed("upload"))?;
    let y = corrupt.run_activations(&[Activation::leaky_relu(0.1)], &tensor).map_err(failed("run"))?;
    match corrupt.download_async::<f32>(&y).await {
        Err(Error::ValidationMismatch { .. }) => {}
        other => return Err(format!("a corrupted device result was not caught: {:?}", other.map(|_| "Ok"))),
    }
    Ok("correct results pass; corrupted host and device results are caught".into())
}

/// Tensors over many binding windows and host arrays in many buffer pieces, with a slope that
/// is cut into pieces too.
async fn windows_and_pieces(_ctx: Context) -> Verdict {
    let options = ContextOptions::default().with_max_binding_bytes(1 << 12).with_max_buffer_bytes(1 << 14);
    let ctx = page::context(options).await?;
    let x = Array::from_shape_vec((3, 41, 97), f32::samples(&mut page::Rng::new(11), 3 * 41 * 97 - 22))
        .map_err(|e| e.to_string())?;
    // A slope window must fit one binding: per channel, cut into pieces with X.
    let slope = Array::from_shape_fn((41, 1), |(i, _)| (i as f32 - 20.0) / 8.0);
    let y = prelu_async(&ctx, x.view(), slope.view()).await.map_err(failed("PRelu"))?;
    let want = reference::prelu(x.view(), slope.view()).map(|w| flat(&w)).map_err(|e| e.to_string())?;
    let prelu_line = compare("PRelu in pieces", &flat(&x), &flat(&y), &want, 0)?;
    let y = activations_async(&ctx, &[Activation::elu(1.0)], x.view()).await.map_err(failed("Elu"))?;
    let want = flat(&reference::elu(x.view(), 1.0));
    let elu_line = compare("Elu in pieces", &flat(&x), &flat(&y), &want, ELU.max_ulp.f32)?;
    Ok(format!("{prelu_line}; {elu_line}"))
}

/// One committed ONNX case, its files fetched from beside the page.
async fn onnx_case(ctx: Context, case: CaseFiles) -> Verdict {
    let model = page::fetch_bytes(&case.model).await?;
    let mut run = match CaseRun::start(case.name.clone(), &model) {
        Ok(run) => run,
        Err(report) => return Err(report.to_string()),
    };
    for set in &case.sets {
        let fetch_all = async |paths: &[String]| -> Result<Vec<Vec<u8>>, String> {
            let mut all = Vec::with_capacity(paths.len());
            for path in paths {
                all.push(page::fetch_bytes(path).await?);
            }
            Ok(all)
        };
        let inputs = fetch_all(&set.inputs).await?;
        let outputs = fetch_all(&set.outputs).await?;
        run.data_set(&ctx, &set.name, &inputs, &outputs).await;
        if run.report.outcome != Outcome::Pass {
            break;
        }
    }
    match run.report.outcome {
        Outcome::Pass => Ok(run.report.to_string()),
        _ => Err(run.report.to_string()),
    }
}

/// A committed case's files, as `onnx-cases.txt` (written by xtask) lists them.
#[derive(Clone, Default)]
struct CaseFiles {
    name: String,
    model: String,
    sets: Vec<SetFiles>,
}

#[derive(Clone, Default)]
struct SetFiles {
    name: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
}

/// Lines `case NAME MODEL`, `set NAME`, `input PATH`, `output PATH`, paths relative to the page.
fn parse_cases(listing: &str) -> Result<Vec<CaseFiles>, String> {
    let mut cases: Vec<CaseFiles> = Vec::new();
    for (number, line) in listing.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let mut words = line.split_whitespace();
        let bad = || format!("onnx-cases.txt line {}: {line:?}", number + 1);
        match (words.next(), words.next(), words.next()) {
            (Some("case"), Some(name), Some(model)) => {
                cases.push(CaseFiles { name: name.into(), model: model.into(), sets: Vec::new() })
            }
            (Some("set"), Some(name), None) => {
                cases.last_mut().ok_or_else(bad)?.sets.push(SetFiles { name: name.into(), ..SetFiles::default() })
            }
            (Some("input"), Some(path), None) => last_set(&mut cases).ok_or_else(bad)?.inputs.push(path.into()),
            (Some("output"), Some(path), None) => last_set(&mut cases).ok_or_else(bad)?.outputs.push(path.into()),
            _ => return Err(bad()),
        }
    }
    Ok(cases)
}

fn last_set(cases: &mut [CaseFiles]) -> Option<&mut SetFiles> {
    cases.last_mut()?.sets.last_mut()
}

fn tests(cases: Vec<CaseFiles>) -> Vec<Test> {
    let mut all = Vec::new();
    for op in UNARY_OPS {
        for dtype in DType::ALL.into_iter().filter(|&dtype| op.accepts(dtype)) {
            all.push(test(format!("unary {} {dtype}", op.onnx_name), move |ctx| async move {
                typed!(dtype, T => unary::<T>(ctx, op).await)
            }));
        }
    }
    let prelu_dtypes = || DType::ALL.into_iter().filter(|&dtype| ops::accepts(PRELU.versions, dtype));
    for dtype in prelu_dtypes() {
        for (pattern, shape) in PRELU_PATTERNS {
            all.push(test(format!("prelu {dtype} {pattern}"), move |ctx| async move {
                typed!(dtype, T => prelu::<T>(ctx, shape).await)
            }));
        }
    }
    // f64 runs on the browser's software f64 path.
    for dtype in [DType::BF16, DType::F16, DType::F32, DType::F64] {
        for &op in AXIS_OPS {
            all.push(test(format!("axis {} {dtype}", op.onnx_name), move |ctx| async move {
                typed_float!(dtype, T => axis::<T>(ctx, op).await)
            }));
        }
        all.push(test(format!("swiglu {dtype}"), move |ctx| async move {
            typed_float!(dtype, T => swiglu::<T>(ctx).await)
        }));
    }
    for dtype in FLOATS {
        all.push(test(format!("fused chain {dtype}"), move |ctx| async move {
            typed_float!(dtype, T => chain::<T>(ctx).await)
        }));
        all.push(test(format!("in place {dtype}"), move |ctx| async move {
            typed_float!(dtype, T => in_place::<T>(ctx).await)
        }));
    }
    for dtype in prelu_dtypes() {
        all.push(test(format!("encoded into the caller's encoder {dtype}"), move |ctx| async move {
            typed!(dtype, T => encoded::<T>(ctx).await)
        }));
    }
    all.push(test("bad input is an error value".into(), errors));
    all.push(test("an adopted device is measured".into(), adopted_is_measured));
    for ownership in ["created", "adopted"] {
        for first in CALLS_AFTER_LOSS {
            all.push(test(format!("{ownership} device destroyed after use, first call: {first}"), move |_| {
                destroyed_after_use(ownership, first)
            }));
        }
    }
    all.push(test("axis f32 in a GPU's forms".into(), axis_in_a_gpus_forms));
    all.push(test("validation mode".into(), validation));
    all.push(test("binding windows and buffer pieces".into(), windows_and_pieces));
    for case in cases {
        all.push(test(format!("onnx {}", case.name), move |ctx| onnx_case(ctx, case)));
    }
    all
}

/// What the driver reads: every check's name, the results so far, the one running.
#[derive(Default)]
struct Report {
    adapter: String,
    names: Vec<String>,
    results: Vec<(usize, bool, String, f64)>,
    running: Option<usize>,
    done: bool,
    fatal: Option<String>,
}

fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Report {
    fn publish(&self) {
        let names: Vec<String> = self.names.iter().map(|n| json_string(n)).collect();
        let results: Vec<String> = self
            .results
            .iter()
            .map(|(index, ok, detail, ms)| {
                format!("{{\"index\":{index},\"ok\":{ok},\"detail\":{},\"ms\":{ms:.1}}}", json_string(detail))
            })
            .collect();
        let running = self.running.map_or("null".to_string(), |i| i.to_string());
        let fatal = self.fatal.as_deref().map_or("null".to_string(), json_string);
        let json = format!(
            "{{\"adapter\":{},\"names\":[{}],\"results\":[{}],\"running\":{running},\"done\":{},\"fatal\":{fatal}}}",
            json_string(&self.adapter),
            names.join(","),
            results.join(","),
            self.done
        );
        page::publish("suiteReport", &JsValue::from_str(&json));
    }
}

/// `?shard=I/N` as (I, N), with I < N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let parsed = text.split_once('/').and_then(|(i, n)| Some((i.parse().ok()?, n.parse().ok()?)));
    match parsed {
        Some((i, n)) if i < n => Ok((i, n)),
        _ => Err(format!("?shard={text} is not I/N with I < N")),
    }
}

/// Which checks shard (I, N) runs: of each class of checks (those of one element type, by the
/// word in their names, else those of one group, by their first word), every N-th from the
/// I-th. The types' costs differ most (an f64 check compiles the software path's kernels, tens
/// of times an f32 one's), so each of N pages side by side gets its share of each.
fn shard_members(names: &[String], (shard, shards): (usize, usize)) -> Vec<bool> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    names
        .iter()
        .map(|name| {
            let words = || name.split(' ');
            let class = words().find(|w| DType::ALL.iter().any(|d| d.name() == *w)).or(words().next()).unwrap_or("");
            let count = seen.entry(class).or_default();
            *count += 1;
            (*count - 1) % shards == shard
        })
        .collect()
}

/// Runs the checks from number `from` on (the driver's resume point after a hang), those whose
/// name contains `?only=` when given, publishing the report after each.
#[wasm_bindgen]
pub async fn run_suite() {
    std::panic::set_hook(Box::new(|info| {
        page::publish("suitePanic", &JsValue::from_str(&info.to_string()));
    }));
    let mut report = Report::default();
    let cases = match page::fetch_text("onnx-cases.txt").await.and_then(|listing| parse_cases(&listing)) {
        Ok(cases) => cases,
        Err(e) => {
            report.fatal = Some(format!("the ONNX case listing: {e}"));
            report.done = true;
            report.publish();
            return;
        }
    };
    let all = tests(cases);
    report.names = all.iter().map(|t| t.name.clone()).collect();
    let ctx = match page::context(ContextOptions::default()).await {
        Ok(ctx) => ctx,
        Err(e) => {
            report.fatal = Some(e);
            report.done = true;
            report.publish();
            return;
        }
    };
    report.adapter = format!("{}, subnormals {}", page::adapter_name(&ctx).await, ctx.info().subnormals);
    let from: usize = page::param("from").and_then(|f| f.parse().ok()).unwrap_or(0);
    let only = page::param("only");
    let shard = match page::param("shard").map(|s| parse_shard(&s)).transpose() {
        Ok(shard) => shard.unwrap_or((0, 1)),
        Err(e) => {
            report.fatal = Some(e);
            report.done = true;
            report.publish();
            return;
        }
    };
    let in_shard = shard_members(&report.names, shard);
    let mut log = format!("adapter: {}\n", report.adapter);
    for (index, test) in all.into_iter().enumerate() {
        if index < from || !in_shard[index] || only.as_deref().is_some_and(|o| !test.name.contains(o)) {
            continue;
        }
        report.running = Some(index);
        report.publish();
        page::yield_to_browser().await;
        let started = page::now_ms();
        let verdict = (test.run)(ctx.clone()).await;
        let ms = page::now_ms() - started;
        let (ok, detail) = match verdict {
            Ok(detail) => (true, detail),
            Err(detail) => (false, detail),
        };
        log.push_str(&format!("{} {} ({ms:.0} ms): {detail}\n", if ok { "ok  " } else { "FAIL" }, test.name));
        page::set_text("log", &log);
        report.results.push((index, ok, detail, ms));
    }
    report.running = None;
    report.done = true;
    report.publish();
}

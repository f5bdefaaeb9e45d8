//! The bench in the browser: each kernel's time against a plain WebGPU copy kernel over the
//! same bytes in the same page (the browser's own streaming reference), as `wgpu-act bench`
//! measures natively. Results go to `#bench` and, as JSON, to `globalThis.benchReport`.

use ndarray::Array1;
use wasm_bindgen::prelude::*;
use wgpu_activations::ops::AxisOp;
use wgpu_activations::{Activation, Context, ContextOptions, DType, DTypePath, GpuTensor, SubnormalProducts, ops};

use crate::conv::compute_pipeline;
use crate::page::{self, escape};
use crate::roundtrip::{self, RoundTrip};
use crate::samples::Sample;

/// Dispatches recorded per timed submission, and timed submissions per side (alternating).
const DISPATCHES: usize = 4;
const ROUNDS: usize = 7;

const COPY_WGSL: &str = r"
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = id.x + id.y * groups.x * 256u;
    if i < arrayLength(&src) {
        dst[i] = src[i];
    }
}
";

/// A plain WebGPU kernel as an application would write one: its pipeline, its bind group
/// (`buffers` at bindings 0, 1, ...) and a grid of 256-invocation workgroups, one invocation per
/// 16 bytes of `bytes` (the WGSL's index: `id.x + id.y * groups.x * 256u`).
pub(crate) struct PlainKernel {
    label: &'static str,
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl PlainKernel {
    pub(crate) fn new(
        device: &wgpu::Device,
        label: &'static str,
        wgsl: &str,
        buffers: &[&wgpu::Buffer],
        bytes: u64,
    ) -> PlainKernel {
        PlainKernel::with_workgroups(device, label, wgsl, buffers, (bytes / 16).div_ceil(256) as u32)
    }

    /// The kernel over `workgroups` workgroups, laid out as a grid as [`PlainKernel::new`]'s.
    pub(crate) fn with_workgroups(
        device: &wgpu::Device,
        label: &'static str,
        wgsl: &str,
        buffers: &[&wgpu::Buffer],
        workgroups: u32,
    ) -> PlainKernel {
        let pipeline = compute_pipeline(device, label, wgsl);
        let entries: Vec<wgpu::BindGroupEntry> = (0u32..)
            .zip(buffers)
            .map(|(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
            .collect();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let groups = if workgroups > 65_535 { (65_535, workgroups.div_ceil(65_535)) } else { (workgroups, 1) };
        PlainKernel { label, pipeline, group, groups }
    }

    pub(crate) fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(self.label), timestamp_writes: None });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}

/// A plain copy of `bytes` bytes between two buffers of its own.
fn copy_kernel(device: &wgpu::Device, bytes: u64) -> PlainKernel {
    let buffer = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (buffer("web-bench.copy.src"), buffer("web-bench.copy.dst"));
    PlainKernel::new(device, "web-bench.copy", COPY_WGSL, &[&src, &dst], bytes)
}

/// Milliseconds of one submission of [`DISPATCHES`] recordings by `record`, submit to done.
async fn timed(ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder) -> Result<(), String>) -> Result<f64, String> {
    let mut encoder =
        ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("web-bench.timed") });
    for _ in 0..DISPATCHES {
        record(&mut encoder)?;
    }
    let started = page::now_ms();
    ctx.queue().submit([encoder.finish()]);
    page::work_done(ctx.queue()).await;
    Ok(page::now_ms() - started)
}

pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// One row: the kernel's and the copy's median times, alternating, and their ratio (the
/// copy's time over the kernel's: 1.0 is copy speed).
struct Row {
    kernel: String,
    dtype: DType,
    elements: usize,
    kernel_ms: f64,
    copy_ms: f64,
}

/// The inputs of a row: by default drawn like the native bench's ([`Sample::typical`]);
/// `?inputs=samples` takes the browser checks' samples instead (the special values, and one
/// value in ten or so below 2^-119, where products meet subnormals: on a device that flushes
/// them, most Vectors then take the second pass).
fn inputs<T: Sample>(elements: usize) -> Vec<T> {
    let mut rng = page::Rng::new(1);
    if page::param("inputs").as_deref() == Some("samples") {
        return T::samples(&mut rng, elements)[..elements].to_vec();
    }
    (0..elements).map(|_| T::typical(&mut rng)).collect()
}

async fn measure<T: Sample>(
    ctx: &Context,
    name: &str,
    elements: usize,
    steps: impl Fn(&Context) -> Result<Vec<Activation>, String>,
) -> Result<Row, String> {
    let chain = steps(ctx)?;
    measure_kernel::<T>(ctx, name, &[elements], |encoder, x, y| {
        ctx.encode_activations(encoder, &chain, x, y).map_err(|e| e.to_string())
    })
    .await
}

/// `op` over the last axis of rows of [`roundtrip::AXIS_ROW`] (of all `elements` where fewer).
async fn measure_axis<T: Sample>(ctx: &Context, op: &'static AxisOp, elements: usize) -> Result<Row, String> {
    let row = roundtrip::AXIS_ROW.min(elements).max(1);
    let name = format!("{}, rows of {row}", op.onnx_name);
    measure_kernel::<T>(ctx, &name, &[elements / row, row], |encoder, x, y| {
        ctx.encode_axis(encoder, op, x, y, -1, None).map_err(|e| e.to_string())
    })
    .await
}

/// The work `record` puts on an encoder, from X (`shape`, the bench's inputs) to Y, against the
/// copy kernel over X's bytes.
async fn measure_kernel<T: Sample>(
    ctx: &Context,
    name: &str,
    shape: &[usize],
    record: impl Fn(&mut wgpu::CommandEncoder, &GpuTensor, &GpuTensor) -> Result<(), String>,
) -> Result<Row, String> {
    let elements = shape.iter().product();
    let values = inputs::<T>(elements);
    let x = ctx.upload(Array1::from_vec(values).view()).and_then(|x| x.reshaped(shape)).map_err(|e| e.to_string())?;
    let y: GpuTensor = ctx.empty_tensor(shape, T::DTYPE).map_err(|e| e.to_string())?;
    let copy = copy_kernel(ctx.device(), x.size_bytes().next_multiple_of(16));
    let kernel_record = |encoder: &mut wgpu::CommandEncoder| record(encoder, &x, &y);
    let (kernel_ms, copy_ms) = alternate(ctx, &kernel_record, &copy).await?;
    Ok(Row { kernel: name.to_string(), dtype: T::DTYPE, elements, kernel_ms, copy_ms })
}

/// The plain program's kernel (`roundtrip::Plain`: the textbook WGSL, Elu's `exp(x) - 1`,
/// Softmax's workgroup a row) on f32 device buffers, against the copy kernel.
async fn measure_plain(ctx: &Context, op: roundtrip::Op, elements: usize) -> Result<Row, String> {
    let elements = op.whole_rows(elements);
    let plain = roundtrip::Plain::new(ctx, op, elements);
    plain.load(ctx, &inputs::<f32>(elements));
    let copy = copy_kernel(ctx.device(), (elements as u64 * 4).next_multiple_of(16));
    let kernel_record = |encoder: &mut wgpu::CommandEncoder| {
        plain.encode(encoder);
        Ok(())
    };
    let (kernel_ms, copy_ms) = alternate(ctx, &kernel_record, &copy).await?;
    let kernel = format!("{}, plain kernel ({})", op.onnx_name(), op.plain_expression());
    Ok(Row { kernel, dtype: DType::F32, elements, kernel_ms, copy_ms })
}

/// Median times of `record`'s work and the copy kernel's, alternating, after a warm-up of each
/// (kernel compilation, first touches of memory).
async fn alternate(
    ctx: &Context,
    record: &dyn Fn(&mut wgpu::CommandEncoder) -> Result<(), String>,
    copy: &PlainKernel,
) -> Result<(f64, f64), String> {
    let copy_record = |encoder: &mut wgpu::CommandEncoder| {
        copy.encode(encoder);
        Ok(())
    };
    timed(ctx, record).await?;
    timed(ctx, &copy_record).await?;
    let (mut kernel, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        kernel.push(timed(ctx, record).await?);
        plain.push(timed(ctx, &copy_record).await?);
    }
    Ok((median(kernel), median(plain)))
}

/// Runs every kernel of the table at `?elems=N` elements (default 2^22) and publishes it.
#[wasm_bindgen]
pub async fn run_bench() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string().replace(['"', '\\', '\n'], "'");
        page::publish("benchReport", &JsValue::from_str(&format!("{{\"error\":\"panic: {message}\"}}")));
    }));
    let outcome = bench().await;
    let (json, html) = match outcome {
        Ok((adapter, elements, rows, round_trips)) => {
            let mut html = format!(
                "<p>{} elements per kernel (f64 on emulated words: a sixteenth) on {}; times are medians of {ROUNDS} submissions of {DISPATCHES} dispatches, alternating with the copy kernel.</p><table><tr><th>kernel</th><th>dtype</th><th>elements</th><th>kernel ms</th><th>copy ms</th><th>ratio to copy</th></tr>",
                elements,
                escape(&adapter)
            );
            let mut entries = Vec::new();
            for row in &rows {
                let ratio = row.copy_ms / row.kernel_ms;
                html.push_str(&format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{ratio:.2}</td></tr>",
                    escape(&row.kernel),
                    row.dtype,
                    row.elements,
                    row.kernel_ms,
                    row.copy_ms
                ));
                entries.push(format!(
                    "{{\"kernel\":\"{}\",\"dtype\":\"{}\",\"elements\":{},\"kernel_ms\":{:.3},\"copy_ms\":{:.3},\"ratio\":{ratio:.3}}}",
                    row.kernel, row.dtype, row.elements, row.kernel_ms, row.copy_ms
                ));
            }
            html.push_str("</table>");
            if !round_trips.is_empty() {
                html.push_str(&format!(
                    "<h2>Host round trip</h2><p>A host array of {elements} f32 in, the result back on the host; medians of {} calls each, alternating; accuracy against the correctly rounded result: worst ULP (results beyond 2 ULP) on the timed inputs and on {} sweep values.</p><table><tr><th>op</th><th>implementation</th><th>ms per call</th><th>ours' time / its time</th><th>timed inputs: worst ULP</th><th>sweep: worst ULP</th></tr>",
                    roundtrip::ROUNDS,
                    roundtrip::SWEEP
                ));
                for trip in &round_trips {
                    html.push_str(&trip.html());
                }
                html.push_str("</table>");
            }
            let trips: Vec<String> = round_trips.iter().map(RoundTrip::json).collect();
            let adapter = adapter.replace('"', "'");
            (
                format!(
                    "{{\"adapter\":\"{adapter}\",\"elements\":{elements},\"rows\":[{}],\"round_trips\":[{}]}}",
                    entries.join(","),
                    trips.join(",")
                ),
                html,
            )
        }
        Err(e) => (format!("{{\"error\":\"{}\"}}", e.replace('"', "'")), format!("<p>FAIL {}</p>", escape(&e))),
    };
    page::set_html("bench", &html);
    page::publish("benchReport", &JsValue::from_str(&json));
}

/// Elements for `dtype`'s rows: a sixteenth of `elements` where f64 runs on emulated words
/// (software float on u32 pairs costs tens of operations an element, and a full-size row
/// outlasts the page's time on a software adapter).
fn elements_for(ctx: &Context, dtype: DType, elements: usize) -> usize {
    match ctx.dtype_path(dtype) {
        DTypePath::Emulated(_) if dtype == DType::F64 => (elements / 16).max(1),
        _ => elements,
    }
}

/// The query's list `name` (comma separated), or everything where it has none.
fn wanted(name: &str) -> impl Fn(&str) -> bool {
    let list: Option<Vec<String>> = page::param(name).map(|l| l.split(',').map(str::to_lowercase).collect());
    move |item: &str| list.as_ref().is_none_or(|l| l.iter().any(|w| *w == item.to_lowercase()))
}

/// Measures every kernel of the table, or those of `?ops=` (ONNX names, `PRelu` for its rows)
/// in `?dtypes=`, with products as `?products=` says (`hardware`, `one-pass`, `integers`: each
/// product flagged for a second pass, `guarded-two-passes`; default: by the probe), so that
/// paths can be compared in one page; Elu f32 also as the plain `exp(x) - 1`
/// kernel; Softmax, LogSoftmax and Hardmax f16 and f32 over rows of 1000, Softmax f32 also as
/// the textbook kernel (a workgroup a row); then the host round trips against the peer (`?roundtrip=no` leaves them out,
/// `?roundtrip=only` measures only them).
async fn bench() -> Result<(String, usize, Vec<Row>, Vec<RoundTrip>), String> {
    let products = match page::param("products").as_deref() {
        Some("hardware") => SubnormalProducts::OnHardware,
        Some("one-pass") => SubnormalProducts::OnIntegersInOnePass,
        Some("integers") => SubnormalProducts::OnIntegers,
        Some("guarded-two-passes") => SubnormalProducts::GuardedInTwoPasses,
        _ => SubnormalProducts::ByProbe,
    };
    let ctx = page::context(ContextOptions::default().with_subnormal_products(products)).await?;
    let adapter = format!("{}, products {products:?}", page::adapter_name(&ctx).await);
    let elements: usize = page::param("elems").and_then(|n| n.parse().ok()).unwrap_or(1 << 22);
    let round_trip = page::param("roundtrip");
    let round_trips =
        if round_trip.as_deref() == Some("no") { Vec::new() } else { roundtrip::measure(&ctx, elements).await? };
    if round_trip.as_deref() == Some("only") {
        return Ok((adapter, elements, Vec::new(), round_trips));
    }
    let (op_wanted, dtype_wanted) = (wanted("ops"), wanted("dtypes"));
    let mut rows = Vec::new();
    for op in ops::UNARY_OPS.iter().filter(|op| op_wanted(op.onnx_name)) {
        let newest = op.versions.last().map_or(&[][..], |v| v.dtypes);
        for &dtype in newest.iter().filter(|d| dtype_wanted(&d.to_string())) {
            page::set_text("bench", &format!("measuring {} {dtype}…", op.onnx_name));
            page::yield_to_browser().await;
            let n = elements_for(&ctx, dtype, elements);
            let steps = |_: &Context| Ok(vec![Activation::with_defaults(op)]);
            rows.push(match dtype {
                DType::BF16 => measure::<half::bf16>(&ctx, op.onnx_name, n, steps).await?,
                DType::F16 => measure::<half::f16>(&ctx, op.onnx_name, n, steps).await?,
                DType::F32 => measure::<f32>(&ctx, op.onnx_name, n, steps).await?,
                _ => measure::<f64>(&ctx, op.onnx_name, n, steps).await?,
            });
            if op.onnx_name == "Elu" && dtype == DType::F32 {
                rows.push(measure_plain(&ctx, roundtrip::Op::Elu, n).await?);
            }
        }
    }
    for op in ops::AXIS_OPS.iter().filter(|op| op_wanted(op.onnx_name)) {
        for dtype in [DType::F16, DType::F32].into_iter().filter(|d| dtype_wanted(&d.to_string())) {
            page::set_text("bench", &format!("measuring {} {dtype}…", op.onnx_name));
            page::yield_to_browser().await;
            // 16-bit elements are computed in f32, native f16 or not.
            rows.push(match dtype {
                DType::F16 => measure_axis::<half::f16>(&ctx, op, elements).await?,
                _ => measure_axis::<f32>(&ctx, op, elements).await?,
            });
            if op.onnx_name == "Softmax" && dtype == DType::F32 {
                rows.push(measure_plain(&ctx, roundtrip::Op::Softmax, elements).await?);
            }
        }
    }
    let slope = |values: Vec<f32>| {
        move |ctx: &Context| {
            let tensor = ctx.upload(Array1::from_vec(values.clone()).view()).map_err(|e| e.to_string())?;
            Ok(vec![Activation::prelu(&tensor)])
        }
    };
    if op_wanted("PRelu") {
        page::set_text("bench", "measuring PRelu…");
        page::yield_to_browser().await;
        if dtype_wanted("f32") {
            rows.push(measure::<f32>(&ctx, "PRelu scalar slope", elements, slope(vec![0.25])).await?);
            rows.push(measure::<f32>(&ctx, "PRelu same-shape slope", elements, slope(vec![0.25; elements])).await?);
        }
        if dtype_wanted("i32") {
            rows.push(
                measure::<i32>(&ctx, "PRelu scalar slope", elements, |ctx: &Context| {
                    let tensor = ctx.upload(Array1::from_vec(vec![-3i32]).view()).map_err(|e| e.to_string())?;
                    Ok(vec![Activation::prelu(&tensor)])
                })
                .await?,
            );
        }
    }
    Ok((adapter, elements, rows, round_trips))
}

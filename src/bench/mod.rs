//! The benchmark harness behind `wgpu-act bench` and `cargo bench` (feature `bench`).
//!
//! In one process it measures, alternating each case with its reference so that drift hits
//! both: a copy kernel over the same bytes (the engine's own driver with an empty chain: the
//! same vectorised dispatch scheme as every operator) against every (operator, dtype) kernel on
//! device tensors and PRelu's slope patterns; fused chains against the same steps unfused; and
//! the host path (`leaky_relu(&ctx, x)`, array in and out) against a minimal hand-written wgpu
//! program on the same device, with the CPU reference's time and the call's peak resident
//! memory. Kernel times come from timestamp queries where the adapter has them, otherwise from
//! submit to completion. Every figure is a median.

mod compile;
mod plain;
mod raw;

use std::fmt::Write as _;
use std::time::Instant;

use crate::dtype::DType;
use crate::engine::{Context, ContextOptions, GpuTensor, Job, JobStep, KeepAlive, SlopeWindow};
use crate::ops::{ELU, LEAKY_RELU, Step, UNARY_OPS, UnaryOp};

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Operators by command-line name (`leaky-relu`, `elu`, `prelu`); empty: all.
    pub ops: Vec<String>,
    /// Element types; empty: all.
    pub dtypes: Vec<DType>,
    /// Elements per tensor (a multiple of 64 gives every PRelu pattern).
    pub elems: usize,
    /// Measurements per case; medians are reported.
    pub iterations: usize,
    /// Print JSON instead of tables.
    pub json: bool,
    /// Also write the JSON report to this file (`cargo xtask bench` reads it to compare the
    /// ratios with those recorded in BENCHMARKS.md).
    pub json_file: Option<std::path::PathBuf>,
    /// Kernel shapes (invocations, vectors per invocation) to compare on f32 copy and LeakyRelu.
    pub shapes: Vec<(u32, u32)>,
    /// The device's nominal memory bandwidth in GB/s (from its data sheet: wgpu cannot tell),
    /// to report the copy kernel and LeakyRelu f32 as shares of it (the target on a GPU:
    /// LeakyRelu f32 at 85% or more).
    pub nominal_gbps: Option<f64>,
    /// Instead of speeds, what each selected kernel's first use costs: the WGSL, the pipeline
    /// and the driver's compile (measure with a cold driver cache: `cargo xtask compile-times`).
    pub compile_times: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            ops: Vec::new(),
            dtypes: Vec::new(),
            elems: 1 << 24,
            iterations: 11,
            json: false,
            json_file: None,
            shapes: Vec::new(),
            nominal_gbps: None,
            compile_times: false,
        }
    }
}

/// One kernel case against the copy kernel over the same bytes.
#[derive(Debug, Clone)]
struct KernelRow {
    op: &'static str,
    dtype: DType,
    pattern: &'static str,
    seconds: f64,
    bytes: u64,
    copy_seconds: f64,
    copy_bytes: u64,
    target: Option<f64>,
    /// The first and third quartiles of the ratio over the alternating pairs: the run's own
    /// noise.
    ratio_quartiles: (f64, f64),
    /// For an f32 unary kernel: the spec's body in plain f32 (`plain`), its ratio to the same
    /// plain program's copy.
    plain_body_ratio: Option<f64>,
}

impl KernelRow {
    fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds / 1e9
    }

    fn copy_gbps(&self) -> f64 {
        self.copy_bytes as f64 / self.copy_seconds / 1e9
    }

    fn ratio(&self) -> f64 {
        self.gbps() / self.copy_gbps()
    }
}

/// A chain fused against the same steps as separate kernels.
#[derive(Debug, Clone)]
struct FusedRow {
    chain: String,
    fused: f64,
    unfused: f64,
    target: f64,
}

/// The host path against the minimal wgpu program.
#[derive(Debug, Clone, Default)]
struct HostRow {
    elems: usize,
    in_place: bool,
    ours: f64,
    raw: f64,
    cpu: Option<f64>,
    peak_ours: Option<u64>,
    peak_raw: Option<u64>,
}

#[derive(Debug, Clone)]
struct ShapeRow {
    workgroup_size: u32,
    vectors_per_invocation: u32,
    copy_gbps: f64,
    leaky_relu_gbps: f64,
}

/// Everything one run measured.
struct Report {
    adapter: String,
    backend: String,
    on_cpu: bool,
    timing: &'static str,
    config: BenchConfig,
    /// The representation each measured dtype ran on (`wgpu-act --native/--emulated` pick).
    paths: Vec<(DType, String)>,
    /// What the probe found of subnormals, and which products the f32 arithmetic takes (two
    /// passes on a device that flushes them: the first cost to look at where f32 kernels lag).
    subnormals: String,
    /// The driver's form: whole workgroups in straight-line code, or every Vector in a loop
    /// (`ContextOptions::with_straight_line`).
    driver: String,
    kernels: Vec<KernelRow>,
    fused: Vec<FusedRow>,
    host: Vec<HostRow>,
    shapes: Vec<ShapeRow>,
}

/// Runs the benchmarks and prints the report (tables, or JSON).
pub fn run(options: &ContextOptions, config: &BenchConfig) -> Result<(), String> {
    if config.compile_times {
        println!("{}", compile::compile_times(options, &config.ops, &config.dtypes)?);
        return Ok(());
    }
    let report = measure(options, config)?;
    println!("{}", if config.json { report.json() } else { report.tables() });
    if let Some(file) = &config.json_file {
        std::fs::write(file, report.json()).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

fn measure(options: &ContextOptions, config: &BenchConfig) -> Result<Report, String> {
    let ctx = Context::new(options.clone()).map_err(|e| e.to_string())?;
    let meter = Meter::new(&ctx);
    let n = config.elems.max(64);
    let wanted_op = |name: &str| config.ops.is_empty() || config.ops.iter().any(|o| o == name);
    let dtypes: Vec<DType> = if config.dtypes.is_empty() { DType::ALL.to_vec() } else { config.dtypes.clone() };
    let runnable = |d: &DType| ctx.repr(*d).is_some();
    let mut kernels = Vec::new();
    for op in UNARY_OPS {
        if !wanted_op(op.cli_name) {
            continue;
        }
        for &dtype in dtypes.iter().filter(|d| op.accepts(**d) && runnable(d)) {
            for (_, attributes, choice) in op.kernel_variants() {
                progress(&format!("{} {dtype} {choice}", op.onnx_name));
                let target = Some(op.speed_target.for_dtype(dtype, meter.on_cpu));
                kernels.push(meter.unary_row(op, (attributes, choice), dtype, n, config.iterations, target)?);
            }
        }
    }
    if wanted_op(crate::ops::PRELU.cli_name) {
        for &dtype in dtypes.iter().filter(|d| crate::ops::accepts(crate::ops::PRELU.versions, **d) && runnable(d)) {
            for (pattern, x_shape, slope_shape) in prelu_shapes(n) {
                let common = matches!(pattern, "scalar" | "[C,1,1]" | "same shape");
                if !common && dtype != DType::F32 {
                    continue;
                }
                progress(&format!("PRelu {dtype} {pattern}"));
                let target = common.then_some(0.90);
                kernels.push(meter.prelu_row(dtype, pattern, &x_shape, &slope_shape, config.iterations, target)?);
            }
        }
    }
    for op in crate::ops::AXIS_OPS.iter().filter(|op| wanted_op(op.cli_name)) {
        for &dtype in dtypes.iter().filter(|d| matches!(d, DType::F32 | DType::F16) && runnable(d)) {
            for (pattern, shape, axis, target) in axis_shapes(n) {
                if dtype != DType::F32 && pattern != "rows of 1000" {
                    continue;
                }
                progress(&format!("{} {dtype} {pattern}", op.onnx_name));
                kernels.push(meter.axis_row(op, dtype, (pattern, &shape, axis), config.iterations, target)?);
            }
        }
    }
    if wanted_op(crate::ops::SWIGLU.cli_name) {
        for &dtype in dtypes.iter().filter(|d| matches!(d, DType::F32 | DType::F16 | DType::BF16) && runnable(d)) {
            progress(&format!("SwiGLU {dtype}"));
            // As Swish's kernel of the same arithmetic, an input more.
            kernels.push(meter.gated_row(dtype, n, config.iterations, Some(SWISH_TARGET))?);
        }
    }
    let mut fused = Vec::new();
    if runnable(&DType::F32) {
        progress("fused chains");
        let leaky = [(&LEAKY_RELU, 0.1f32), (&LEAKY_RELU, 0.2), (&LEAKY_RELU, 0.3)];
        fused.push(meter.fused_row("3 x LeakyRelu f32", &leaky, n, config.iterations, 2.5)?);
        let mixed = [(&ELU, 1.0f32), (&LEAKY_RELU, 0.2), (&ELU, 0.5)];
        fused.push(meter.fused_row("Elu -> LeakyRelu -> Elu f32", &mixed, n, config.iterations, 1.0)?);
    }
    progress("host path");
    // The minimal program binds the whole array: at most the device's binding limit.
    let binding_elems = ctx.info().limits.max_storage_buffer_binding_size as usize / 16 * 4;
    let host_n = n.min(binding_elems);
    let host = vec![
        meter.host_row(host_n, config.iterations, false, true)?,
        meter.host_row(host_n, config.iterations, true, true)?,
        meter.host_row(1024, config.iterations.max(50), false, false)?,
    ];
    let mut shapes = Vec::new();
    for &(size, vectors) in &config.shapes {
        progress(&format!("kernel shape {size} x {vectors}"));
        let shaped = Context::new(options.clone().with_kernel_shape(size, vectors)).map_err(|e| e.to_string())?;
        let m = Meter::new(&shaped);
        let row =
            m.unary_row(&LEAKY_RELU, (LEAKY_RELU.default_attributes(), ""), DType::F32, n, config.iterations, None)?;
        shapes.push(ShapeRow {
            workgroup_size: shaped.inner.tuning.workgroup_size,
            vectors_per_invocation: shaped.inner.tuning.vectors_per_invocation,
            copy_gbps: row.copy_gbps(),
            leaky_relu_gbps: row.gbps(),
        });
    }
    let info = &ctx.info().adapter;
    let paths = dtypes.iter().filter(|d| runnable(d)).map(|&d| (d, ctx.dtype_path(d).to_string())).collect();
    let products = match (ctx.info().subnormal_products_on_integers, ctx.info().subnormal_products_in_two_passes) {
        (true, true) => {
            "f32 products exact: the float unit's, flagged, then the flagged Vectors on integers (two passes)"
        }
        (true, false) if ctx.info().subnormal_products_guarded => {
            "f32 products exact: checked where a step's input lies outside its plain range (one pass)"
        }
        (true, false) => "f32 products exact: each checked, the rare flagged one on integers (one pass)",
        (false, _) => "f32 products on the float unit (one pass)",
    };
    let subnormals = format!("{}; {products}", ctx.info().subnormals);
    let straight_line = "whole workgroups in straight-line code, the Vectors after them in a loop";
    let driver = if ctx.inner.tuning.straight_line && ctx.inner.options.straight_line.is_none() {
        format!(
            "from {} workgroups, {straight_line}; smaller tensors and f64: every Vector in a loop",
            crate::engine::STRAIGHT_LINE_MIN_WORKGROUPS
        )
    } else if ctx.inner.tuning.straight_line {
        format!("{straight_line} (f64: every Vector in a loop)")
    } else {
        "every Vector in a loop".to_string()
    };
    Ok(Report {
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        on_cpu: meter.on_cpu,
        timing: if meter.query.is_some() { "timestamp queries" } else { "submit to completion" },
        config: BenchConfig { elems: n, ..config.clone() },
        paths,
        subnormals,
        driver,
        kernels,
        fused,
        host,
        shapes,
    })
}

/// SwiGLU's target: Swish's (the elementwise kernel of its arithmetic), on a GPU.
const SWISH_TARGET: f64 = 0.90;

/// The rows the bench takes Softmax, LogSoftmax and Hardmax over: (label, shape, axis, target).
/// The targets are the issue's: one read and one write for rows that fit a workgroup, two reads
/// for longer ones, an axis that is not the last as fast as the last.
fn axis_shapes(n: usize) -> Vec<(&'static str, Vec<usize>, i64, Option<f64>)> {
    vec![
        ("rows of 8", vec![(n / 8).max(1), 8], -1, Some(0.70)),
        ("rows of 1000", vec![(n / 1000).max(1), 1000], -1, Some(0.80)),
        ("rows of 2^16", vec![(n >> 16).max(1), 1 << 16], -1, Some(0.60)),
        ("axis 1 of [N, 1000, 8]", vec![(n / 8000).max(1), 1000, 8], 1, Some(0.80)),
    ]
}

fn progress(what: &str) {
    eprintln!("bench: {what}");
}

/// PRelu's slope patterns over `n` elements: (name, X shape, slope shape).
fn prelu_shapes(n: usize) -> Vec<(&'static str, Vec<usize>, Vec<usize>)> {
    let c = if n.is_multiple_of(64 * 64 * 64) {
        64
    } else if n.is_multiple_of(64) {
        4
    } else {
        0
    };
    if c == 0 {
        return vec![("scalar", vec![n], vec![1]), ("same shape", vec![n], vec![n])];
    }
    let b = n / (c * c * c);
    vec![
        ("scalar", vec![b, c, c, c], vec![1]),
        ("[C,1,1]", vec![b, c, c, c], vec![c, 1, 1]),
        ("last dim", vec![b, c, c, c], vec![c]),
        ("same shape", vec![b, c, c, c], vec![b, c, c, c]),
        ("rank-6 mixed", vec![b, c, c / 2, 2, c / 2, 2], vec![b, 1, c / 2, 1, c / 2, 1]),
    ]
}

/// Deterministic sample data of `dtype`: values in [-4, 4] for floats, any bits for integers.
fn sample_bytes(dtype: DType, len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut unit = move || (next() >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0;
    let mut bytes = Vec::with_capacity(len * dtype.size_bytes());
    for _ in 0..len {
        let v = unit();
        match dtype {
            DType::BF16 => bytes.extend_from_slice(&half::bf16::from_f64(v).to_le_bytes()),
            DType::F16 => bytes.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
            DType::F32 => bytes.extend_from_slice(&(v as f32).to_le_bytes()),
            DType::F64 => bytes.extend_from_slice(&v.to_le_bytes()),
            DType::I8 | DType::U8 => bytes.extend_from_slice(&((v * 30.0) as i8).to_le_bytes()),
            DType::I16 | DType::U16 => bytes.extend_from_slice(&((v * 8000.0) as i16).to_le_bytes()),
            DType::I32 | DType::U32 => bytes.extend_from_slice(&((v * 1e9) as i32).to_le_bytes()),
            DType::I64 | DType::U64 => bytes.extend_from_slice(&((v * 1e18) as i64).to_le_bytes()),
        }
    }
    bytes
}

/// Timestamp queries, when the adapter has them.
struct Queries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    period: f64,
}

/// Pairs of timestamps one measurement may write.
const MAX_PAIRS: u32 = 4;

/// How long the untimed runs before a timed one keep the device busy, at least.
const PREHEAT_SECONDS: f64 = 1e-3;

/// How long a GPU runs both sides of a row back to back before they are timed. While the bench
/// prepares a row on the CPU the GPU idles and lowers its clocks, and a timed run of a
/// millisecond does not bring them back: on an H200 the SM clock fell from 1980 to 345 MHz a
/// few seconds into a run and stayed there (nvidia-smi, every 250 ms), and the copy kernel took
/// 2.5 times as long from then on (the in-process slowdown of BENCHMARKS.md).
const CLOCK_RAMP_SECONDS: f64 = 0.3;

struct Meter<'a> {
    ctx: &'a Context,
    query: Option<Queries>,
    on_cpu: bool,
}

type Record<'r> =
    dyn Fn(&mut wgpu::CommandEncoder, Option<(&wgpu::QuerySet, u32)>, &mut KeepAlive) -> crate::Result<u32> + 'r;

impl<'a> Meter<'a> {
    fn new(ctx: &'a Context) -> Self {
        let device = ctx.device();
        let query = ctx.info().features.contains(wgpu::Features::TIMESTAMP_QUERY).then(|| {
            let bytes = u64::from(MAX_PAIRS) * 16;
            let buffer = |usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("bench.timestamps"),
                    size: bytes,
                    usage,
                    mapped_at_creation: false,
                })
            };
            Queries {
                set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("bench.timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: MAX_PAIRS * 2,
                }),
                resolve: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
                read: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
                period: f64::from(ctx.queue().get_timestamp_period()),
            }
        });
        Meter { ctx, query, on_cpu: ctx.info().adapter.device_type == wgpu::DeviceType::Cpu }
    }

    /// Seconds the work `record` records takes: the sum of its timestamp pairs, or submit to
    /// completion. With timestamps, `preheat` untimed runs go first in the same submission, so
    /// that a kernel of tens of microseconds is timed on a busy device, not one that idled
    /// since the last submission (a millisecond is too short for a GPU's clocks to rise again:
    /// [`CLOCK_RAMP_SECONDS`]).
    fn once(&self, record: &Record<'_>, preheat: u32) -> Result<f64, String> {
        let device = self.ctx.device();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench") });
        let mut keep = KeepAlive::default();
        if self.query.is_some() {
            for _ in 0..preheat {
                record(&mut encoder, None, &mut keep).map_err(|e| e.to_string())?;
            }
        }
        let pairs =
            record(&mut encoder, self.query.as_ref().map(|q| (&q.set, 0)), &mut keep).map_err(|e| e.to_string())?;
        if let Some(q) = &self.query {
            encoder.resolve_query_set(&q.set, 0..pairs * 2, &q.resolve, 0);
            encoder.copy_buffer_to_buffer(&q.resolve, 0, &q.read, 0, u64::from(pairs) * 16);
        }
        let started = Instant::now();
        self.ctx.queue().submit([encoder.finish()]);
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        let wall = started.elapsed().as_secs_f64();
        drop(keep);
        let Some(q) = &self.query else { return Ok(wall) };
        q.read.map_async(wgpu::MapMode::Read, .., |_| {});
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        let ticks: Vec<u64> = {
            let view = q.read.get_mapped_range(..).map_err(|e| e.to_string())?;
            bytemuck::pod_collect_to_vec(&view[..pairs as usize * 16])
        };
        q.read.unmap();
        let total: u64 = ticks.chunks_exact(2).map(|p| p[1].saturating_sub(p[0])).sum();
        Ok(total as f64 * q.period * 1e-9)
    }

    /// Medians of `a` and `b`, measured alternately after one warm-up run of each.
    fn alternate(&self, iterations: usize, a: &Record<'_>, b: &Record<'_>) -> Result<(f64, f64), String> {
        self.alternate_pairs(iterations, a, b).map(|pairs| pairs.medians())
    }

    /// Every alternating pair of `a` and `b`'s times, after one warm-up run of each and, on a
    /// GPU, [`CLOCK_RAMP_SECONDS`] of both back to back; each timed run preceded by enough
    /// untimed ones to keep the device busy for about a millisecond.
    fn alternate_pairs(&self, iterations: usize, a: &Record<'_>, b: &Record<'_>) -> Result<Pairs, String> {
        let runs = |busy: f64, seconds: f64| (busy / seconds.max(1e-7)).ceil().clamp(1.0, 64.0) as u32 - 1;
        let (first_a, first_b) = (self.once(a, 0)?, self.once(b, 0)?);
        let (preheat_a, preheat_b) = (runs(PREHEAT_SECONDS, first_a), runs(PREHEAT_SECONDS, first_b));
        if !self.on_cpu {
            let (ramp_a, ramp_b) = (runs(CLOCK_RAMP_SECONDS / 8.0, first_a), runs(CLOCK_RAMP_SECONDS / 8.0, first_b));
            let ramp = Instant::now();
            while ramp.elapsed().as_secs_f64() < CLOCK_RAMP_SECONDS {
                self.once(a, ramp_a)?;
                self.once(b, ramp_b)?;
            }
        }
        let mut pairs = Pairs::default();
        for _ in 0..iterations.max(1) {
            pairs.a.push(self.once(a, preheat_a)?);
            pairs.b.push(self.once(b, preheat_b)?);
        }
        Ok(pairs)
    }

    /// A kernel row from `a` (the kernel) alternating with `b` (the copy kernel).
    fn kernel_row(
        &self,
        (op, dtype, pattern): (&'static str, DType, &'static str),
        iterations: usize,
        (kernel, copy): (&Record<'_>, &Record<'_>),
        (bytes, copy_bytes): (u64, u64),
        target: Option<f64>,
    ) -> Result<KernelRow, String> {
        let pairs = self.alternate_pairs(iterations, kernel, copy)?;
        let scale = bytes as f64 / copy_bytes as f64;
        let mut ratios: Vec<f64> = pairs.a.iter().zip(&pairs.b).map(|(k, c)| scale * c / k).collect();
        let (seconds, copy_seconds) = pairs.medians();
        ratios.sort_by(f64::total_cmp);
        let ratio_quartiles = (ratios[ratios.len() / 4], ratios[(3 * ratios.len()) / 4]);
        Ok(KernelRow {
            op,
            dtype,
            pattern,
            seconds,
            bytes,
            copy_seconds,
            copy_bytes,
            target,
            ratio_quartiles,
            plain_body_ratio: None,
        })
    }

    fn tensor(&self, dtype: DType, shape: &[usize], seed: u64) -> Result<GpuTensor, String> {
        let len: usize = shape.iter().product();
        let tensor = self.ctx.new_tensor(shape, dtype, "bench.tensor").map_err(|e| e.to_string())?;
        self.ctx.write_tensor(&tensor, &sample_bytes(dtype, len, seed));
        Ok(tensor)
    }

    /// Records `steps` from `x` into `y` as one job.
    fn job<'s>(&'s self, x: &'s GpuTensor, y: &'s GpuTensor, steps: &'s [JobStep<'s>]) -> Box<Record<'s>> {
        Box::new(move |encoder, timestamps, keep| {
            let job = Job { x, y, steps, shape: x.shape(), element_base: 0 };
            self.ctx.encode_job(encoder, &job, keep, timestamps)?;
            Ok(1)
        })
    }

    /// `op` with `attributes` against the copy kernel; `choice` names a STRING attribute's
    /// non-default choice in the row.
    fn unary_row(
        &self,
        op: &'static UnaryOp,
        (attributes, choice): (crate::ops::Attributes, &'static str),
        dtype: DType,
        n: usize,
        iterations: usize,
        target: Option<f64>,
    ) -> Result<KernelRow, String> {
        let x = self.tensor(dtype, &[n], 1)?;
        let y = self.tensor(dtype, &[n], 2)?;
        let steps = [Step::Unary(op, attributes)];
        let bytes = 2 * x.size_bytes();
        let mut row = self.kernel_row(
            (op.onnx_name, dtype, choice),
            iterations,
            (&self.job(&x, &y, &steps), &self.job(&x, &y, &[])),
            (bytes, bytes),
            target,
        )?;
        if dtype == DType::F32 {
            row.plain_body_ratio = self.plain_body_ratio(op, &attributes, (&x, &y), iterations)?;
        }
        Ok(row)
    }

    /// The spec's body of `op` in plain f32 (`plain`) against the same program's copy,
    /// alternating: the copy's time over the body's. `None` where the body does not translate.
    fn plain_body_ratio(
        &self,
        op: &UnaryOp,
        attributes: &crate::ops::Attributes,
        tensors: (&GpuTensor, &GpuTensor),
        iterations: usize,
    ) -> Result<Option<f64>, String> {
        let Some(body) = plain::body_wgsl(op, attributes) else { return Ok(None) };
        let label = format!("bench.plain.{}", op.cli_name);
        let (Some(program), Some(copy)) = (
            plain::PlainProgram::new(self.ctx, &label, &body, tensors, attributes),
            plain::PlainProgram::new(self.ctx, "bench.plain.copy", "x", tensors, attributes),
        ) else {
            return Ok(None);
        };
        fn record(program: &plain::PlainProgram) -> Box<Record<'_>> {
            Box::new(move |encoder, timestamps, _| {
                program.encode(encoder, timestamps);
                Ok(1)
            })
        }
        let (body_seconds, copy_seconds) = self.alternate(iterations, &record(&program), &record(&copy))?;
        Ok(Some(copy_seconds / body_seconds))
    }

    fn prelu_row(
        &self,
        dtype: DType,
        pattern: &'static str,
        x_shape: &[usize],
        slope_shape: &[usize],
        iterations: usize,
        target: Option<f64>,
    ) -> Result<KernelRow, String> {
        let x = self.tensor(dtype, x_shape, 3)?;
        let y = self.tensor(dtype, x_shape, 4)?;
        let slope = self.tensor(dtype, slope_shape, 5)?;
        let steps = [Step::Prelu(SlopeWindow::whole(&slope))];
        self.kernel_row(
            ("PRelu", dtype, pattern),
            iterations,
            (&self.job(&x, &y, &steps), &self.job(&x, &y, &[])),
            (2 * x.size_bytes() + slope.size_bytes(), 2 * x.size_bytes()),
            target,
        )
    }

    /// `op` over `axis` of a tensor of `shape` against the copy kernel over the same bytes.
    fn axis_row(
        &self,
        op: &'static crate::ops::AxisOp,
        dtype: DType,
        (pattern, shape, axis): (&'static str, &[usize], i64),
        iterations: usize,
        target: Option<f64>,
    ) -> Result<KernelRow, String> {
        let x = self.tensor(dtype, shape, 6)?;
        let y = self.tensor(dtype, shape, 7)?;
        let kernel: Box<Record<'_>> = Box::new(|encoder, timestamps, _keep| {
            self.ctx.encode_axis_timed(encoder, (op, axis, None), &x, &y, timestamps)?;
            Ok(1)
        });
        let bytes = 2 * x.size_bytes();
        self.kernel_row(
            (op.onnx_name, dtype, pattern),
            iterations,
            (&kernel, &self.job(&x, &y, &[])),
            (bytes, bytes),
            target,
        )
    }

    /// SwiGLU of two tensors of `n` elements against the copy kernel over the bytes it moves
    /// (two reads and a write against a read and a write: the copy's bytes scaled).
    fn gated_row(&self, dtype: DType, n: usize, iterations: usize, target: Option<f64>) -> Result<KernelRow, String> {
        let a = self.tensor(dtype, &[n], 8)?;
        let b = self.tensor(dtype, &[n], 9)?;
        let y = self.tensor(dtype, &[n], 10)?;
        let kernel: Box<Record<'_>> = Box::new(|encoder, timestamps, _keep| {
            self.ctx.encode_swiglu_timed(encoder, (&a, &b, 1.0), &y, timestamps)?;
            Ok(1)
        });
        let bytes = a.size_bytes();
        self.kernel_row(
            ("SwiGLU", dtype, ""),
            iterations,
            (&kernel, &self.job(&a, &y, &[])),
            (3 * bytes, 2 * bytes),
            target,
        )
    }

    fn fused_row(
        &self,
        name: &str,
        chain: &[(&'static UnaryOp, f32)],
        n: usize,
        iterations: usize,
        target: f64,
    ) -> Result<FusedRow, String> {
        let x = self.tensor(DType::F32, &[n], 6)?;
        let y = self.tensor(DType::F32, &[n], 7)?;
        let steps: Vec<JobStep<'_>> =
            chain.iter().map(|&(op, alpha)| Step::Unary(op, [alpha, 0.0, 0.0, 0.0])).collect();
        let unfused: Box<Record<'_>> = Box::new(|encoder, timestamps, keep| {
            for (i, step) in steps.iter().enumerate() {
                let source = if i == 0 { &x } else { &y };
                let job =
                    Job { x: source, y: &y, steps: std::slice::from_ref(step), shape: x.shape(), element_base: 0 };
                self.ctx.encode_job(encoder, &job, keep, timestamps.map(|(set, _)| (set, 2 * i as u32)))?;
            }
            Ok(steps.len() as u32)
        });
        let (fused, unfused) = self.alternate(iterations, &self.job(&x, &y, &steps), &unfused)?;
        Ok(FusedRow { chain: name.into(), fused, unfused, target })
    }

    /// `leaky_relu(&ctx, x, 0.01)` on a host array of `n` f32 (a new array, or in place)
    /// against the minimal program doing the same, alternately.
    fn host_row(&self, n: usize, iterations: usize, in_place: bool, with_memory: bool) -> Result<HostRow, String> {
        let n = n.next_multiple_of(4);
        let x: Vec<f32> = bytemuck::pod_collect_to_vec(&sample_bytes(DType::F32, n, 8));
        let program = raw::RawLeakyRelu::new(self.ctx.device(), self.ctx.queue(), n, 0.01);
        let (device, queue) = (self.ctx.device(), self.ctx.queue());
        let step = [crate::Activation::leaky_relu(0.01)];
        let mut ours_data = x.clone();
        let mut raw_data = x.clone();
        let mut ours = || -> Result<(), String> {
            if in_place {
                crate::activations_in_place(self.ctx, &step, ndarray::ArrayViewMut1::from(&mut ours_data[..]))
                    .map_err(|e| e.to_string())
            } else {
                let y = crate::leaky_relu(self.ctx, ndarray::ArrayView1::from(&x), 0.01).map_err(|e| e.to_string())?;
                std::hint::black_box(y);
                Ok(())
            }
        };
        let mut raw_call = || {
            if in_place {
                program.run_in_place(device, queue, &mut raw_data);
            } else {
                std::hint::black_box(program.run(device, queue, &x));
            }
        };
        ours()?;
        raw_call();
        let (mut t_ours, mut t_raw) = (Vec::new(), Vec::new());
        for _ in 0..iterations.max(1) {
            let started = Instant::now();
            ours()?;
            t_ours.push(started.elapsed().as_secs_f64());
            let started = Instant::now();
            raw_call();
            t_raw.push(started.elapsed().as_secs_f64());
        }
        let mut row =
            HostRow { elems: n, in_place, ours: median(&mut t_ours), raw: median(&mut t_raw), ..HostRow::default() };
        if with_memory {
            let mut t_cpu = Vec::new();
            for _ in 0..iterations.clamp(1, 5) {
                let started = Instant::now();
                std::hint::black_box(crate::cpu::leaky_relu(ndarray::ArrayView1::from(&x), 0.01));
                t_cpu.push(started.elapsed().as_secs_f64());
            }
            row.cpu = Some(median(&mut t_cpu));
            row.peak_ours = peak_during(|| {
                let _ = ours();
            });
            row.peak_raw = peak_during(&mut raw_call);
        }
        Ok(row)
    }
}

/// Times of two cases measured alternately.
#[derive(Default)]
struct Pairs {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Pairs {
    fn medians(mut self) -> (f64, f64) {
        (median(&mut self.a), median(&mut self.b))
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Bytes the resident set grew to above where it was while `work` ran (Linux: VmHWM after
/// resetting it through /proc/self/clear_refs); `None` elsewhere.
fn peak_during(work: impl FnOnce()) -> Option<u64> {
    let status = |field: &str| -> Option<u64> {
        let text = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = text.lines().find(|l| l.starts_with(field))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
    };
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    let before = status("VmRSS:")?;
    work();
    Some(status("VmHWM:")?.saturating_sub(before))
}

fn verdict(met: bool) -> &'static str {
    if met { "yes" } else { "no" }
}

/// LeakyRelu f32's share of the nominal bandwidth that meets the target on a GPU.
const NOMINAL_TARGET: f64 = 0.85;

impl Report {
    /// With a nominal bandwidth: (nominal GB/s, copy's share, LeakyRelu f32's share) from the
    /// LeakyRelu f32 row, when that row was measured.
    fn nominal_shares(&self) -> Option<(f64, f64, f64)> {
        let nominal = self.config.nominal_gbps?;
        let row = self.kernels.iter().find(|r| r.op == LEAKY_RELU.onnx_name && r.dtype == DType::F32)?;
        Some((nominal, row.copy_gbps() / nominal, row.gbps() / nominal))
    }

    fn tables(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "adapter: {} ({}), kernel timing: {}, {} elements, medians of {} alternating runs\n",
            self.adapter, self.backend, self.timing, self.config.elems, self.config.iterations
        );
        let paths: Vec<String> = self.paths.iter().map(|(dtype, path)| format!("{dtype}: {path}")).collect();
        let _ = writeln!(out, "dtype paths: {}\n", paths.join("; "));
        let _ = writeln!(out, "subnormals: {}\n", self.subnormals);
        let _ = writeln!(out, "driver: {}\n", self.driver);
        self.kernel_table(&mut out);
        self.nominal_table(&mut out);
        self.fused_table(&mut out);
        self.host_table(&mut out);
        self.shape_table(&mut out);
        out
    }

    /// Each kernel's speed against the copy kernel.
    fn kernel_table(&self, out: &mut String) {
        out.push_str(
            "| kernel | ratio to copy | GB/s | copy GB/s | ms | target | met | spec's body in plain f32 |\n|---|---|---|---|---|---|---|---|\n",
        );
        for row in &self.kernels {
            let name = if row.pattern.is_empty() {
                format!("{} {}", row.op, row.dtype)
            } else {
                format!("{} {} {}", row.op, row.dtype, row.pattern)
            };
            let (target, met) = match row.target {
                Some(t) => (format!(">= {t:.2}"), verdict(row.ratio() >= t)),
                None => ("-".into(), "-"),
            };
            let _ = writeln!(
                *out,
                "| {name} | {:.2} | {:.2} | {:.2} | {:.3} | {target} | {met} | {} |",
                row.ratio(),
                row.gbps(),
                row.copy_gbps(),
                row.seconds * 1e3,
                row.plain_body_ratio.map_or("-".into(), |r| format!("{r:.2}"))
            );
        }
    }

    /// The copy kernel and LeakyRelu f32 against the nominal bandwidth, when given.
    fn nominal_table(&self, out: &mut String) {
        match self.nominal_shares() {
            Some((nominal, copy, leaky)) => {
                let _ = writeln!(
                    *out,
                    "\n| against nominal bandwidth ({nominal:.0} GB/s) | share | target | met |\n|---|---|---|---|\n\
                     | copy kernel | {copy:.2} | - | - |\n\
                     | LeakyRelu f32 | {leaky:.2} | >= {NOMINAL_TARGET:.2} | {} |",
                    verdict(leaky >= NOMINAL_TARGET)
                );
            }
            None if self.config.nominal_gbps.is_some() => {
                out.push_str("\n(no LeakyRelu f32 row to compare with the nominal bandwidth)\n")
            }
            None => {}
        }
    }

    /// Fused chains against the same steps one kernel each.
    fn fused_table(&self, out: &mut String) {
        out.push_str(
            "\n| fused chain | unfused / fused | fused ms | unfused ms | target | met |\n|---|---|---|---|---|---|\n",
        );
        for row in &self.fused {
            let speedup = row.unfused / row.fused;
            let met = if row.target > 1.0 { speedup >= row.target } else { speedup > 1.0 };
            let target = if row.target > 1.0 { format!(">= {:.1}x", row.target) } else { "> 1x".into() };
            let _ = writeln!(
                *out,
                "| {} | {speedup:.2}x | {:.3} | {:.3} | {target} | {} |",
                row.chain,
                row.fused * 1e3,
                row.unfused * 1e3,
                verdict(met)
            );
        }
    }

    /// Host calls against a minimal wgpu program.
    fn host_table(&self, out: &mut String) {
        out.push_str("\n| host call (LeakyRelu f32) | ours / minimal wgpu program | ours ms | program ms | CPU reference ms | peak RSS ours | peak RSS program | target | met |\n|---|---|---|---|---|---|---|---|---|\n");
        for row in &self.host {
            let ratio = row.ours / row.raw;
            let mib = |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / (1 << 20) as f64));
            let cpu = row.cpu.map_or("-".into(), |c| format!("{:.3}", c * 1e3));
            let _ = writeln!(
                *out,
                "| {} elements, {} | {ratio:.2} | {:.3} | {:.3} | {cpu} | {} | {} | <= 1.20 | {} |",
                row.elems,
                if row.in_place { "in place" } else { "new array" },
                row.ours * 1e3,
                row.raw * 1e3,
                mib(row.peak_ours),
                mib(row.peak_raw),
                verdict(ratio <= 1.2)
            );
        }
    }

    /// Kernel shapes compared (`--shapes`).
    fn shape_table(&self, out: &mut String) {
        if !self.shapes.is_empty() {
            out.push_str(
                "\n| kernel shape (invocations x vectors) | copy GB/s | LeakyRelu f32 GB/s |\n|---|---|---|\n",
            );
            for s in &self.shapes {
                let _ = writeln!(
                    *out,
                    "| {} x {} | {:.2} | {:.2} |",
                    s.workgroup_size, s.vectors_per_invocation, s.copy_gbps, s.leaky_relu_gbps
                );
            }
        }
    }

    fn json(&self) -> String {
        use serde_json::json;
        let kernels: Vec<_> = self
            .kernels
            .iter()
            .map(|r| {
                json!({
                    "op": r.op, "dtype": r.dtype.name(), "pattern": r.pattern, "median_seconds": r.seconds,
                    "bytes": r.bytes, "gbps": r.gbps(), "copy_median_seconds": r.copy_seconds, "copy_gbps": r.copy_gbps(),
                    "ratio_to_copy": r.ratio(), "ratio_quartiles": [r.ratio_quartiles.0, r.ratio_quartiles.1], "target": r.target, "met": r.target.map(|t| r.ratio() >= t),
                    "plain_body_ratio_to_copy": r.plain_body_ratio,
                })
            })
            .collect();
        let fused: Vec<_> = self
            .fused
            .iter()
            .map(|r| {
                let speedup = r.unfused / r.fused;
                json!({"chain": r.chain, "fused_seconds": r.fused, "unfused_seconds": r.unfused, "speedup": speedup,
                       "target": r.target, "met": if r.target > 1.0 { speedup >= r.target } else { speedup > 1.0 }})
            })
            .collect();
        let host: Vec<_> = self
            .host
            .iter()
            .map(|r| {
                json!({"elements": r.elems, "in_place": r.in_place, "ours_seconds": r.ours, "program_seconds": r.raw, "ratio": r.ours / r.raw,
                       "cpu_reference_seconds": r.cpu, "peak_rss_bytes_ours": r.peak_ours, "peak_rss_bytes_program": r.peak_raw,
                       "target": 1.2, "met": r.ours / r.raw <= 1.2})
            })
            .collect();
        let shapes: Vec<_> = self
            .shapes
            .iter()
            .map(|s| json!({"workgroup_size": s.workgroup_size, "vectors_per_invocation": s.vectors_per_invocation, "copy_gbps": s.copy_gbps, "leaky_relu_gbps": s.leaky_relu_gbps}))
            .collect();
        let report = json!({
            "adapter": self.adapter, "backend": self.backend, "cpu_adapter": self.on_cpu, "kernel_timing": self.timing,
            "subnormals": self.subnormals, "driver": self.driver,
            "elements": self.config.elems, "iterations": self.config.iterations,
            "nominal_bandwidth": self.nominal_shares().map(|(gbps, copy, leaky)| json!({
                "gbps": gbps, "copy_share": copy, "leaky_relu_f32_share": leaky,
                "target": NOMINAL_TARGET, "met": leaky >= NOMINAL_TARGET,
            })),
            "dtype_paths": self.paths.iter().map(|(dtype, path)| (dtype.name().to_string(), json!(path))).collect::<serde_json::Map<_, _>>(),
            "kernels": kernels, "fused": fused, "host": host, "kernel_shapes": shapes,
        });
        serde_json::to_string_pretty(&report).unwrap_or_default()
    }
}

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
mod meter;
mod plain;
mod raw;

use meter::Meter;

use std::fmt::Write as _;

use crate::dtype::DType;
use crate::engine::{Context, ContextOptions};
use crate::ops::{ELU, LEAKY_RELU, UNARY_OPS};

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
        for &dtype in dtypes.iter().filter(|d| matches!(d, DType::F32 | DType::F16 | DType::F64) && runnable(d)) {
            for (pattern, shape, axis, target) in axis_shapes(n) {
                // f64: short rows (an invocation each) and long ones (a workgroup per chunk).
                let measured = match dtype {
                    DType::F32 => true,
                    DType::F64 => matches!(pattern, "rows of 8" | "rows of 1000"),
                    _ => pattern == "rows of 1000",
                };
                if !measured {
                    continue;
                }
                progress(&format!("{} {dtype} {pattern}", op.onnx_name));
                kernels.push(meter.axis_row(op, dtype, (pattern, &shape, axis), config.iterations, target)?);
            }
        }
    }
    if wanted_op(crate::ops::SWIGLU.cli_name) {
        for &dtype in dtypes.iter().filter(|d| d.is_float() && runnable(d)) {
            // As Swish's kernels of the same arithmetic, an input more: alpha 1's own kernel, and
            // the general one.
            let alpha_one = crate::ops::OwnKernel::ALPHA_ONE;
            for (values, label) in [(&[1.0f32][..], ""), alpha_one.general] {
                progress(&format!("SwiGLU {dtype} {label}"));
                let attributes = crate::ops::attributes_from(values);
                kernels.push(meter.gated_row(dtype, (&attributes, label), n, config.iterations, Some(SWISH_TARGET))?);
            }
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
    let subnormals =
        format!("{}; f32 products with subnormals {}", ctx.info().subnormals, ctx.info().subnormal_products());
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
        timing: meter.timing(),
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
        // An attention's rows (a sequence of 128): a GPU gives each row a segment of 32 invocations.
        ("rows of 128", vec![(n / 128).max(1), 128], -1, Some(0.80)),
        ("rows of 1000", vec![(n / 1000).max(1), 1000], -1, Some(0.80)),
        ("rows of 2^16", vec![(n >> 16).max(1), 1 << 16], -1, Some(0.60)),
        ("axis 1 of [N, 1000, 8]", vec![(n / 8000).max(1), 1000, 8], 1, Some(0.80)),
        ("axis 0 of [2^16, N]", vec![1 << 16, (n >> 16).max(1)], 0, Some(0.60)),
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

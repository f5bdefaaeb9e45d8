//! What a kernel's first use costs (`wgpu-act bench --compile-times`): for each kernel, the wall
//! time of its first run (the WGSL written and pruned, naga, the pipeline made, and on CPU
//! drivers the machine code compiled at the first dispatch) less that of its second. Run with
//! the driver's disk cache cold (`cargo xtask compile-times` points it at an empty folder), or a
//! kernel compiled by an earlier process costs nothing here.

use std::fmt::Write as _;
use std::time::Instant;

use super::{Meter, progress};
use crate::dtype::DType;
use crate::engine::{Context, ContextOptions, JobStep, KeepAlive, SlopeWindow};
use crate::ops::{GELU, MISH, SIGMOID, SOFTPLUS, SWISH, Step, UNARY_OPS};

/// Elements each measured run covers: enough for every pass a kernel has (main and tail).
const ELEMENTS: usize = 4096 + 12;

/// One kernel's first-use cost.
struct CompileRow {
    kernel: String,
    dtype: DType,
    first: f64,
    again: f64,
}

/// Measures the first-use cost of every selected operator's kernels, PRelu's, and of the
/// heaviest fused chain (five of the longest bodies) per dtype; returns a Markdown table.
pub(super) fn compile_times(options: &ContextOptions, ops: &[String], dtypes: &[DType]) -> Result<String, String> {
    let ctx = Context::new(options.clone()).map_err(|e| e.to_string())?;
    let meter = Meter::new(&ctx);
    let wanted = |name: &str| ops.is_empty() || ops.iter().any(|o| o == name);
    let dtypes: Vec<DType> = if dtypes.is_empty() { DType::ALL.to_vec() } else { dtypes.to_vec() };
    let mut rows = Vec::new();
    for &dtype in dtypes.iter().filter(|d| ctx.repr(**d).is_some()) {
        for op in UNARY_OPS.iter().filter(|op| wanted(op.cli_name) && op.accepts(dtype)) {
            for (_, attributes, choice) in op.kernel_variants() {
                let name =
                    if choice.is_empty() { op.onnx_name.to_string() } else { format!("{} {choice}", op.onnx_name) };
                rows.push(measure(&meter, name, dtype, &[Step::Unary(op, attributes)])?);
            }
        }
        if wanted(crate::ops::PRELU.cli_name) && crate::ops::accepts(crate::ops::PRELU.versions, dtype) {
            let slope = meter.tensor(dtype, &[ELEMENTS], 3)?;
            rows.push(measure(&meter, "PRelu same shape".into(), dtype, &[Step::Prelu(SlopeWindow::whole(&slope))])?);
        }
        let heaviest = [&GELU, &MISH, &SWISH, &SOFTPLUS, &SIGMOID];
        if heaviest.iter().all(|op| op.accepts(dtype) && wanted(op.cli_name)) {
            // Swish with alpha 1.702 (not its own alpha-1 kernel), Gelu in its erf form.
            let steps: Vec<JobStep<'_>> = heaviest
                .iter()
                .map(|op| {
                    let mut attributes = op.default_attributes();
                    if std::ptr::eq(*op, &SWISH) {
                        attributes[0] = 1.702;
                    }
                    Step::Unary(op, attributes)
                })
                .collect();
            rows.push(measure(&meter, "chain Gelu, Mish, Swish 1.702, Softplus, Sigmoid".into(), dtype, &steps)?);
        }
    }
    let info = &ctx.info().adapter;
    let mut table = format!(
        "First use of each kernel on {} ({:?}), {ELEMENTS} elements: the first run's wall time less the second's \
         (WGSL, naga, pipeline, and the driver's compile at the first dispatch)\n\n\
         | kernel | dtype | path | first use, s | again, ms |\n|---|---|---|---|---|\n",
        info.name, info.backend
    );
    for row in &rows {
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} | {:.2} |",
            row.kernel,
            row.dtype,
            ctx.dtype_path(row.dtype),
            row.first - row.again,
            row.again * 1e3
        );
    }
    if let Some(worst) = rows.iter().max_by(|a, b| (a.first - a.again).total_cmp(&(b.first - b.again))) {
        let _ = writeln!(table, "\nslowest: {} {} at {:.2} s", worst.kernel, worst.dtype, worst.first - worst.again);
    }
    Ok(table)
}

/// The wall time of `steps` run from a new tensor into another, the first time and the second.
fn measure(meter: &Meter<'_>, kernel: String, dtype: DType, steps: &[JobStep<'_>]) -> Result<CompileRow, String> {
    progress(&format!("first use: {kernel} {dtype}"));
    let x = meter.tensor(dtype, &[ELEMENTS], 1)?;
    let y = meter.tensor(dtype, &[ELEMENTS], 2)?;
    let record = meter.job(&x, &y, steps);
    let run = || -> Result<f64, String> {
        let started = Instant::now();
        let device = meter.ctx.device();
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench.compile") });
        let mut keep = KeepAlive::default();
        record(&mut encoder, None, &mut keep).map_err(|e| e.to_string())?;
        meter.ctx.queue().submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
        Ok(started.elapsed().as_secs_f64())
    };
    let first = run()?;
    let again = run()?;
    Ok(CompileRow { kernel, dtype, first, again })
}

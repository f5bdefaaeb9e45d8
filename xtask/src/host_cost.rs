//! `cargo xtask host-cost`: what a model of many distinct kernels costs before its first result.
//! Two models from `examples/chain_model.rs`, every sequence of LeakyRelu and Elu up to eight
//! steps, each one fused kernel: 510 chains on f32, and the same on f32, f16, bf16 and f64
//! (2,040). Each runs through `wgpu-act run` on lavapipe twice, first with the driver caches
//! emptied (a new machine: the driver compiles every kernel), then again with them warm (what
//! is left: the WGSL, naga, the pipeline), with the wall time and the process's peak resident
//! memory of each run.

use std::ffi::OsString;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use super::{Error, Result, child, cold_driver_caches, command_line, run, test_build};

/// The models: a name, the dtypes of its chains.
const MODELS: [(&str, &[&str]); 2] =
    [("510 chains, f32", &["f32"]), ("2,040 chains, f32 f16 bf16 f64", &["f32", "f16", "bf16", "f64"])];

pub(crate) fn host_cost(extra: &[OsString]) -> Result<ExitCode> {
    let Some(release) = test_build()? else { return Ok(ExitCode::FAILURE) };
    let generator = release.join("examples").join(format!("chain_model{}", std::env::consts::EXE_SUFFIX));
    let cli = release.join(format!("wgpu-act{}", std::env::consts::EXE_SUFFIX));
    let mut rows = Vec::new();
    for (index, (name, dtypes)) in MODELS.iter().enumerate() {
        let dir = release.parent().unwrap_or(&release).join("host-cost").join(format!("model{index}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut generate = Command::new(&generator);
        generate.arg(&dir).arg("--dtypes").arg(dtypes.join(",")).args(extra);
        if !run(&mut generate)?.success() {
            return Ok(ExitCode::FAILURE);
        }
        let mut runs = Vec::new();
        for cold in [true, false] {
            if cold {
                cold_driver_caches()?;
            }
            let out = dir.join("out");
            let _ = std::fs::remove_dir_all(&out);
            let mut model_run =
                child(cli.as_os_str(), &[("WGPU_BACKEND", "vulkan"), ("WGPU_ACT_REPORT_PEAK_MEMORY", "1")])?;
            model_run.arg("run").arg(dir.join("model.onnx")).arg("--output").arg(&out).stdout(Stdio::null());
            for dtype in *dtypes {
                model_run.arg("--input").arg(format!("X_{dtype}={}", dir.join(format!("X_{dtype}.pb")).display()));
            }
            println!("xtask: running: {}", command_line(&model_run));
            let start = Instant::now();
            let output = model_run.output().map_err(|e| Error(format!("could not start {}: {e}", cli.display())))?;
            let seconds = start.elapsed().as_secs_f64();
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !output.status.success() {
                eprint!("{stderr}");
                return Err(Error(format!("wgpu-act run failed on the model of {name}")));
            }
            let peak_kib: Option<f64> = stderr
                .lines()
                .find_map(|l| l.strip_prefix("wgpu-act: peak resident memory: "))
                .and_then(|v| v.trim_end_matches(" KiB").parse().ok());
            runs.push((seconds, peak_kib.map_or_else(|| "?".to_string(), |k| format!("{:.0}", k / 1024.0))));
        }
        rows.push(format!("| {name} | {:.1} | {} | {:.1} | {} |", runs[0].0, runs[0].1, runs[1].0, runs[1].1));
    }
    println!("\n| model (lavapipe, `wgpu-act run`) | cold, s | cold peak, MiB | warm, s | warm peak, MiB |");
    println!("|---|---|---|---|---|");
    rows.iter().for_each(|row| println!("{row}"));
    Ok(ExitCode::SUCCESS)
}

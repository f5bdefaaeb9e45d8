//! `cargo xtask host-cost`: what a model of many distinct chains costs before its first result.
//! Two models from `examples/chain_model.rs`, every sequence of LeakyRelu and Elu up to eight
//! steps: 510 chains on f32, and the same on f32, f16, bf16 and f64 (2,040). Each runs through
//! `wgpu-act run` on lavapipe in both forms of a chain's kernel, a kernel written per chain
//! (`--step-programs off`: 510 distinct kernels a dtype) and the default, step programs at this
//! size (one kernel per set of operators), each twice: first with the driver caches emptied (a new
//! machine: the driver compiles every kernel), then again with them warm (what is left: the
//! WGSL, naga, the pipeline). It gives the wall time and the process's peak resident memory of
//! each run, and fails unless both forms wrote the same bytes.

use std::ffi::OsString;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use super::drivers::cold_driver_caches;
use super::{Error, Result, child, command_line, run, test_build};

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
        let mut outputs = Vec::new();
        for (form, programs) in [("a kernel per chain", Some("off")), ("step programs (the default)", None)] {
            let out = dir.join(if programs.is_some() { "out-per-chain" } else { "out-default" });
            let mut runs = Vec::new();
            for cold in [true, false] {
                if cold {
                    cold_driver_caches()?;
                }
                let _ = std::fs::remove_dir_all(&out);
                let env = [("WGPU_BACKEND", "vulkan"), ("WGPU_ACT_REPORT_PEAK_MEMORY", "1")];
                let mut model_run = child(cli.as_os_str(), &env)?;
                model_run.arg("run").arg(dir.join("model.onnx")).arg("--output").arg(&out);
                if let Some(programs) = programs {
                    model_run.arg("--step-programs").arg(programs);
                }
                model_run.stdout(Stdio::null());
                for dtype in *dtypes {
                    model_run.arg("--input").arg(format!("X_{dtype}={}", dir.join(format!("X_{dtype}.pb")).display()));
                }
                println!("xtask: running: {}", command_line(&model_run));
                let start = Instant::now();
                let output =
                    model_run.output().map_err(|e| Error(format!("could not start {}: {e}", cli.display())))?;
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
            let (cold, warm) = (&runs[0], &runs[1]);
            rows.push(format!("| {name} | {form} | {:.1} | {} | {:.1} | {} |", cold.0, cold.1, warm.0, warm.1));
            outputs.push(read_outputs(&out)?);
        }
        if outputs[0] != outputs[1] || outputs[0].is_empty() {
            return Err(Error(format!("the two forms wrote different outputs for the model of {name}")));
        }
        println!("xtask: {name}: both forms wrote the same {} output files, byte for byte", outputs[0].len());
    }
    println!("\n| model (lavapipe, `wgpu-act run`) | kernels | cold, s | cold peak, MiB | warm, s | warm peak, MiB |");
    println!("|---|---|---|---|---|---|");
    rows.iter().for_each(|row| println!("{row}"));
    Ok(ExitCode::SUCCESS)
}

/// Every file of `dir` by name, with its bytes.
fn read_outputs(dir: &std::path::Path) -> Result<Vec<(OsString, Vec<u8>)>> {
    let read = |e: std::io::Error| Error(format!("could not read {}: {e}", dir.display()));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        files.push((entry.file_name(), std::fs::read(entry.path()).map_err(read)?));
    }
    files.sort();
    Ok(files)
}

//! The worked example: burn and wgpu-activations on one wgpu device, our kernels reading and
//! writing burn's tensors in place (`cargo run --release -p wgpu-activations-burn`); with
//! `bench [--rows N] [--iterations N] [--repeats N]`, our activations beside burn's own
//! (`cargo xtask bench-burn`).

use std::process::ExitCode;

use wgpu_activations_burn::side_by_side::{self, Precision};
use wgpu_activations_burn::{Shared, network};

/// The bench's settings: rows of 1024, calls per timing, alternating timings per side.
struct BenchArgs {
    rows: usize,
    iterations: usize,
    repeats: usize,
}

fn bench_args(args: &[String]) -> Result<BenchArgs, String> {
    let mut parsed = BenchArgs { rows: 4096, iterations: 4, repeats: 7 };
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number: usize = value.parse().map_err(|_| format!("{flag} {value}: not a count"))?;
        if number == 0 || number > 1 << 16 {
            return Err(format!("{flag} {value}: must lie in 1..=65536"));
        }
        match flag.as_str() {
            "--rows" => parsed.rows = number,
            "--iterations" => parsed.iterations = number,
            "--repeats" => parsed.repeats = number,
            _ => return Err(format!("unknown option {flag} (--rows, --iterations, --repeats)")),
        }
    }
    Ok(parsed)
}

fn bench(shared: &Shared, args: &BenchArgs) -> ExitCode {
    let info = shared.ctx.info();
    println!(
        "## burn 0.22.1 and wgpu-activations on {} ({:?}): {} x 1024 elements, {} calls a timing, medians of {}\n",
        info.adapter.name, info.adapter.backend, args.rows, args.iterations, args.repeats
    );
    let mut precisions = vec![Precision::F32];
    if shared.device.features().contains(wgpu::Features::SHADER_F16) {
        precisions.push(Precision::F16);
    } else {
        println!("(no f16 table: this device lacks shader-f16, which burn's f16 kernels need)\n");
    }
    for precision in precisions {
        match side_by_side::run(shared, precision, args.rows, args.iterations, args.repeats) {
            Ok(rows) => println!("{}", side_by_side::markdown(precision, &rows)),
            Err(error) => {
                eprintln!("burn bench: {precision:?}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_settings = match args.first().map(String::as_str) {
        None => None,
        Some("bench") => match bench_args(&args[1..]) {
            Ok(settings) => Some(settings),
            Err(error) => {
                eprintln!("burn example: {error}");
                return ExitCode::from(2);
            }
        },
        Some(other) => {
            eprintln!("burn example: unknown command {other:?} (none runs the network; bench compares with burn)");
            return ExitCode::from(2);
        }
    };
    let shared = match Shared::new() {
        Ok(shared) => shared,
        Err(error) => {
            eprintln!("burn example: {error}");
            return ExitCode::from(2);
        }
    };
    if let Some(settings) = bench_settings {
        return bench(&shared, &settings);
    }
    let info = shared.ctx.info();
    println!("burn and wgpu-activations on one device: {} ({:?})", info.adapter.name, info.adapter.backend);
    match network::run(&shared) {
        Ok(report) => {
            for step in &report.steps {
                println!(
                    "{:<48} {:>7} elements, worst {} ULP (bound {}), burn's buffer at offset {}",
                    step.step, step.elements, step.worst_ulp, step.bound, step.buffer_offset
                );
            }
            let worst_sum = report.row_sums.iter().map(|s| (s - 1.0).abs()).fold(0.0f32, f32::max);
            println!(
                "burn on our Softmax: rows sum to 1 within {worst_sum:e}; classes {:?}",
                &report.classes[..8.min(report.classes.len())]
            );
            if report.passed() {
                println!("OK");
                ExitCode::SUCCESS
            } else {
                println!("FAILED");
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("burn example: {error}");
            ExitCode::FAILURE
        }
    }
}

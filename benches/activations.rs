//! `cargo bench`: the same measurements as `wgpu-act bench`, at its defaults (2^24 elements,
//! every operator and dtype). `WGPU_ACTIVATIONS_BENCH_ELEMS` sets another size, and
//! `WGPU_ACTIVATIONS_BENCH_NOMINAL_GBPS` the device's nominal memory bandwidth (`--nominal-gbps`).
#![forbid(unsafe_code)]

use wgpu_activations::ContextOptions;
use wgpu_activations::bench::{BenchConfig, run};

fn main() {
    let mut config = BenchConfig::default();
    if let Some(elems) = std::env::var("WGPU_ACTIVATIONS_BENCH_ELEMS").ok().and_then(|v| v.parse().ok()) {
        config.elems = elems;
    }
    let nominal = std::env::var("WGPU_ACTIVATIONS_BENCH_NOMINAL_GBPS").ok().and_then(|v| v.parse::<f64>().ok());
    config.nominal_gbps = nominal.filter(|gbps| gbps.is_finite() && *gbps > 0.0);
    // `cargo bench` passes `--bench`; any other argument is a filter this harness ignores.
    if let Err(error) = run(&ContextOptions::from_env(), &config) {
        eprintln!("bench: error: {error}");
        std::process::exit(1);
    }
}

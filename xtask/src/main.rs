//! Project automation for `wgpu-activations`: `cargo xtask <command>`.
//!
//! What plain `cargo test` cannot do: make sure GPU adapters exist (on a fresh Linux machine
//! there is usually no Vulkan driver and no EGL, so every GPU test would be skipped, or fail
//! under `CI`), and run the GPU suite once per adapter. This tool installs Mesa's software
//! drivers on Debian/Ubuntu when they are missing (lavapipe for Vulkan, llvmpipe through EGL for
//! GL), then runs formatting, lints and the tests, the GPU suite on Vulkan, on GL and on
//! WebGPU's downlevel limits, a smoke run of the benchmarks, and a short soak.
//!
//! The browser suite and the web demo (`test-wasm`, `web`) add the wasm32 target,
//! wasm-bindgen-cli and Debian's Chromium with chromedriver (`web.rs`, `browser.rs`).
//!
//! Beyond `std` it uses only serde_json and base64 (WebDriver's JSON and screenshots), so that
//! it compiles in seconds.

mod accuracy;
mod browser;
mod drivers;
mod gpu_bundle;
mod guard;
mod host_cost;
mod packaging;
mod public_api;
mod steps;
mod targets;
mod web;

use drivers::{cold_driver_caches, ensure_gpu_driver, private_runtime_dir, with_driver_caches};
use packaging::{check_dependency_tree, packaging};
use steps::Step;

use std::env;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Usage text printed by `help`, with no arguments, or after an unknown command.
const USAGE: &str = "\
usage: cargo xtask <command> [args...]

commands:
  test  [args]   set up the GPU drivers if needed, then: cargo fmt --check, the docs, the
                 kernel library built alone, `cargo test --release --workspace [args]` on
                 Vulkan with validation mode on (clippy -D warnings linting every crate of
                 the workspace as it builds; the burn example's test included), the benches
                 built and linted, the GPU suites again on GL, on
                 downlevel limits and on SwiftShader (Chromium's Vulkan driver), clippy for
                 Metal, DX12, Android and wasm32 targets, a smoke run of `wgpu-act bench`, the
                 soaks, and the browser suite (installs what is missing: lavapipe, EGL,
                 chromium, spirv-tools, glslang-tools, rustup targets, wasm-bindgen-cli)
  sweep [args]   set up, then the long exhaustive checks:
                 `cargo test --release --workspace -- --ignored [args]` (several minutes)
  bench [args]   set up, then `wgpu-act bench [args]` (every kernel at 2^24 elements; minutes),
                 then its ratios against those BENCHMARKS.md records for the same adapter and
                 size: fails naming each kernel that fell by more than the noise in two runs
  compile-times [args]
                 set up, then `wgpu-act bench --compile-times [args]` with the driver caches
                 emptied first: each kernel's first-use cost, cold, on Vulkan (lavapipe) and on
                 SwiftShader (pass --ops, --dtypes to narrow it)
  host-cost [args]
                 set up, then models of 510 and 2,040 distinct fused chains (examples/
                 chain_model.rs; args go to it, e.g. --elements 65536) run by `wgpu-act run` on
                 lavapipe, first with empty driver caches, then warm: wall time and peak memory
  gpu-bundle     release builds of wgpu-act and the GPU suites, gzipped into .gpu/, and the
                 Vulkan loader's packages in .gl/: what tools/gpu-run.sh needs on a machine with
                 a real GPU and no Rust (BENCHMARKS.md, A short GPU run)
  soak  [args]   set up, then `wgpu-act soak [args]` (default --seconds 600)
  demo  [args]   set up, then `cargo run --release --example image_demo -- [args]`
  test-wasm      the browser suite: the wasm32 target, wasm-bindgen-cli (Cargo.lock's version)
                 and Debian's chromium + chromium-driver installed if missing, clippy for
                 wasm32, the pages built into target/web/, every check in headless Chromium's
                 WebGPU, then the demo page's own check (part of `test`)
  package        the library and the CLI packaged as crates.io would get them, each checked
                 from its package's own files (part of `test`)
  public-api [--bless]
                 compare the library's public items (rustdoc's JSON, every feature)
                 with the committed public-api.txt, or rewrite it (part of `test`)
  bench-web [N]  the in-page bench in headless Chromium: each kernel against the page's own
                 WebGPU copy kernel, N elements each (default 2^22), as a Markdown table
  bench-burn [--rows N] [--iterations N] [--repeats N]
                 our activations beside burn 0.22's own on one device and burn's own input
                 tensors: share of a copy kernel, burn's time over ours (alternating,
                 medians) and worst ULP each, as Markdown tables (f32; f16 where the device
                 has shader-f16); `cargo run --release -p wgpu-activations-burn -- bench`
  accuracy       this library, ONNX Runtime's CPU provider and ONNX Runtime Web's WebGPU
                 provider on the same inputs, worst ULP and results beyond 2 ULP against the
                 correctly rounded result, the unary operators, then Softmax and LogSoftmax
                 on rows (installs onnxruntime, onnxruntime-web and Chromium into
                 target/accuracy when missing; tests/accuracy/compare.py;
                 ACCURACY_OPS=Softmax,LogSoftmax keeps those operators only)
  web [--build-only]
                 build the demo page, the browser suite and the bench page into target/web/,
                 then serve them on 127.0.0.1 (port 8000 when free) until interrupted
  setup          only make sure the GPU drivers are present
  help           print this message

environment:
  CI=true              also sets WGPU_ACTIVATIONS_REQUIRE_GPU=1, so a missing adapter fails tests
  WGPU_BACKEND=<name>  a non-Vulkan backend (e.g. gl) skips the Vulkan driver check";

/// An error that ends the run: printed once with the `xtask:` prefix, then exit status 1.
#[derive(Debug)]
struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Shorthand so that every fallible step can use `?`.
type Result<T> = std::result::Result<T, Error>;

/// Entry point: dispatches the subcommand and turns errors into a message plus exit status,
/// so that nothing here ever panics on a user-facing failure.
fn main() -> ExitCode {
    if let Some(rustdoc) = env::var_os(public_api::AS_RUSTDOC) {
        return public_api::run_as_rustdoc(rustdoc);
    }
    let mut args = env::args_os().skip(1);
    let command = args.next();
    // `cargo xtask demo -- IMAGE` and `cargo xtask demo IMAGE` mean the same: every command
    // passes its arguments on after a `--` of its own.
    let rest: Vec<OsString> = args.skip_while(|a| a == "--").collect();

    let Some(command) = command else {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    };
    let outcome = match command.to_string_lossy().as_ref() {
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        "setup" => {
            if !rest.is_empty() {
                eprintln!("xtask: `setup` takes no arguments");
                return ExitCode::from(2);
            }
            ensure_gpu_driver().map(|()| ExitCode::SUCCESS)
        }
        "test" => ensure_gpu_driver().and_then(|()| test(&rest)),
        "sweep" => ensure_gpu_driver().and_then(|()| {
            println!("xtask: running the exhaustive sweeps (#[ignore] tests); this may take several minutes");
            cargo(&["test", "--release", "--workspace", "--all-features", "--", "--ignored"], &rest, &[])
        }),
        "bench" => ensure_gpu_driver().and_then(|()| guard::bench(&rest)),
        "bench-burn" => ensure_gpu_driver().and_then(|()| bench_burn(&rest)),
        "compile-times" => ensure_gpu_driver().and_then(|()| compile_times(&rest)),
        "host-cost" => ensure_gpu_driver().and_then(|()| host_cost::host_cost(&rest)),
        "gpu-bundle" if rest.is_empty() => gpu_bundle::gpu_bundle(),
        "soak" => ensure_gpu_driver().and_then(|()| {
            let args =
                if rest.is_empty() { vec![OsString::from("--seconds"), OsString::from("600")] } else { rest.clone() };
            cargo(&["run", "--release", "-p", "wgpu-act", "--", "soak"], &args, &[])
        }),
        "test-wasm" => web::test_wasm(false).map(|()| ExitCode::SUCCESS),
        "accuracy" => ensure_gpu_driver().and_then(|()| accuracy::accuracy()).map(|()| ExitCode::SUCCESS),
        "package" if rest.is_empty() => packaging().map(|()| ExitCode::SUCCESS),
        "public-api" => match only_flag(&rest, "--bless") {
            Some(bless) => public_api::check(bless).map(|()| ExitCode::SUCCESS),
            None => {
                eprintln!("xtask: `public-api` takes only --bless");
                return ExitCode::from(2);
            }
        },
        "bench-web" => match rest.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().as_slice() {
            [] => web::bench_web(None).map(|()| ExitCode::SUCCESS),
            [n] if n.parse::<u32>().is_ok() => web::bench_web(Some(n)).map(|()| ExitCode::SUCCESS),
            _ => {
                eprintln!("xtask: `bench-web` takes one number, the elements per kernel");
                return ExitCode::from(2);
            }
        },
        "web" => match only_flag(&rest, "--build-only") {
            Some(build_only) => web::web(build_only).map(|()| ExitCode::SUCCESS),
            None => {
                eprintln!("xtask: `web` takes only --build-only");
                return ExitCode::from(2);
            }
        },
        "demo" => {
            ensure_gpu_driver().and_then(|()| cargo(&["run", "--release", "--example", "image_demo", "--"], &rest, &[]))
        }
        other => {
            eprintln!("xtask: unknown command `{other}`\n");
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };

    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Arguments that are nothing (`Some(false)`) or just `flag` (`Some(true)`); `None` otherwise.
fn only_flag(args: &[OsString], flag: &str) -> Option<bool> {
    match args {
        [] => Some(false),
        [one] if one == flag => Some(true),
        _ => None,
    }
}

/// The test binaries that run on a GPU adapter, run again once per adapter.
const GPU_SUITES: &[&str] =
    &["unary_ops", "axis_ops", "swiglu", "prelu", "chains", "engine", "integration", "onnx_conformance", "properties"];

/// The GPU suites run on SwiftShader: every operator and dtype but f64 (the exhaustive 16-bit
/// checks included), the operators over an axis, SwiGLU, the committed ONNX cases and the engine.
const SWIFTSHADER_SUITES: &[&str] = &["unary_ops", "axis_ops", "swiglu", "prelu", "engine", "onnx_conformance"];

/// The f64 sweeps the GPU suites leave out where they repeat on lavapipe and GL: 2^15 and 69632
/// inputs per operator, each on the native and the software f64 path.
/// - Downlevel limits run lavapipe's arithmetic again, only in other dispatches (which
///   `shapes_and_layouts` covers): 55 s and 26 s of its unary suite's 223 s run alone.
/// - SwiftShader has no f64, and the software path computes on integers alone, giving
///   lavapipe's bits: 209 s and 149 s of its step's 437 s.
/// - Products forced onto integers change only the kernels holding f32 products, which no f64
///   kernel does: the step compiles the Vulkan step's f64 kernels again, to the same bits.
const REPEATED_F64_SWEEPS: &[&str] = &[
    "f64_log_spaced_sweeps_random_values_and_specials",
    "f64_software_path_is_within_bounds_of_the_correctly_rounded_result",
];

/// Every operator's f64 kernels, left out beside [`REPEATED_F64_SWEEPS`] on SwiftShader and where
/// products are forced onto integers. SwiftShader runs them on the software path (180 s of its
/// unary suite's 260 s run alone, nearly all of it compiling them), whose integer arithmetic gives
/// lavapipe's and GL's bits, and the browser suite runs each operator's f64 kernels on
/// SwiftShader through Chromium's WebGPU; with products forced, they are the Vulkan step's.
const F64_KERNELS: &str = "shapes_and_layouts::f64";

/// The f64 tests of the kernels over an axis and of SwiGLU, left out on SwiftShader as
/// [`F64_KERNELS`] are: it runs them on the software path (173 s of its axis suite's 190 s run
/// alone, 53 s of its SwiGLU suite's 55 s), whose bits are lavapipe's and GL's, and the browser
/// suite runs Softmax, LogSoftmax, Hardmax and SwiGLU in f64 on SwiftShader through Chromium's
/// WebGPU, rows in chunks included.
const SWIFTSHADER_F64_REPEATS: &[&str] =
    &["f64_on_every_path", "every_axis_and_version::f64", "sweeps::f64", "fused_in_chains::f64"];

/// The other GPU suites on SwiftShader, without the tests whose software-f64 (and u32-pair
/// 64-bit) chains take its shader compiler minutes per kernel: `integration` with them ran past
/// 10 minutes and `properties` past 5, where the rest of the three suites take 6 seconds. Those
/// tests run on the other adapters.
const SWIFTSHADER_SLOW_COMPILES: &[&str] = &[
    "work_recorded_between_the_callers_passes_on_every_path",
    "f16_fused_chains_equal_unfused",
    "bf16_fused_chains_equal_unfused",
    "f64_fused_chains_equal_unfused",
    "integer_prelu_chains_equal_unfused",
    "unary_chains_match_the_reference_on_any_shape_layout_and_alpha",
];

/// Crates the kernel library with its default features must not depend on.
const OPTIONAL_CRATES: &[&str] = &["clap", "prost", "protox", "ndarray-npy", "image", "serde_json"];

/// The arguments of the test step's build, which every later release step shares: every
/// package, every feature. Cargo builds the dependency stack once per distinct set of features
/// (dev-dependencies and other packages' choices included), and each build of wgpu and naga in
/// release takes minutes on a fresh clone: the suites' `--features onnx`, a default-features
/// run and `cargo run -p wgpu-act` were three more.
const TEST_BUILD: [&str; 4] = ["test", "--release", "--workspace", "--all-features"];

/// The burn example's package (examples/burn), a workspace member built only in release.
const BURN_EXAMPLE: &str = "wgpu-activations-burn";

/// A step whose first argument is this runs the CLI the test step built (`cli`), with the rest.
const CLI: &str = "wgpu-act";

/// The step after which the dependency tree of the kernel library alone is checked.
const LIBRARY_ALONE: &str = "the kernel library alone";

/// `cargo xtask test`: every check CI makes, in order (from the suites on the other adapters to the
/// soaks two at a time, [`steps::two_at_a_time`]); the first failure ends the run.
///
/// Longer than 80 lines on purpose: it is the list of CI's steps in the order they run, one call
/// each, and reads best as one list.
fn test(extra: &[OsString]) -> Result<ExitCode> {
    let vulkan: &[(&str, &str)] = &[("WGPU_BACKEND", "vulkan"), ("WGPU_ACTIVATIONS_VALIDATE", "1")];
    // The property tests run 48 random cases on Vulkan and 16 on GL and downlevel limits, whose
    // kernels compile slowly (GL's 48 took 96 s); every operator's kernels run on both in the
    // operator suites. (The kernels over an axis compiled ten times as long on GL as on lavapipe
    // while naga zeroed their workgroup memory there: engine/pipelines.rs, compilation_options.)
    let gl: &[(&str, &str)] = &[("WGPU_BACKEND", "gl"), ("WGPU_ACTIVATIONS_VALIDATE", "1"), ("PROPTEST_CASES", "16")];
    let exact_products: &[(&str, &str)] =
        &[("WGPU_BACKEND", "vulkan"), ("WGPU_ACTIVATIONS_SUBNORMALS", "integers"), ("WGPU_ACTIVATIONS_VALIDATE", "1")];
    let downlevel: &[(&str, &str)] = &[
        ("WGPU_BACKEND", "vulkan"),
        ("WGPU_ACTIVATIONS_LIMITS", "downlevel"),
        ("WGPU_ACTIVATIONS_VALIDATE", "1"),
        ("PROPTEST_CASES", "16"),
    ];
    let icd = targets::swiftshader_icd()?.display().to_string();
    let swiftshader: &[(&str, &str)] =
        &[("VK_ICD_FILENAMES", &icd), ("WGPU_BACKEND", "vulkan"), ("WGPU_ACTIVATIONS_VALIDATE", "1")];
    targets::ensure_rust_targets(&targets::OTHER_TARGETS)?;
    targets::ensure_shader_validators()?;
    let suites_skipping = |suites: &[&'static str], skipped: &[&'static str]| {
        let mut args: Vec<&str> = TEST_BUILD.to_vec();
        suites.iter().for_each(|suite| args.extend(["--test", suite]));
        if !skipped.is_empty() {
            args.push("--");
            skipped.iter().for_each(|test| args.extend(["--skip", test]));
        }
        args
    };
    let gl_suites = suites_skipping(GPU_SUITES, &[]);
    let downlevel_suites = suites_skipping(GPU_SUITES, REPEATED_F64_SWEEPS);
    let no_repeated_f64 = [REPEATED_F64_SWEEPS, &[F64_KERNELS]].concat();
    let exact_products_suites = suites_skipping(&["unary_ops", "prelu", "onnx_conformance"], &no_repeated_f64);
    let swiftshader_suites = suites_skipping(SWIFTSHADER_SUITES, &[&no_repeated_f64, SWIFTSHADER_F64_REPEATS].concat());
    let swiftshader_rest = suites_skipping(&["chains", "integration", "properties"], SWIFTSHADER_SLOW_COMPILES);
    let info = vec![CLI, "info"];
    let deny_doc_warnings: &[(&str, &str)] = &[("RUSTDOCFLAGS", "-D warnings")];
    let doc = |features: &[&'static str]| {
        let mut args = vec!["doc", "--no-deps", "-p", "wgpu-activations"];
        args.extend_from_slice(features);
        args
    };
    // One cargo run for every other target: their crates share one build graph, so one target's
    // long serial crate (wgpu-core) overlaps another's, where four runs each waited on their own.
    let mut clippy_other_targets = vec!["clippy", "--lib", "--no-default-features"];
    targets::OTHER_TARGETS.iter().for_each(|target| clippy_other_targets.extend(["--target", target]));
    clippy_other_targets.extend(["--", "-D", "warnings"]);
    let clippy_other_what =
        format!("clippy for {} ({})", targets::TARGET_PLATFORMS.join(", "), targets::OTHER_TARGETS.join(", "));
    let bench = vec![CLI, "bench", "--elems", "4096", "--iterations", "1"];
    let soak = vec![CLI, "soak", "--seconds", "30"];
    let loss = vec![CLI, "soak", "--seconds", "10", "--destroy-after", "5"];
    let first_steps = vec![
        Step { what: "formatting", args: vec!["fmt", "--all", "--check"], takes_extra: false, env: &[] },
        Step { what: "documentation, default features", args: doc(&[]), takes_extra: false, env: deny_doc_warnings },
        Step {
            what: "documentation, all features",
            args: doc(&["--all-features"]),
            takes_extra: false,
            env: deny_doc_warnings,
        },
        Step {
            what: LIBRARY_ALONE,
            // A check, not a release build: the dependencies' metadata is the documentation
            // steps' (the same features), where a release build of them alone took minutes.
            args: vec!["check", "-p", "wgpu-activations", "--lib"],
            takes_extra: false,
            env: &[],
        },
        Step {
            what: "every test, on Vulkan, validation mode on",
            args: TEST_BUILD.to_vec(),
            takes_extra: true,
            env: vulkan,
        },
        Step {
            what: "the benches, built and linted in release",
            args: vec!["build", "--release", "--workspace", "--all-features", "--benches"],
            takes_extra: false,
            env: &[],
        },
    ];
    // Two at a time, the longest first: the suites again on the other adapters (the steps
    // above built them: these only run them), clippy for the other targets (its own build
    // folders), the bench's smoke run and the soaks (which last a set time, whatever else runs).
    let side_by_side = vec![
        Step { what: "the GL adapter", args: info.clone(), takes_extra: false, env: gl },
        Step {
            what: "the SwiftShader adapter (Chromium's Vulkan driver)",
            args: info,
            takes_extra: false,
            env: swiftshader,
        },
        Step { what: "the GPU suites on GL", args: gl_suites, takes_extra: true, env: gl },
        Step {
            what: "the GPU suites on SwiftShader (it flushes subnormals)",
            args: swiftshader_suites,
            takes_extra: true,
            env: swiftshader,
        },
        Step { what: &clippy_other_what, args: clippy_other_targets, takes_extra: false, env: &[] },
        Step { what: "the GPU suites on downlevel limits", args: downlevel_suites, takes_extra: true, env: downlevel },
        Step {
            what: "the operator suites on Vulkan with products with subnormals forced onto integers",
            args: exact_products_suites,
            takes_extra: true,
            env: exact_products,
        },
        Step { what: "a 30-second soak", args: soak, takes_extra: false, env: vulkan },
        Step {
            what: "chains, integration and properties on SwiftShader, but for its slowest compiles",
            args: swiftshader_rest,
            takes_extra: false,
            env: swiftshader,
        },
        Step { what: "a soak whose device is destroyed mid-run", args: loss, takes_extra: false, env: vulkan },
        Step { what: "a smoke run of the benchmarks", args: bench, takes_extra: false, env: vulkan },
    ];
    let cache = cold_driver_caches()?;
    println!("xtask: driver shader caches start empty in {} (what a new machine sees)", cache.display());
    let suite_started = std::time::Instant::now();
    steps::one_at_a_time(first_steps, extra, suite_started)?;
    steps::two_at_a_time(side_by_side, extra, suite_started)?;
    targets::check_rust_version(&workspace_root())?;
    println!("xtask: == the public API against public-api.txt");
    public_api::check(false)?;
    packaging()?;
    println!("xtask: == the browser suite (wasm32 in headless Chromium's WebGPU)");
    let started = std::time::Instant::now();
    // The clippy step for the other targets linted the kernel library alone for wasm32.
    web::test_wasm(true)?;
    println!("xtask: -- the browser suite took {:.0} s", started.elapsed().as_secs_f64());
    println!("xtask: all checks passed in {:.0} s", suite_started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `cargo xtask compile-times`: what each kernel's first use costs with cold driver caches, on
/// the default Vulkan adapter (lavapipe here) and on SwiftShader.
fn compile_times(extra: &[OsString]) -> Result<ExitCode> {
    let cache = cold_driver_caches()?;
    println!("xtask: driver shader caches start empty in {}", cache.display());
    let icd = targets::swiftshader_icd()?.display().to_string();
    let extra: Vec<&str> = extra.iter().filter_map(|a| a.to_str()).collect();
    let args = [&[CLI, "bench", "--compile-times"][..], &extra].concat();
    let mut outcome = ExitCode::SUCCESS;
    for env in [&[("WGPU_BACKEND", "vulkan")][..], &[("WGPU_BACKEND", "vulkan"), ("VK_ICD_FILENAMES", &icd)]] {
        let code = cli(&args[1..], env)?;
        if code != ExitCode::SUCCESS {
            outcome = code;
        }
    }
    Ok(outcome)
}

/// Runs cargo with `args` (no test arguments, no extra environment) and fails unless it succeeds.
fn cargo_checked(what: &str, args: &[&str]) -> Result<()> {
    println!("xtask: == {what}");
    if cargo(args, &[], &[])? == ExitCode::SUCCESS { Ok(()) } else { Err(Error(format!("{what} failed"))) }
}

/// Runs cargo (the same binary that launched xtask, via `CARGO`) from the workspace root with
/// `base` then `extra` arguments and the variables `env`, and returns its exit status as ours.
/// Under CI it requires a GPU so that a broken driver set-up fails loudly instead of skipping
/// every test. Children get a private runtime directory when none is set, which keeps Mesa's
/// window-system code from printing an error for every device it opens.
fn cargo(base: &[&str], extra: &[OsString], env_vars: &[(&str, &str)]) -> Result<ExitCode> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    // The steps pass their arguments in `extra` (merged with the user's), so both are read.
    let args: Vec<&std::ffi::OsStr> =
        base.iter().map(std::ffi::OsStr::new).chain(extra.iter().map(OsString::as_os_str)).collect();
    if is_release_build(&args) {
        let lints = clippy_while_building()?;
        let with_lints: Vec<(&str, &str)> =
            env_vars.iter().copied().chain(lints.iter().map(|(k, v)| (*k, v.as_str()))).collect();
        return tool(&cargo, base, extra, &with_lints);
    }
    tool(&cargo, base, extra, env_vars)
}

/// True for `cargo test --release ...` and `cargo build --release ...`: the builds that lint as
/// they build ([`clippy_while_building`]), all with the same variables so that none rebuilds
/// another's crates.
fn is_release_build(args: &[&std::ffi::OsStr]) -> bool {
    matches!(args, [command, release, ..] if (*command == "test" || *command == "build") && *release == "--release")
}

/// `cargo xtask bench-burn`: the burn example's bench, with burn's crates back at opt-level 3
/// (Cargo.toml builds them unoptimised for the test build).
fn bench_burn(extra: &[OsString]) -> Result<ExitCode> {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
        .map_err(|e| Error(format!("cannot read Cargo.toml: {e}")))?;
    let overrides: Vec<String> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("[profile.release.package.")?.strip_suffix(']').map(str::to_string))
        .map(|package| format!("profile.release.package.{package}.opt-level=3"))
        .collect();
    let mut args = vec!["run", "--release", "-p", BURN_EXAMPLE];
    overrides.iter().for_each(|o| args.extend(["--config", o.as_str()]));
    args.extend(["--", "bench"]);
    cargo(&args, extra, &[])
}

/// The variables under which a release build also lints the workspace's own crates: clippy's
/// driver as cargo's workspace wrapper (it compiles like rustc and lints as it goes), with
/// `-D warnings` as `cargo clippy -- -D warnings` passes it. This is the suite's lint: the test
/// step's build compiles every crate and target of the workspace but the benches (a release
/// build of those follows it), so a `cargo clippy` in the dev profile checked the whole
/// dependency stack a second time for nothing (2 min 53 s on a fresh clone, and 4 min 44 s more
/// for burn's with the burn example). Every release build gets the same variables, so none
/// rebuilds another's crates.
fn clippy_while_building() -> Result<Vec<(&'static str, String)>> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| Error(format!("could not run {}: {e}", rustc.to_string_lossy())))?;
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let driver = Path::new(&sysroot).join("bin").join(format!("clippy-driver{}", env::consts::EXE_SUFFIX));
    if !output.status.success() || !driver.is_file() {
        return Err(Error(format!("clippy's driver is not at {} (rustup component add clippy)", driver.display())));
    }
    Ok(vec![
        ("RUSTC_WORKSPACE_WRAPPER", driver.display().to_string()),
        ("CLIPPY_ARGS", "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".to_string()),
    ])
}

/// A `cargo test` step's arguments `base` and the user's `extra`, each of which may pass
/// arguments on to the test binaries after a `--`: cargo's arguments of both, then one `--` and
/// the test binaries' of both (so a step's own `--skip`s and the user's `-- NAME` meet after one
/// separator).
fn merged_arguments(base: &[&str], extra: &[OsString]) -> Vec<OsString> {
    let split = |args: Vec<OsString>| match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec()),
        None => (args, Vec::new()),
    };
    let (mut merged, base_tests) = split(base.iter().map(OsString::from).collect());
    let (extra_cargo, extra_tests) = split(extra.to_vec());
    merged.extend(extra_cargo);
    if !base_tests.is_empty() || !extra_tests.is_empty() {
        merged.push(OsString::from("--"));
        merged.extend(base_tests);
        merged.extend(extra_tests);
    }
    merged
}

/// Runs the CLI as the test step built it, with `args`: first `cargo test --no-run` with that
/// step's arguments (fresh after it; it puts that build's `wgpu-act` in place), then the binary
/// itself, so that no build of the dependency stack with the CLI's own features is needed.
fn cli(args: &[&str], env_vars: &[(&str, &str)]) -> Result<ExitCode> {
    let Some(release) = test_build()? else { return Ok(ExitCode::FAILURE) };
    let binary = release.join(format!("{CLI}{}", env::consts::EXE_SUFFIX));
    tool(binary.as_os_str(), args, &[], env_vars)
}

/// `cargo test --no-run` with the test step's arguments, which builds the CLI and the examples
/// with every feature; the folder that holds them, or `None` when the build failed.
fn test_build() -> Result<Option<PathBuf>> {
    let build = [&TEST_BUILD[..], &["--no-run", "--quiet"]].concat();
    if cargo(&build, &[], &[])? != ExitCode::SUCCESS {
        return Ok(None);
    }
    let target =
        env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), |d| workspace_root().join(d));
    Ok(Some(target.join("release")))
}

/// Runs `program` from the workspace root with `base` then `extra` arguments and the variables
/// `env_vars`, as `cargo` describes.
fn tool(program: &std::ffi::OsStr, base: &[&str], extra: &[OsString], env_vars: &[(&str, &str)]) -> Result<ExitCode> {
    let mut cmd = child(program, env_vars)?;
    cmd.args(base).args(extra);
    let status = run(&mut cmd)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1).max(1)),
        None => {
            eprintln!("xtask: {} was terminated by a signal", program.to_string_lossy());
            ExitCode::FAILURE
        }
    })
}

/// `program` as every child of xtask runs: from the workspace root, with a GPU required under
/// CI, a private runtime directory, the run's driver caches, then `env_vars`.
fn child(program: &std::ffi::OsStr, env_vars: &[(&str, &str)]) -> Result<Command> {
    let mut cmd = Command::new(program);
    cmd.current_dir(workspace_root());
    if is_ci() {
        cmd.env("WGPU_ACTIVATIONS_REQUIRE_GPU", "1");
    }
    if let Some(dir) = private_runtime_dir()? {
        cmd.env("XDG_RUNTIME_DIR", dir);
    }
    with_driver_caches(&mut cmd);
    for (key, value) in env_vars {
        cmd.env(key, value);
    }
    Ok(cmd)
}

/// True when the `CI` variable is set to anything but empty, `false` or `0`, as CI services do.
fn is_ci() -> bool {
    env::var("CI").is_ok_and(|v| {
        let v = v.trim();
        !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false")
    })
}

/// The workspace root: the parent of this crate's directory, so commands work from any cwd.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Prints the command line (so logs show exactly what ran), then runs it with inherited stdio.
fn run(cmd: &mut Command) -> Result<std::process::ExitStatus> {
    let line = command_line(cmd);
    steps::route_output(cmd, &line)?;
    cmd.status().map_err(|e| Error(format!("could not start `{line}`: {e}")))
}

/// Renders a command roughly as a shell would accept it, quoting arguments with spaces.
fn command_line(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(|a| {
        let a = a.to_string_lossy();
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
            format!("'{}'", a.replace('\'', r"'\''"))
        } else {
            a.into_owned()
        }
    }));
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_steps_skips_and_the_users_filter_meet_after_one_separator() {
        let extra = [OsString::from("--quiet"), OsString::from("--"), OsString::from("sigmoid")];
        assert_eq!(
            strings(&merged_arguments(&["test", "--test", "unary_ops", "--", "--skip", "slow"], &extra)),
            ["test", "--test", "unary_ops", "--quiet", "--", "--skip", "slow", "sigmoid"]
        );
        assert_eq!(strings(&merged_arguments(&["test"], &extra)), ["test", "--quiet", "--", "sigmoid"]);
        assert_eq!(
            strings(&merged_arguments(&["clippy", "--", "-D", "warnings"], &[])),
            ["clippy", "--", "-D", "warnings"]
        );
        assert_eq!(strings(&merged_arguments(&["fmt", "--check"], &[])), ["fmt", "--check"]);
    }

    /// Every release build of the suite lints: the steps pass their whole command line as
    /// merged arguments (a check of `base` alone once left the test step unlinted, and the next
    /// step rebuilt every test binary with the lint, 157 s).
    #[test]
    fn every_release_build_of_the_suite_lints_as_it_builds() {
        let release = |args: &[OsString]| {
            let args: Vec<&std::ffi::OsStr> = args.iter().map(OsString::as_os_str).collect();
            is_release_build(&args)
        };
        assert!(release(&merged_arguments(&TEST_BUILD, &[])));
        assert!(release(&merged_arguments(&[&TEST_BUILD[..], &["--test", "unary_ops"]].concat(), &[])));
        assert!(release(&merged_arguments(&["build", "--release", "--workspace", "--benches"], &[])));
        assert!(!release(&merged_arguments(&["test", "--workspace"], &[])));
        assert!(!release(&merged_arguments(&["clippy", "--release"], &[])));
        assert!(!release(&merged_arguments(&["doc", "--no-deps"], &[])));
    }
}

//! `wgpu-act`: the ONNX activations of `wgpu-activations` on the GPU from the command line.
//!
//! ```text
//! wgpu-act [--backend vulkan|gl|metal|dx12] [--adapter NAME] [--native DTYPES] [--emulated DTYPES] <command>
//! wgpu-act info [--all]
//! wgpu-act ops
//! wgpu-act apply --op leaky-relu [--alpha 0.01] X.npy Y.npy
//! wgpu-act apply --op elu [--attr alpha=1.0] X.npy Y.npy
//! wgpu-act apply --op prelu --slope SLOPE.npy X.npy Y.npy
//! wgpu-act onnx-test [--save-outputs DIR] CASE_DIR...
//! wgpu-act run MODEL.onnx --input NAME=FILE... --output DIR
//! wgpu-act bench [--ops ..] [--dtypes ..] [--elems N] [--nominal-gbps N] [--json] [--json-file F]
//! wgpu-act soak [--seconds 600] [--threads 16] [--destroy-after S]
//! ```
//!
//! Exit status: 0 on success; 2 for bad input (an unreadable or malformed file, an unsupported
//! dtype, a slope that does not broadcast, an operator/attribute combination that makes no
//! sense, a dtype the operator does not accept, an output that would overwrite an input), with
//! one line `wgpu-act: error: ...` on stderr; 1 when no GPU adapter is found or the GPU (or the
//! library's support for this device) fails. `onnx-test` exits 1 when a case fails.
#![forbid(unsafe_code)]

mod apply;
mod npy;
mod soak;

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand};
use half::f16;
use npy::{Npy, NpyElement, write_failure};
use wgpu_activations::onnx::{HostElement, HostTensor, MAX_FILE_BYTES, OnnxError, OnnxModel, read_file};
use wgpu_activations::ops::{AXIS_OPS, FORMULA_FUNCTIONS, PRELU, SWIGLU, UNARY_OPS};
use wgpu_activations::{Context, ContextOptions, DType, Error};

#[derive(Debug, Parser)]
#[command(
    name = "wgpu-act",
    version,
    about = "ONNX activations on the GPU (wgpu); `wgpu-act ops` lists them",
    after_help = "Exit status: 0 success, 2 bad input, 1 no GPU adapter or GPU failure (onnx-test: 1 when a case fails)."
)]
struct Cli {
    #[command(flatten)]
    adapter: AdapterArgs,
    #[command(subcommand)]
    command: Command,
}

/// Adapter choice, on every subcommand; given here they win over WGPU_BACKEND and
/// WGPU_ADAPTER_NAME.
#[derive(Debug, Args)]
struct AdapterArgs {
    /// Backends to search, like WGPU_BACKEND: vulkan, gl, metal, dx12 (comma separated).
    #[arg(long, global = true, value_name = "BACKENDS")]
    backend: Option<String>,
    /// The first adapter whose name contains this, like WGPU_ADAPTER_NAME.
    #[arg(long, global = true, value_name = "NAME")]
    adapter: Option<String>,
    /// Element types to run on their native representation wherever the adapter has it, also
    /// where the default passes it over (f16 on CPU drivers), comma separated.
    #[arg(long, global = true, value_name = "DTYPES", value_delimiter = ',', value_parser = parse_dtype)]
    native: Vec<DType>,
    /// Element types to run on their emulated representation (on u32 words) even where the
    /// adapter has the native one, comma separated.
    #[arg(long, global = true, value_name = "DTYPES", value_delimiter = ',', value_parser = parse_dtype)]
    emulated: Vec<DType>,
    /// The kernels' driver: `straight-line` (whole workgroups without a loop) or `loop` (every
    /// Vector in a loop). Default: straight-line on llvmpipe for tensors of 256 workgroups and
    /// more (2^20 f32), where it was measured faster; the loop otherwise.
    #[arg(long, global = true, value_name = "FORM", value_parser = ["straight-line", "loop"])]
    driver: Option<String>,
    /// Chains of unary activations as step programs (`on`: one kernel for every chain over the
    /// same operators, the chain read from the kernel's parameters) or a kernel written per
    /// chain (`off`); the same results bit for bit. Default: on for CPU adapters (lavapipe,
    /// SwiftShader) for tensors under 16 workgroups (2^16 f32 on lavapipe), where compiling
    /// costs more than running; off otherwise.
    #[arg(long, global = true, value_name = "ON|OFF", value_parser = ["on", "off"])]
    step_programs: Option<String>,
    /// MiB of idle buffers the context keeps for reuse (default 128), besides the last buffer
    /// of each kind larger than that.
    #[arg(long, global = true, value_name = "MIB")]
    pool_mib: Option<u64>,
}

#[derive(Debug, Args)]
struct OpsArgs {
    /// Print the whole operator table as JSON instead (what the test-data generator reads).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the GPU adapter, backend, driver, native element types, limits and dtype paths.
    Info(InfoArgs),
    /// Print the operators, their ONNX versions and accuracy per element type (markdown).
    Ops(OpsArgs),
    /// Apply an operator to a .npy tensor on the GPU and write the result as .npy.
    Apply(ApplyArgs),
    /// Run ONNX backend-test case directories and judge each against its expected outputs.
    OnnxTest(OnnxTestArgs),
    /// Run an ONNX model made of the operators `wgpu-act ops` lists on the GPU.
    Run(RunArgs),
    /// Measure the kernels and the host path against a copy kernel and a minimal wgpu program.
    Bench(BenchArgs),
    /// Run every operator and dtype from many threads for a while, checking every result.
    Soak(SoakArgs),
}

#[derive(Debug, Args)]
struct SoakArgs {
    /// How long to run.
    #[arg(long, default_value_t = 600.0)]
    seconds: f64,
    /// Threads sharing the one context.
    #[arg(long, default_value_t = 16)]
    threads: usize,
    /// Destroy the device after this many seconds: every later call must fail with DeviceLost.
    #[arg(long, value_name = "SECONDS")]
    destroy_after: Option<f64>,
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// Operators to measure (comma separated CLI names, as `wgpu-act ops --json` gives them). Default: all.
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(op_names()))]
    ops: Vec<String>,
    /// Element types to measure (comma separated): bf16, f16, f32, f64, i32, i64, u32, u64.
    #[arg(long, value_delimiter = ',', value_parser = parse_dtype)]
    dtypes: Vec<DType>,
    /// Elements per tensor (a multiple of 64 gives every PRelu slope pattern).
    #[arg(long, default_value_t = 1 << 24)]
    elems: usize,
    /// Measurements per case; medians are reported.
    #[arg(long, default_value_t = 11)]
    iterations: usize,
    /// Print every figure as JSON.
    #[arg(long)]
    json: bool,
    /// Also write every figure as JSON to FILE (the tables still print).
    #[arg(long, value_name = "FILE")]
    json_file: Option<std::path::PathBuf>,
    /// Also compare kernel shapes INVOCATIONSxVECTORS, e.g. 256x1,256x4,64x4.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape)]
    shapes: Vec<(u32, u32)>,
    /// The device's nominal memory bandwidth in GB/s, from its data sheet (e.g. 3350 for an
    /// H100 SXM): the copy kernel and LeakyRelu f32 are also reported as shares of it.
    #[arg(long, value_name = "GBPS", value_parser = parse_positive)]
    nominal_gbps: Option<f64>,
    /// Instead of speeds, the first-use cost of each selected kernel (WGSL, pipeline and the
    /// driver's compile): run with a cold driver cache, as `cargo xtask compile-times` does.
    #[arg(long)]
    compile_times: bool,
}

fn parse_positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{text:?} is not a positive number")),
    }
}

fn parse_dtype(name: &str) -> Result<DType, String> {
    DType::ALL.into_iter().find(|d| d.name() == name).ok_or_else(|| format!("unknown dtype {name:?}"))
}

fn parse_shape(text: &str) -> Result<(u32, u32), String> {
    let (a, b) = text.split_once('x').ok_or_else(|| format!("{text:?} is not INVOCATIONSxVECTORS"))?;
    Ok((
        a.parse().map_err(|_| format!("{a:?} is not a number"))?,
        b.parse().map_err(|_| format!("{b:?} is not a number"))?,
    ))
}

#[derive(Debug, Args)]
struct InfoArgs {
    /// List every adapter on the searched backends, with its native dtypes and limits.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
struct OnnxTestArgs {
    /// Also write what was computed to DIR/<case>/test_data_set_N/output_K.pb (never inside a
    /// case folder).
    #[arg(long, value_name = "DIR")]
    save_outputs: Option<PathBuf>,
    /// Case directories, each with model.onnx and test_data_set_N/.
    #[arg(value_name = "CASE_DIR", required = true)]
    cases: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The model.
    #[arg(value_name = "MODEL.onnx")]
    model: PathBuf,
    /// An input as NAME=FILE, FILE a TensorProto .pb or a .npy; once per model input.
    #[arg(long = "input", value_name = "NAME=FILE")]
    inputs: Vec<String>,
    /// Directory for the outputs, written as <output name>.pb (names made unique).
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
}

fn op_names() -> Vec<&'static str> {
    UNARY_OPS
        .iter()
        .map(|op| op.cli_name)
        .chain([PRELU.cli_name, SWIGLU.cli_name])
        .chain(AXIS_OPS.iter().map(|op| op.cli_name))
        .collect()
}

#[derive(Debug, Args)]
struct ApplyArgs {
    /// The operator to run.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(op_names()))]
    op: String,
    /// The attribute alpha (its default is the operator's: `wgpu-act ops --json`); any f32, -inf included.
    #[arg(long, allow_hyphen_values = true)]
    alpha: Option<f32>,
    /// Any attribute of the operator as NAME=VALUE (repeatable).
    #[arg(long = "attr", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    attributes: Vec<String>,
    /// PRelu's slope, a .npy with X's dtype that broadcasts to X (ONNX PRelu-7+ rule).
    #[arg(long, value_name = "SLOPE.npy")]
    slope: Option<PathBuf>,
    /// SwiGLU's B, a .npy of X's dtype and shape (X is A): `Swish_alpha(A) * B`.
    #[arg(long, value_name = "B.npy")]
    gate_input: Option<PathBuf>,
    /// The axis of softmax, log-softmax and hardmax (negative: from the end); by default the
    /// version's (1 before opset 13, -1 from 13).
    #[arg(long, allow_hyphen_values = true)]
    axis: Option<i64>,
    /// Run the operator version a model of this opset would (its type constraints and
    /// attribute defaults); by default the newest.
    #[arg(long, value_name = "N")]
    opset: Option<i64>,
    /// The input tensor X.
    #[arg(value_name = "INPUT.npy")]
    input: PathBuf,
    /// Where to write Y (same dtype and shape as X); never one of the inputs.
    #[arg(value_name = "OUTPUT.npy")]
    output: PathBuf,
}

/// Why the command failed, and the exit status that says so.
#[derive(Debug)]
pub(crate) struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Bad input: exit status 2.
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self { code: if error.is_bad_input() { 2 } else { 1 }, message: error.to_string() }
    }
}

impl From<OnnxError> for Failure {
    fn from(error: OnnxError) -> Self {
        Self { code: if error.is_bad_input() { 2 } else { 1 }, message: error.to_string() }
    }
}

/// Mesa's Vulkan device-select layer (implicit, so loaded into every Vulkan program) asks
/// Wayland for the display's GPU when the instance enables the Wayland surface extension, as
/// wgpu's does; with no `XDG_RUNTIME_DIR`, libwayland prints an error line for each instance.
/// The loader takes the layer's switch from the environment only, so without a session the CLI
/// starts itself again with the layer off (there is no display whose GPU it could prefer).
#[cfg(target_os = "linux")]
fn without_the_wayland_probe() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() || std::env::var_os("NODEVICE_SELECT").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        command.arg0(arg0);
    }
    // Returns only when the exec failed; the run goes on here, with the two lines.
    let _failed = command.args(args).env("NODEVICE_SELECT", "1").exec();
}

/// The operator table as JSON: per operator its names, versions with their dtypes, attributes
/// with defaults, formula, function-body pattern, inputs, ULP bounds and speed target.
fn ops_json() -> String {
    use wgpu_activations::ops::{OpVersion, UlpBounds};
    let versions = |versions: &[OpVersion]| -> Vec<serde_json::Value> {
        versions
            .iter()
            .map(|v| serde_json::json!({"since": v.since, "dtypes": v.dtypes.iter().map(|d| d.name()).collect::<Vec<_>>()}))
            .collect()
    };
    // JSON has no infinities: those defaults (Clip's bounds) are the strings Python's float() reads.
    let number = |v: f32| if v.is_finite() { serde_json::json!(v) } else { serde_json::json!(v.to_string()) };
    let bounds = |b: UlpBounds| serde_json::json!({"bf16": b.bf16, "f16": b.f16, "f32": b.f32, "f64": b.f64});
    let mut ops: Vec<serde_json::Value> = UNARY_OPS
        .iter()
        .map(|op| {
            serde_json::json!({
                "onnx_name": op.onnx_name,
                "cli_name": op.cli_name,
                "inputs": ["X"],
                "versions": versions(op.versions),
                "attributes": op.attributes.iter().map(|a| serde_json::json!({
                    "name": a.name,
                    "default": number(a.default),
                    "earlier_defaults": a.earlier_defaults.iter().map(|&(v, d)| serde_json::json!([v, number(d)])).collect::<Vec<_>>(),
                    "choices": a.choices,
                })).collect::<Vec<_>>(),
                "attribute_inputs_since": op.attribute_inputs_since,
                "formula": op.formula,
                "attributes_like_x": op.attributes_like_x,
                "expansion": op.expansion,
                "max_ulp": bounds(op.max_ulp),
                "speed_target": {"gpu": op.speed_target.gpu, "cpu_adapter": op.speed_target.cpu_adapter, "cpu_adapter_f64": op.speed_target.cpu_adapter_f64},
            })
        })
        .collect();
    ops.extend(AXIS_OPS.iter().map(|op| {
        serde_json::json!({
            "onnx_name": op.onnx_name,
            "cli_name": op.cli_name,
            "inputs": ["X"],
            "kind": "axis",
            "versions": versions(op.versions),
            "attributes": [],
            "formula": op.formula,
            "expansion": "",
            "max_ulp": bounds(op.max_ulp),
        })
    }));
    ops.push(serde_json::json!({
        "onnx_name": SWIGLU.onnx_name,
        "cli_name": SWIGLU.cli_name,
        "inputs": ["A", "B"],
        "kind": "gated",
        "versions": versions(SWIGLU.versions),
        "attributes": SWIGLU.attributes.iter().map(|a| serde_json::json!({"name": a.name, "default": number(a.default)})).collect::<Vec<_>>(),
        "formula": SWIGLU.formula,
        "expansion": "",
        "max_ulp": bounds(SWIGLU.max_ulp),
    }));
    ops.push(serde_json::json!({
        "onnx_name": PRELU.onnx_name,
        "cli_name": PRELU.cli_name,
        "inputs": ["X", "slope"],
        "versions": versions(PRELU.versions),
        "attributes": [],
        "formula": PRELU.formula,
        "expansion": PRELU.expansion,
        "max_ulp": bounds(PRELU.max_ulp),
    }));
    serde_json::to_string_pretty(&serde_json::json!({"ops": ops, "formula_functions": FORMULA_FUNCTIONS}))
        .unwrap_or_default()
}

fn main() -> ExitCode {
    #[cfg(target_os = "linux")]
    without_the_wayland_probe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and the version as clap prints them; no command at all gets the help, exit 2.
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("wgpu-act: error: {}", clap_one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Info(args) => info(&cli.adapter, args),
        Command::Ops(args) if args.json => print(&ops_json()),
        Command::Ops(_) => print(&wgpu_activations::ops::markdown_table()),
        Command::Apply(args) => apply::apply(&cli.adapter, args),
        Command::OnnxTest(args) => onnx_test(&cli.adapter, args),
        Command::Run(args) => run_model(&cli.adapter, args),
        Command::Bench(args) => bench(&cli.adapter, args),
        Command::Soak(args) => {
            let config = soak::SoakConfig {
                seconds: args.seconds,
                threads: args.threads.max(1),
                destroy_after: args.destroy_after,
            };
            options(&cli.adapter)
                .map_err(Failure::input)
                .and_then(|o| soak::run(o, &config).map_err(|message| Failure { code: 1, message }))
        }
    };
    report_peak_memory();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("wgpu-act: error: {}", one_line(&failure.message));
            ExitCode::from(failure.code)
        }
    }
}

/// A command-line error as the one line bad input gets: clap's message and its details, without
/// its "error:" prefix, usage and "For more information" lines.
fn clap_one_line(clap_message: &str) -> String {
    let kept: Vec<&str> = clap_message
        .lines()
        .filter(|l| !l.trim_start().starts_with("Usage:") && !l.trim_start().starts_with("For more information"))
        .collect();
    one_line(&kept.join("\n")).trim_start_matches("error: ").to_string()
}

/// Any failure's message as the one line the CLI prints: its lines joined by "; ". Messages from
/// parsers (a .npy header's, through ndarray-npy's pest grammar) quote the source with a ruler
/// and a caret; those lines go, keeping the position (`--> 1:35` as `at 1:35`) and what was
/// expected.
fn one_line(message: &str) -> String {
    let quoted_source = |line: &str| {
        line.starts_with('|')
            || line.split_once(" |").is_some_and(|(number, _)| number.chars().all(|c| c.is_ascii_digit()))
    };
    let kept: Vec<String> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !quoted_source(l))
        .map(|l| l.replace("--> ", "at ").trim_start_matches("= ").split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    kept.join("; ")
}

/// With `WGPU_ACT_REPORT_PEAK_MEMORY=1`, prints the process's peak resident memory on exit
/// (Linux), so that tests can hold a hostile file's cost to a bound.
fn report_peak_memory() {
    if std::env::var("WGPU_ACT_REPORT_PEAK_MEMORY").is_ok_and(|v| v == "1") {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
            let kib = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim();
            eprintln!("wgpu-act: peak resident memory: {kib} KiB");
        }
    }
}

/// Context options from the adapter flags.
fn options(adapter: &AdapterArgs) -> Result<ContextOptions, String> {
    let mut options = ContextOptions::from_env();
    if let Some(list) = &adapter.backend {
        let backends = wgpu_activations::wgpu::Backends::from_comma_list(list);
        if backends.is_empty() {
            return Err(format!("--backend {list:?} names no backend (vulkan, gl, metal, dx12)"));
        }
        options = options.with_backends(backends).with_environment(false);
    }
    if let Some(name) = &adapter.adapter {
        options = options.with_adapter_name(name.clone()).with_environment(false);
    }
    if let Some(both) = adapter.native.iter().find(|d| adapter.emulated.contains(d)) {
        return Err(format!("dtype {both} is given to both --native and --emulated"));
    }
    for &dtype in &adapter.native {
        options = options.with_emulated(dtype, false);
    }
    for &dtype in &adapter.emulated {
        options = options.with_emulated(dtype, true);
    }
    if let Some(form) = &adapter.driver {
        options = options.with_straight_line(form == "straight-line");
    }
    if let Some(programs) = &adapter.step_programs {
        options = options.with_step_programs(programs == "on");
    }
    if let Some(mib) = adapter.pool_mib {
        options = options.with_pool_capacity_bytes(mib.saturating_mul(1 << 20));
    }
    Ok(options)
}

fn context(adapter: &AdapterArgs) -> Result<Context, Failure> {
    Ok(Context::new(options(adapter).map_err(Failure::input)?)?)
}

fn print(text: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{text}") {
        // A closed pipe (`wgpu-act info | head -1`) is not an error.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(Failure { code: 1, message: format!("cannot write to stdout: {e}") })
        }
        _ => Ok(()),
    }
}

fn info(adapter: &AdapterArgs, args: &InfoArgs) -> Result<(), Failure> {
    if args.all {
        let options = options(adapter).map_err(Failure::input)?;
        let backends = options.searched_backends();
        let adapters = pollster::block_on(wgpu_activations::enumerate_adapters(backends));
        let mut report = format!("{} adapter(s) on {backends:?}", adapters.len());
        for found in &adapters {
            let info = found.get_info();
            let native: Vec<&str> =
                wgpu_activations::native_dtypes(found.features()).iter().map(|d| d.name()).collect();
            report.push_str(&format!(
                "\n\n{} ({:?}, {:?})\n  driver: {} ({})\n  native dtypes: {}\n  {}",
                info.name,
                info.backend,
                info.device_type,
                info.driver,
                info.driver_info,
                native.join(", "),
                wgpu_activations::limits_report(&found.limits()).replace('\n', "\n  ")
            ));
        }
        return print(&report);
    }
    let ctx = context(adapter)?;
    let mut report = format!("{}\ndtype paths:", ctx.info());
    for dtype in DType::ALL {
        report.push_str(&format!("\n  {:<5} {}", dtype.name(), ctx.dtype_path(dtype)));
    }
    print(&report)
}

fn bench(adapter: &AdapterArgs, args: &BenchArgs) -> Result<(), Failure> {
    let config = wgpu_activations::bench::BenchConfig {
        ops: args.ops.clone(),
        dtypes: args.dtypes.clone(),
        elems: args.elems,
        iterations: args.iterations,
        json: args.json,
        json_file: args.json_file.clone(),
        shapes: args.shapes.clone(),
        nominal_gbps: args.nominal_gbps,
        compile_times: args.compile_times,
    };
    let options = options(adapter).map_err(Failure::input)?;
    wgpu_activations::bench::run(&options, &config).map_err(|message| Failure { code: 1, message })
}

fn onnx_test(adapter: &AdapterArgs, args: &OnnxTestArgs) -> Result<(), Failure> {
    use wgpu_activations::onnx::conformance::{Outcome, run_case};
    let ctx = context(adapter)?;
    let (mut passed, mut failed, mut errors) = (0, 0, 0);
    for case in &args.cases {
        let report = run_case(&ctx, case, args.save_outputs.as_deref());
        println!("{report}");
        match report.outcome {
            Outcome::Pass => passed += 1,
            Outcome::Fail(_) => failed += 1,
            Outcome::Error(_) => errors += 1,
        }
    }
    println!("onnx-test: {passed} of {} cases passed, {failed} failed, {errors} could not run", args.cases.len());
    match (failed, errors) {
        (0, 0) => Ok(()),
        (_, 0) => Err(Failure { code: 1, message: format!("{failed} case(s) failed") }),
        _ => Err(Failure::input(format!("{errors} case(s) could not be read or were refused, {failed} failed"))),
    }
}

/// Refuses an output path that names one of the command's input files.
fn refuse_overwrite(output: &Path, inputs: &[&Path]) -> Result<(), Failure> {
    let Ok(target) = std::fs::canonicalize(output) else { return Ok(()) };
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
            return Err(Failure::input(format!(
                "{} is an input; writing the output there would overwrite it",
                output.display()
            )));
        }
    }
    Ok(())
}

fn run_model(adapter: &AdapterArgs, args: &RunArgs) -> Result<(), Failure> {
    let bytes = read_file(&args.model, MAX_FILE_BYTES)?;
    let model = OnnxModel::from_bytes(&bytes)?;
    drop(bytes);
    let mut feeds = HashMap::new();
    let mut input_paths: Vec<&Path> = vec![&args.model];
    for spec in &args.inputs {
        let (name, file) =
            spec.split_once('=').ok_or_else(|| Failure::input(format!("--input {spec:?} is not NAME=FILE")))?;
        let path = Path::new(file);
        input_paths.push(path);
        let tensor = if path.extension().is_some_and(|e| e == "npy") {
            let npy = Npy::load(path, "input")?;
            match npy.dtype {
                DType::F16 => HostElement::wrap(f16::decode(&npy)?),
                DType::F32 => HostElement::wrap(f32::decode(&npy)?),
                DType::F64 => HostElement::wrap(f64::decode(&npy)?),
                DType::I8 => HostElement::wrap(i8::decode(&npy)?),
                DType::I16 => HostElement::wrap(i16::decode(&npy)?),
                DType::I32 => HostElement::wrap(i32::decode(&npy)?),
                DType::I64 => HostElement::wrap(i64::decode(&npy)?),
                DType::U8 => HostElement::wrap(u8::decode(&npy)?),
                DType::U16 => HostElement::wrap(u16::decode(&npy)?),
                DType::U32 => HostElement::wrap(u32::decode(&npy)?),
                DType::U64 => HostElement::wrap(u64::decode(&npy)?),
                other => return Err(Failure::input(format!("{file}: {} cannot come from .npy", other.onnx_name()))),
            }
        } else {
            HostTensor::decode_pb(&read_file(path, MAX_FILE_BYTES)?)?
        };
        if feeds.insert(name.to_string(), tensor).is_some() {
            return Err(Failure::input(format!("--input {name:?} is given twice")));
        }
    }
    for name in model.input_names() {
        if !feeds.contains_key(name) {
            return Err(Failure::input(format!("the model's input {name:?} needs --input {name}=FILE")));
        }
    }
    if let Some(extra) = feeds.keys().find(|k| !model.input_names().contains(k)) {
        return Err(Failure::input(format!(
            "--input {extra:?}: the model has no such input (its inputs: {:?})",
            model.input_names()
        )));
    }
    let files = output_files(&args.output, &model.output_names());
    for path in &files {
        refuse_overwrite(path, &input_paths)?;
    }
    let ctx = context(adapter)?;
    let outputs = model.run(&ctx, &feeds)?;
    std::fs::create_dir_all(&args.output).map_err(|e| write_failure(&args.output, e))?;
    for ((name, tensor), path) in outputs.into_iter().zip(files) {
        std::fs::write(&path, tensor.encode_pb(&name)).map_err(|e| write_failure(&path, e))?;
        println!("{name}: {} {:?} -> {}", tensor.dtype(), tensor.shape(), path.display());
    }
    Ok(())
}

/// One file per output in `dir`: the name with every character but letters, digits, `_` and
/// `-` replaced by `_`, and `_2`, `_3`, ... appended where two names would share a file.
fn output_files(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    let mut used = HashSet::new();
    names
        .iter()
        .map(|name| {
            let safe: String =
                name.chars().map(|c| if c.is_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
            let safe = if safe.is_empty() { "output".to_string() } else { safe };
            let mut file = safe.clone();
            let mut k = 2;
            while !used.insert(file.clone()) {
                file = format!("{safe}_{k}");
                k += 1;
            }
            dir.join(format!("{file}.pb"))
        })
        .collect()
}

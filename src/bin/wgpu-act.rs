//! `wgpu-act`: run ONNX LeakyRelu, Elu and PRelu on the GPU from the command line.
//!
//! ```text
//! wgpu-act info
//! wgpu-act apply --op leaky-relu [--alpha 0.01] X.npy Y.npy
//! wgpu-act apply --op elu [--alpha 1.0] X.npy Y.npy
//! wgpu-act apply --op prelu --slope SLOPE.npy X.npy Y.npy
//! wgpu-act onnx-test [--save-outputs DIR] CASE_DIR...
//! wgpu-act run MODEL.onnx --input NAME=FILE... --output DIR
//! ```
//!
//! `onnx-test` runs ONNX backend-test cases (`model.onnx`, `test_data_set_N/input_K.pb`,
//! `output_K.pb`) and prints `PASS name` or `FAIL name: reason` with the max ULP error for
//! each; exit 0 if all pass, 1 if any fails, 2 if a case cannot be read or is refused.
//! `run` runs a model of LeakyRelu/Elu/PRelu nodes on `.pb` or `.npy` inputs and writes each
//! output as `DIR/<name>.pb`.
//!
//! `info` prints the adapter the library picks (honouring `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`
//! and `WGPU_POWER_PREF`), its driver, the element types it handles natively and its limits.
//!
//! `apply` reads X from a NumPy `.npy` file, runs the operator on the GPU and writes Y with X's
//! dtype and shape. Element types: float16 (`<f2`/`>f2`), float32, float64, int32, int64, uint32
//! and uint64; LeakyRelu and Elu accept only the float types (as in ONNX), PRelu all of them.
//! Whether a (operator, dtype) pair runs on a given device is the library's decision: when it
//! cannot, its error is printed. bfloat16 has no standard `.npy` descriptor and is refused, as
//! are all other dtypes. PRelu's slope (`--slope`) must have X's dtype and broadcast to X by
//! ONNX's unidirectional rule (PRelu-7+).
//!
//! Exit status: 0 on success; 2 for bad input (unreadable or malformed file, unsupported dtype,
//! slope that does not broadcast, operator/attribute combinations that make no sense, or a
//! dtype the operator does not accept), with one line `wgpu-act: error: ...` on stderr; 1 when
//! no GPU adapter is found or the GPU (or the library's support for this device) fails. Usage
//! errors reported by the argument parser also exit with 2.
#![forbid(unsafe_code)]

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use half::f16;
use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder};
use ndarray_npy::ReadNpyExt;
use ndarray_npy::npy::header::{Header, Layout};
use wgpu_activations::{
    Activation, Context, ContextOptions, DType, ELU_DEFAULT_ALPHA, Element, Error,
    LEAKY_RELU_DEFAULT_ALPHA,
};

#[derive(Debug, Parser)]
#[command(
    name = "wgpu-act",
    version,
    about = "ONNX LeakyRelu, Elu and PRelu on the GPU (wgpu)",
    after_help = "Exit status: 0 success, 2 bad input, 1 no GPU adapter or GPU failure."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands. Each has its own argument struct and `fn`; `bench` is planned and slots
/// in here the same way.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the GPU adapter, backend, driver, native element types and limits.
    Info,
    /// Apply an operator to a .npy tensor on the GPU and write the result as .npy.
    Apply(ApplyArgs),
    /// Run ONNX backend-test case directories and judge each against its expected outputs.
    OnnxTest(OnnxTestArgs),
    /// Run an ONNX model made of LeakyRelu, Elu and PRelu nodes on the GPU.
    Run(RunArgs),
}

#[derive(Debug, Args)]
struct OnnxTestArgs {
    /// Also write what was computed to DIR/<case>/test_data_set_N/output_K.pb.
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
    /// Directory for the outputs, written as <output name>.pb.
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
}

#[derive(Debug, Args)]
struct ApplyArgs {
    /// The operator to run.
    #[arg(long, value_enum)]
    op: Op,
    /// Alpha of leaky-relu (default 0.01) or elu (default 1.0); not accepted by prelu.
    #[arg(long, allow_negative_numbers = true)]
    alpha: Option<f32>,
    /// PRelu's slope, a .npy with X's dtype that broadcasts to X (ONNX PRelu-7+ rule).
    #[arg(long, value_name = "SLOPE.npy")]
    slope: Option<PathBuf>,
    /// The input tensor X.
    #[arg(value_name = "INPUT.npy")]
    input: PathBuf,
    /// Where to write Y (same dtype and shape as X).
    #[arg(value_name = "OUTPUT.npy")]
    output: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Op {
    /// ONNX LeakyRelu.
    LeakyRelu,
    /// ONNX Elu.
    Elu,
    /// ONNX PRelu.
    Prelu,
}

/// Why the command failed, and the exit status that says so.
#[derive(Debug)]
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Bad input: exit status 2.
    fn input(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let code = match error {
            Error::NotBroadcastable { .. }
            | Error::ShapeMismatch { .. }
            | Error::DTypeNotAllowed { .. }
            | Error::DTypeMismatch { .. }
            | Error::InvalidAttribute { .. }
            | Error::OnnxMalformed(_)
            | Error::OnnxUnsupportedDataType { .. }
            | Error::OnnxUnsupportedOp { .. }
            | Error::OnnxGraph(_) => 2,
            // No adapter, device creation, shader or GPU failures, device limits, and pairs the
            // library cannot run on this device: the input is fine, the machine is not.
            _ => 1,
        };
        Self {
            code,
            message: error.to_string(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info => info(),
        Command::Apply(args) => apply(&args),
        Command::OnnxTest(args) => onnx_test(&args),
        Command::Run(args) => run_model(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("wgpu-act: error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn info() -> Result<(), Failure> {
    let ctx = Context::new(ContextOptions::default())?;
    let mut report = format!("{}\ndtype paths:", ctx.info());
    for dtype in DType::ALL {
        report.push_str(&format!("\n  {:<5} {}", dtype.name(), ctx.dtype_path(dtype)));
    }
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{report}") {
        // A closed pipe (`wgpu-act info | head -1`) is not an error.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure {
            code: 1,
            message: format!("cannot write to stdout: {e}"),
        }),
        _ => Ok(()),
    }
}

fn onnx_test(args: &OnnxTestArgs) -> Result<(), Failure> {
    use wgpu_activations::onnx::conformance::{Outcome, run_case};
    let ctx = Context::new(ContextOptions::default())?;
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

fn run_model(args: &RunArgs) -> Result<(), Failure> {
    use std::collections::HashMap;
    use wgpu_activations::onnx::{HostElement, HostTensor, OnnxModel};
    let bytes = fs::read(&args.model)
        .map_err(|e| Failure::input(format!("cannot read {}: {e}", args.model.display())))?;
    let model = OnnxModel::from_bytes(&bytes)?;
    let mut feeds = HashMap::new();
    for spec in &args.inputs {
        let (name, file) = spec
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--input {spec:?} is not NAME=FILE")))?;
        let path = Path::new(file);
        let tensor = if path.extension().is_some_and(|e| e == "npy") {
            let npy = Npy::load(path, "input")?;
            match npy.dtype {
                DType::F16 => HostElement::wrap(f16::decode(&npy)?),
                DType::F32 => HostElement::wrap(f32::decode(&npy)?),
                DType::F64 => HostElement::wrap(f64::decode(&npy)?),
                DType::I32 => HostElement::wrap(i32::decode(&npy)?),
                DType::I64 => HostElement::wrap(i64::decode(&npy)?),
                DType::U32 => HostElement::wrap(u32::decode(&npy)?),
                DType::U64 => HostElement::wrap(u64::decode(&npy)?),
                other => return Err(Failure::input(format!("{file}: dtype {other} cannot come from .npy"))),
            }
        } else {
            let bytes = fs::read(path).map_err(|e| Failure::input(format!("cannot read {file}: {e}")))?;
            HostTensor::decode_pb(&bytes)?
        };
        feeds.insert(name.to_string(), tensor);
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
    let ctx = Context::new(ContextOptions::default())?;
    let outputs = model.run(&ctx, &feeds)?;
    fs::create_dir_all(&args.output).map_err(|e| write_failure(&args.output, e))?;
    let mut used = std::collections::HashSet::new();
    for (k, (name, tensor)) in outputs.into_iter().enumerate() {
        let safe: String = name.chars().map(|c| if c.is_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
        // Two names can sanitise alike ("a/b", "a_b"): the later one gets its index appended.
        let file = if used.insert(safe.clone()) { format!("{safe}.pb") } else { format!("{safe}_{k}.pb") };
        let path = args.output.join(file);
        fs::write(&path, tensor.encode_pb(&name)).map_err(|e| write_failure(&path, e))?;
        println!("{name}: {} {:?} -> {}", tensor.dtype(), tensor.shape(), path.display());
    }
    Ok(())
}

/// What `apply` runs, after the operator/attribute combination has been checked.
#[derive(Debug, Clone, Copy)]
enum Plan {
    Unary(Activation),
    Prelu,
}

fn apply(args: &ApplyArgs) -> Result<(), Failure> {
    let plan = match (args.op, args.alpha, &args.slope) {
        (Op::LeakyRelu | Op::Elu, _, Some(_)) => {
            return Err(Failure::input("--slope applies only to --op prelu"));
        }
        (Op::LeakyRelu, alpha, None) => Plan::Unary(Activation::leaky_relu(
            alpha.unwrap_or(LEAKY_RELU_DEFAULT_ALPHA),
        )),
        (Op::Elu, alpha, None) => Plan::Unary(Activation::elu(alpha.unwrap_or(ELU_DEFAULT_ALPHA))),
        (Op::Prelu, Some(_), _) => {
            return Err(Failure::input(
                "--alpha does not apply to --op prelu (its slope comes from --slope)",
            ));
        }
        (Op::Prelu, None, None) => {
            return Err(Failure::input("--op prelu requires --slope SLOPE.npy"));
        }
        (Op::Prelu, None, Some(_)) => Plan::Prelu,
    };

    // Everything about the input is checked before a GPU is looked for, so bad input is
    // reported as such (exit 2) even on a machine without an adapter.
    let x = Npy::load(&args.input, "X")?;
    let slope = match &args.slope {
        Some(path) => {
            let slope = Npy::load(path, "slope")?;
            if slope.dtype != x.dtype {
                return Err(Failure::input(format!(
                    "slope has dtype {} but X has dtype {}; they must be equal",
                    slope.dtype.onnx_name(),
                    x.dtype.onnx_name()
                )));
            }
            wgpu_activations::unidirectional_slope_shape(&x.header.shape, &slope.header.shape)?;
            Some(slope)
        }
        None => None,
    };
    if let Plan::Unary(activation) = plan {
        if !x.dtype.is_float() {
            return Err(Error::DTypeNotAllowed {
                op: activation.onnx_name(),
                dtype: x.dtype,
                version: None,
            }
            .into());
        }
    }

    match x.dtype {
        DType::F16 => apply_typed::<f16>(plan, &x, slope.as_ref(), &args.output),
        DType::F32 => apply_typed::<f32>(plan, &x, slope.as_ref(), &args.output),
        DType::F64 => apply_typed::<f64>(plan, &x, slope.as_ref(), &args.output),
        DType::I32 => apply_typed::<i32>(plan, &x, slope.as_ref(), &args.output),
        DType::I64 => apply_typed::<i64>(plan, &x, slope.as_ref(), &args.output),
        DType::U32 => apply_typed::<u32>(plan, &x, slope.as_ref(), &args.output),
        DType::U64 => apply_typed::<u64>(plan, &x, slope.as_ref(), &args.output),
        // `Npy::load` maps no descriptor to these; kept so a new DType cannot slip through.
        other => Err(Failure::input(format!(
            "X has dtype {}, which wgpu-act cannot read or write",
            other.onnx_name()
        ))),
    }
}

/// The one generic path every dtype goes through.
fn apply_typed<T: NpyElement>(
    plan: Plan,
    x: &Npy,
    slope: Option<&Npy>,
    output: &Path,
) -> Result<(), Failure> {
    let x_values = T::decode(x)?;
    let slope_values = slope.map(T::decode).transpose()?;
    let ctx = Context::new(ContextOptions::default())?;
    let y = match (plan, slope_values) {
        (Plan::Unary(activation), _) => T::unary(&ctx, activation, x_values.view())?,
        (Plan::Prelu, Some(s)) => wgpu_activations::prelu(&ctx, x_values.view(), s.view())?,
        (Plan::Prelu, None) => return Err(Failure::input("--op prelu requires --slope SLOPE.npy")),
    };
    T::encode(&y, x, output)
}

/// Element types `apply` moves between `.npy` files and the library.
trait NpyElement: Element {
    /// The values of a validated file whose dtype is `Self`.
    fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure>;
    /// Writes `y` to `path` with the dtype (and, for float16, the byte order) of `like`.
    fn encode(y: &ArrayD<Self>, like: &Npy, path: &Path) -> Result<(), Failure>;
    /// LeakyRelu or Elu; refused for the integer types, as ONNX does.
    fn unary(
        ctx: &Context,
        activation: Activation,
        x: ArrayViewD<'_, Self>,
    ) -> wgpu_activations::Result<ArrayD<Self>>;
}

fn decode_with_ndarray_npy<T: ndarray_npy::ReadableElement>(
    npy: &Npy,
) -> Result<ArrayD<T>, Failure> {
    ArrayD::<T>::read_npy(npy.bytes.as_slice()).map_err(|e| {
        Failure::input(format!(
            "cannot read {} from {}: {e}",
            npy.role,
            npy.path.display()
        ))
    })
}

fn encode_with_ndarray_npy<T: ndarray_npy::WritableElement>(
    y: &ArrayD<T>,
    path: &Path,
) -> Result<(), Failure> {
    ndarray_npy::write_npy(path, y).map_err(|e| write_failure(path, e))
}

fn write_failure(path: &Path, error: impl std::fmt::Display) -> Failure {
    Failure::input(format!("cannot write {}: {error}", path.display()))
}

/// `NpyElement` through ndarray-npy; `$unary` is how the type answers LeakyRelu and Elu.
macro_rules! npy_element {
    ($unary:expr; $($t:ty),*) => {$(
        impl NpyElement for $t {
            fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure> {
                decode_with_ndarray_npy(npy)
            }
            fn encode(y: &ArrayD<Self>, _like: &Npy, path: &Path) -> Result<(), Failure> {
                encode_with_ndarray_npy(y, path)
            }
            fn unary(
                ctx: &Context,
                activation: Activation,
                x: ArrayViewD<'_, Self>,
            ) -> wgpu_activations::Result<ArrayD<Self>> {
                $unary(ctx, activation, x)
            }
        }
    )*};
}

fn float_unary<T: wgpu_activations::FloatElement>(
    ctx: &Context,
    activation: Activation,
    x: ArrayViewD<'_, T>,
) -> wgpu_activations::Result<ArrayD<T>> {
    wgpu_activations::activations(ctx, &[activation], x)
}

/// ONNX defines LeakyRelu and Elu on float types only.
fn refuse_unary<T: Element>(
    _ctx: &Context,
    activation: Activation,
    _x: ArrayViewD<'_, T>,
) -> wgpu_activations::Result<ArrayD<T>> {
    Err(Error::DTypeNotAllowed { op: activation.onnx_name(), dtype: T::DTYPE, version: None })
}

npy_element!(float_unary; f32, f64);
npy_element!(refuse_unary; i32, i64, u32, u64);

/// ndarray-npy 0.10 has no float16 element type, so float16 files are decoded and encoded
/// here, with ndarray-npy's header parser and writer.
impl NpyElement for f16 {
    fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure> {
        let values: Vec<f16> = npy.bytes[npy.data_offset..]
            .chunks_exact(2)
            .map(|b| {
                let bits = if npy.big_endian {
                    u16::from_be_bytes([b[0], b[1]])
                } else {
                    u16::from_le_bytes([b[0], b[1]])
                };
                f16::from_bits(bits)
            })
            .collect();
        let shape = IxDyn(&npy.header.shape);
        let array = match npy.header.layout {
            Layout::Standard => ArrayD::from_shape_vec(shape, values),
            Layout::Fortran => ArrayD::from_shape_vec(shape.f(), values),
        };
        array.map_err(|e| {
            Failure::input(format!(
                "cannot read {} from {}: {e}",
                npy.role,
                npy.path.display()
            ))
        })
    }

    fn encode(y: &ArrayD<Self>, like: &Npy, path: &Path) -> Result<(), Failure> {
        let header = Header {
            type_descriptor: like.header.type_descriptor.clone(),
            layout: Layout::Standard,
            shape: y.shape().to_vec(),
        };
        let mut bytes = header.to_bytes().map_err(|e| write_failure(path, e))?;
        bytes.reserve(y.len() * 2);
        for v in y.iter() {
            let bits = v.to_bits();
            bytes.extend_from_slice(&if like.big_endian {
                bits.to_be_bytes()
            } else {
                bits.to_le_bytes()
            });
        }
        fs::write(path, bytes).map_err(|e| write_failure(path, e))
    }

    fn unary(
        ctx: &Context,
        activation: Activation,
        x: ArrayViewD<'_, Self>,
    ) -> wgpu_activations::Result<ArrayD<Self>> {
        wgpu_activations::activations(ctx, &[activation], x)
    }
}

/// The supported `.npy` descriptors: (descriptor, dtype, big-endian).
const DESCRIPTORS: [(&str, DType, bool); 14] = [
    ("<f2", DType::F16, false),
    (">f2", DType::F16, true),
    ("<f4", DType::F32, false),
    (">f4", DType::F32, true),
    ("<f8", DType::F64, false),
    (">f8", DType::F64, true),
    ("<i4", DType::I32, false),
    (">i4", DType::I32, true),
    ("<i8", DType::I64, false),
    (">i8", DType::I64, true),
    ("<u4", DType::U32, false),
    (">u4", DType::U32, true),
    ("<u8", DType::U64, false),
    (">u8", DType::U64, true),
];

/// Longest header accepted (numpy itself refuses headers over 10,000 bytes by default).
const MAX_HEADER_BYTES: usize = 65_536;
/// Deepest bracket nesting accepted in a header (a real one nests 2 deep).
const MAX_HEADER_NESTING: usize = 16;

/// A `.npy` file read into memory whose header has been parsed and checked against its size.
#[derive(Debug)]
struct Npy {
    /// "X" or "slope", for messages.
    role: &'static str,
    path: PathBuf,
    bytes: Vec<u8>,
    header: Header,
    dtype: DType,
    big_endian: bool,
    /// Where the element data starts in `bytes`.
    data_offset: usize,
}

impl Npy {
    fn load(path: &Path, role: &'static str) -> Result<Self, Failure> {
        let bytes = fs::read(path).map_err(|e| {
            Failure::input(format!("cannot read {role} from {}: {e}", path.display()))
        })?;
        let bad = |what: String| Failure::input(format!("{role} file {} {what}", path.display()));

        let data_offset = header_end(&bytes).map_err(bad)?;
        let header = Header::from_reader(&mut &bytes[..data_offset])
            .map_err(|e| bad(format!("has a malformed .npy header: {e}")))?;
        let descriptor = header.type_descriptor.as_string().ok_or_else(|| {
            bad(format!(
                "has a structured dtype {}, which is not supported",
                header.type_descriptor
            ))
        })?;
        let &(_, dtype, big_endian) = DESCRIPTORS
            .iter()
            .find(|(d, _, _)| d == descriptor)
            .ok_or_else(|| bad(unsupported(descriptor)))?;

        let available = bytes.len() - data_offset;
        let needed = header
            .shape
            .iter()
            .try_fold(dtype.size_bytes(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| {
                bad(format!(
                    "has shape {:?}, whose size overflows",
                    header.shape
                ))
            })?;
        if available < needed {
            return Err(bad(format!(
                "is truncated: shape {:?} of {} needs {needed} data bytes, found {available}",
                header.shape,
                dtype.onnx_name()
            )));
        }
        if available > needed {
            return Err(bad(format!(
                "has {} bytes after the data that its header (shape {:?}, {}) does not account for",
                available - needed,
                header.shape,
                dtype.onnx_name()
            )));
        }
        Ok(Self {
            role,
            path: path.to_path_buf(),
            bytes,
            header,
            dtype,
            big_endian,
            data_offset,
        })
    }
}

/// Where the header of a `.npy` file ends, after checking that the whole header is present;
/// everything here is checked so that the header parser never sees a length it cannot trust.
fn header_end(bytes: &[u8]) -> Result<usize, String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if !bytes.starts_with(MAGIC) {
        return Err(if bytes.is_empty() {
            "is empty, not a .npy file".into()
        } else if MAGIC.starts_with(bytes) {
            "is truncated inside the .npy magic string".into()
        } else {
            "is not a .npy file (no \\x93NUMPY magic string)".into()
        });
    }
    let truncated = || String::from("is truncated inside its .npy header");
    let version = bytes.get(6..8).ok_or_else(truncated)?;
    let (length_end, header_len) = match (version[0], version[1]) {
        (1, 0) => {
            let b = bytes.get(8..10).ok_or_else(truncated)?;
            (10, usize::from(u16::from_le_bytes([b[0], b[1]])))
        }
        (2, 0) | (3, 0) => {
            let b = bytes.get(8..12).ok_or_else(truncated)?;
            let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            (12, usize::try_from(len).unwrap_or(usize::MAX))
        }
        (major, minor) => {
            return Err(format!(
                "has unsupported .npy format version {major}.{minor}"
            ));
        }
    };
    if header_len > MAX_HEADER_BYTES {
        return Err(format!(
            "has a {header_len}-byte .npy header; more than {MAX_HEADER_BYTES} is not accepted"
        ));
    }
    let end = length_end + header_len;
    let text = bytes.get(length_end..end).ok_or_else(truncated)?;
    // The header is a Python literal; bound its nesting before a recursive parser sees it.
    let mut depth = 0usize;
    for &c in text {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err("has a malformed .npy header (nested too deeply)".into());
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(end)
}

fn unsupported(descriptor: &str) -> String {
    let code = descriptor.trim_start_matches(['<', '>', '|', '=']);
    let name = match code {
        "b1" | "?" => Some("bool"),
        "i1" | "b" => Some("int8"),
        "u1" | "B" => Some("uint8"),
        "i2" => Some("int16"),
        "u2" => Some("uint16"),
        "c8" => Some("complex64"),
        "c16" => Some("complex128"),
        "f16" | "g" => Some("longdouble"),
        "V2" => Some("2-byte void, e.g. ml_dtypes' bfloat16"),
        _ => None,
    };
    let named = name.map(|n| format!(" ({n})")).unwrap_or_default();
    format!(
        "has dtype {descriptor:?}{named}, which wgpu-act does not support; supported: float16, float32, \
         float64, int32, int64, uint32, uint64 (bfloat16 has no standard .npy dtype)"
    )
}

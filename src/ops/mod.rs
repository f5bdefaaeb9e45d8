//! The operators, each described once. [`UNARY_OPS`] and [`PRELU`] say, for every operator, its
//! ONNX name and versions with their type constraints, its attributes and defaults, its WGSL
//! function, its CPU twin and its accuracy bound per dtype; the kernels, the CPU reference, the
//! ONNX layer, the CLI, the tests' tolerances and the README's table all read these.
//!
//! Each unary operator's CPU twin is the file of this folder named like its WGSL file
//! (`src/ops/elu.rs` and `shaders/ops/elu.wgsl`): the exact result of one element, which the
//! reference rounds once. Adding a unary operator takes its WGSL file, its twin
//! here, its entry and `mod` line in this file, and its regenerated test data (ARCHITECTURE.md,
//! "adding one", has the commands).

use std::fmt;

use crate::cpu::Exact;
use crate::dtype::DType;

/// The functions (and the constant `pi`) a [`UnaryOp::formula`] may use. The test-data generator
/// evaluates formulas with exactly these, mpmath's for finite nonzero `x` and IEEE ones
/// (numpy's NaN-propagating `max` and `min`, Python's `erfc`) otherwise; a test keeps every
/// formula within them.
pub const FORMULA_FUNCTIONS: &[&str] = &["abs", "erfc", "exp", "expm1", "log1p", "max", "min", "pi", "sqrt", "tanh"];

/// Most attributes a unary operator has: the size of its parameter block in the kernel.
pub const MAX_ATTRIBUTES: usize = 4;

/// A unary operator's attribute values, in the order of [`UnaryOp::attributes`].
pub type Attributes = [f32; MAX_ATTRIBUTES];

/// One ONNX version of an operator and the element types it accepts.
#[derive(Debug, Clone, Copy)]
pub struct OpVersion {
    /// The opset that introduced this version.
    pub since: u32,
    /// The element types its type constraint allows.
    pub dtypes: &'static [DType],
}

/// An attribute and its ONNX default. A FLOAT attribute's value is the number itself; a STRING
/// attribute with a fixed set of values (Gelu's `approximate`) has [`Attribute::choices`], and
/// its value in [`Attributes`] is the index of the choice (0.0, 1.0, ...).
#[derive(Debug, Clone, Copy)]
pub struct Attribute {
    /// The ONNX attribute name.
    pub name: &'static str,
    /// Its default value (in the newest version).
    pub default: f32,
    /// Older versions whose default differs: (the version, its default), oldest first.
    pub earlier_defaults: &'static [(u32, f32)],
    /// The values a STRING attribute may take, in index order; empty for a FLOAT attribute.
    pub choices: &'static [&'static str],
    /// Attribute values with a kernel of their own, if the operator has them.
    pub own_kernel: Option<OwnKernel>,
}

/// Attribute values with a kernel of their own (Swish's alpha 1, SiLU; HardSigmoid's alpha and
/// beta where its line through its zero is checked): a shortcut the general kernel cannot take
/// for values it only reads at run time, and that a device running both sides of a branch (a
/// CPU adapter) would pay for everywhere. The twins need not know: both kernels keep the
/// operator's bound. It sits on the operator's first FLOAT attribute and sees them all.
#[derive(Debug, Clone, Copy)]
pub struct OwnKernel {
    /// Its WGSL function's name after the operator's: `<wgsl_fn>_<name>` (`swish_alpha_one`).
    pub name: &'static str,
    /// Whether attribute values (the operator's, in their parameter block) run it.
    pub runs_for: fn(&Attributes) -> bool,
    /// Values of the operator's leading attributes that run it, besides the defaults (the
    /// suites check them too), and a label for them.
    pub example: (&'static [f32], &'static str),
    /// Values that run the general kernel, where every kernel is listed (benchmarks,
    /// validation), and their row's label there.
    pub general: (&'static [f32], &'static str),
}

impl Attribute {
    /// A FLOAT attribute whose default never changed.
    pub const fn new(name: &'static str, default: f32) -> Self {
        Attribute { name, default, earlier_defaults: &[], choices: &[], own_kernel: None }
    }

    /// The same attribute, with values that have a kernel of their own.
    pub const fn with_own_kernel(self, own_kernel: OwnKernel) -> Self {
        Attribute { own_kernel: Some(own_kernel), ..self }
    }

    /// A STRING attribute taking one of `choices`, `default` its index.
    pub const fn choice(name: &'static str, choices: &'static [&'static str], default: usize) -> Self {
        Attribute { name, default: default as f32, earlier_defaults: &[], choices, own_kernel: None }
    }

    /// Its default in operator version `version`.
    pub fn default_at(&self, version: u32) -> f32 {
        self.earlier_defaults.iter().find(|(v, _)| *v == version).map_or(self.default, |(_, d)| *d)
    }

    /// True for a STRING attribute with [`Attribute::choices`].
    pub fn is_choice(&self) -> bool {
        !self.choices.is_empty()
    }

    /// The value `text` stands for: a choice's index, or a FLOAT attribute's number (any f32,
    /// `inf` and `nan` included); `None` if it is neither.
    pub fn value_of(&self, text: &str) -> Option<f32> {
        if self.is_choice() {
            return self.choices.iter().position(|c| *c == text).map(|i| i as f32);
        }
        text.parse().ok()
    }

    /// Whether `value` is one this attribute can take: a choice's index, or any f32.
    pub fn admits(&self, value: f32) -> bool {
        !self.is_choice() || (value >= 0.0 && value.fract() == 0.0 && (value as usize) < self.choices.len())
    }

    /// The choice a STRING attribute's value stands for (`None` for a FLOAT attribute).
    pub fn choice_name(&self, value: f32) -> Option<&'static str> {
        self.admits(value).then(|| self.choices.get(value as usize).copied()).flatten()
    }

    /// What the attribute accepts, for messages: `one of "none", "tanh"`, or `a number`.
    pub fn accepted(&self) -> String {
        if !self.is_choice() {
            return "a number".into();
        }
        let quoted: Vec<String> = self.choices.iter().map(|c| format!("{c:?}")).collect();
        format!("one of {}", quoted.join(", "))
    }
}

/// Largest error against the correctly rounded result, in ULPs, per float dtype (integer results
/// are exact).
#[derive(Debug, Clone, Copy)]
pub struct UlpBounds {
    /// bfloat16.
    pub bf16: u64,
    /// float16.
    pub f16: u64,
    /// float32.
    pub f32: u64,
    /// float64.
    pub f64: u64,
}

impl UlpBounds {
    /// Exact on every dtype.
    pub const EXACT: UlpBounds = UlpBounds { bf16: 0, f16: 0, f32: 0, f64: 0 };

    /// The bound for `dtype` (0 for the integer types).
    pub fn for_dtype(&self, dtype: DType) -> u64 {
        match dtype {
            DType::BF16 => self.bf16,
            DType::F16 => self.f16,
            DType::F32 => self.f32,
            DType::F64 => self.f64,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U32 | DType::U64 => 0,
        }
    }
}

/// Everything the crate knows about one unary operator.
pub struct UnaryOp {
    /// The ONNX op type, e.g. `LeakyRelu`.
    pub onnx_name: &'static str,
    /// The name on the command line (`wgpu-act apply --op leaky-relu`).
    pub cli_name: &'static str,
    /// The ONNX versions, oldest first, with the element types each accepts.
    pub versions: &'static [OpVersion],
    /// Attributes with their ONNX defaults, in the order of the kernel's parameter block.
    pub attributes: &'static [Attribute],
    /// The operator's WGSL file (`shaders/ops/<name>.wgsl`).
    pub(crate) wgsl: &'static str,
    /// The function in it that applies the operator to whole Lanes.
    pub(crate) wgsl_fn: &'static str,
    /// The CPU twin: the result for one element, or `None` where the operator passes X through
    /// bit for bit. The reference rounds it once to the dtype.
    pub(crate) twin: Twin,
    /// Accuracy of the GPU kernels against the correctly rounded result.
    pub max_ulp: UlpBounds,
    /// The real result, for the test-data generator (`tests/data/onnx/generate.py`) and the
    /// docs: a Python expression over `x` and the attribute names (a STRING attribute is its
    /// choice, compared with `==`), with the functions of [`FORMULA_FUNCTIONS`]; `X` is the
    /// input passed through bit for bit.
    pub formula: &'static str,
    /// The spec's function body as the pattern the ONNX runner recognises in `_expanded`
    /// models: ops with their inputs, `X`, attribute names (rank-0 constants, through
    /// `CastLike`), numbers (a float32 constant matches the decimal rounded to float32), and
    /// `Op[attribute=value]` for a node's own attribute; `Add`, `Mul`, `Max`, `Min` and `Sum`
    /// match either order. Where the body depends on a STRING attribute, one body per choice,
    /// separated by `;`, each after `attribute=choice:`. Empty where the spec gives no body.
    pub expansion: &'static str,
    /// The function body casts the attributes to X's dtype (`CastLike(alpha, X)`): the kernel
    /// and the reference round them to the dtype first. False where the kernels compute with
    /// them as f32 (the older operators' products, as ONNX Runtime's kernels do).
    pub attributes_like_x: bool,
    /// The kernel's parameter block from the attribute values (what the WGSL function receives
    /// as `attributes`): the values themselves unless the kernel wants something derived.
    pub(crate) kernel_parameters: fn(&Attributes) -> Attributes,
    /// The bench's target for the kernel, as a share of the copy kernel's speed.
    pub speed_target: SpeedTarget,
    /// The inputs the operator suites sweep, log-spaced: where the operator computes something.
    pub sweep: Sweep,
}

/// Log-spaced test inputs: the signs and the magnitudes (per float width) swept.
#[derive(Debug, Clone, Copy)]
pub struct Sweep {
    /// Negative inputs.
    pub negatives: bool,
    /// Positive inputs.
    pub positives: bool,
    /// Smallest and largest magnitude for f32 (and the 16-bit types computed in f32).
    pub f32_magnitudes: (f64, f64),
    /// Smallest and largest magnitude for f64.
    pub f64_magnitudes: (f64, f64),
}

impl Sweep {
    /// Negatives over the whole range of each width.
    pub const NEGATIVES: Sweep =
        Sweep { negatives: true, positives: false, f32_magnitudes: (1e-45, 3.4e38), f64_magnitudes: (5e-324, 1.7e308) };
    /// Negatives up to where an expm1 saturates at -1 (and a little beyond).
    pub const EXPM1_NEGATIVES: Sweep =
        Sweep { negatives: true, positives: false, f32_magnitudes: (1e-38, 104.0), f64_magnitudes: (1e-300, 800.0) };
    /// Both signs up to where an exponential saturates or underflows (and a little beyond).
    pub const EXP_BOTH_SIGNS: Sweep =
        Sweep { negatives: true, positives: true, f32_magnitudes: (1e-38, 110.0), f64_magnitudes: (1e-300, 750.0) };
    /// Both signs, negatives down to where x e^x underflows (Mish), positives to where the
    /// result is x.
    pub const MISH: Sweep =
        Sweep { negatives: true, positives: true, f32_magnitudes: (1e-38, 120.0), f64_magnitudes: (1e-300, 780.0) };
    /// Both signs, negatives down to where x Phi(x) underflows (Gelu), positives to where the
    /// result is x.
    pub const GELU: Sweep =
        Sweep { negatives: true, positives: true, f32_magnitudes: (1e-38, 16.0), f64_magnitudes: (1e-300, 40.0) };
    /// The values the input is cut at when it is compared with attributes of moderate size.
    pub const AROUND_ONE: Sweep =
        Sweep { negatives: true, positives: true, f32_magnitudes: (1e-6, 1e6), f64_magnitudes: (1e-12, 1e12) };

    /// `n` log-spaced values over this sweep for f32 (`wide` false) or f64 (`wide` true):
    /// half of each sign when both are swept.
    pub fn values(&self, n: usize, wide: bool) -> Vec<f64> {
        let (lo, hi) = if wide { self.f64_magnitudes } else { self.f32_magnitudes };
        let signs: Vec<f64> = [(self.negatives, -1.0), (self.positives, 1.0)]
            .into_iter()
            .filter_map(|(on, sign)| on.then_some(sign))
            .collect();
        let per_sign = n / signs.len().max(1);
        let (lo, hi) = (lo.ln(), hi.ln());
        signs
            .iter()
            .flat_map(|sign| {
                (0..per_sign).map(move |i| sign * (lo + (hi - lo) * i as f64 / (per_sign - 1).max(1) as f64).exp())
            })
            .collect()
    }
}

/// A kernel's speed target as a share of the copy kernel: on a GPU, and on a CPU adapter (where
/// arithmetic, not memory, can bound a kernel) for the 16- and 32-bit types and for f64.
#[derive(Debug, Clone, Copy)]
pub struct SpeedTarget {
    /// On a GPU.
    pub gpu: f64,
    /// On a CPU adapter, 16- and 32-bit types.
    pub cpu_adapter: f64,
    /// On a CPU adapter, f64.
    pub cpu_adapter_f64: f64,
}

impl SpeedTarget {
    /// Memory-bound everywhere: 0.90 of copy.
    pub const STREAMING: SpeedTarget = SpeedTarget { gpu: 0.90, cpu_adapter: 0.90, cpu_adapter_f64: 0.90 };
    /// An expm1 per negative element: 0.90 on a GPU, 0.75 on a CPU adapter, 0.5 for f64 there.
    pub const EXPM1: SpeedTarget = SpeedTarget { gpu: 0.90, cpu_adapter: 0.75, cpu_adapter_f64: 0.5 };
    /// An exponential and a corrected reciprocal per element: 0.90 on a GPU, 0.70 on a CPU
    /// adapter, 0.3 for f64 there (a scalar polynomial of degree 13 per lane).
    pub const EXP: SpeedTarget = SpeedTarget { gpu: 0.90, cpu_adapter: 0.70, cpu_adapter_f64: 0.3 };

    /// An exponential and a logarithm per element (Softplus), or an exponential, a corrected
    /// reciprocal and a product scaled in steps (Swish): 0.90 on a GPU, 0.60 on a CPU adapter,
    /// 0.2 for f64 there.
    pub const EXP_LOG: SpeedTarget = SpeedTarget { gpu: 0.90, cpu_adapter: 0.60, cpu_adapter_f64: 0.2 };

    /// An exponential, an exactly corrected reciprocal and an exact product per element (Mish,
    /// Gelu): 0.90 on a GPU, 0.40 on a CPU adapter, 0.15 for f64 there.
    pub const EXP_RECIPROCAL_PRODUCT: SpeedTarget = SpeedTarget { gpu: 0.90, cpu_adapter: 0.40, cpu_adapter_f64: 0.15 };

    /// The target for `dtype` on a GPU or a CPU adapter.
    pub fn for_dtype(&self, dtype: DType, on_cpu_adapter: bool) -> f64 {
        match (on_cpu_adapter, dtype) {
            (false, _) => self.gpu,
            (true, DType::F64) => self.cpu_adapter_f64,
            (true, _) => self.cpu_adapter,
        }
    }
}

/// An operator's CPU twin (`src/ops/<op>.rs`), one generic function instantiated for both
/// arithmetics of [`crate::cpu::Real`]: f64 for the narrower dtypes, [`Exact`] for f64.
#[derive(Clone, Copy)]
pub(crate) struct Twin {
    pub(crate) fast: fn(f64, &Attributes) -> Option<f64>,
    pub(crate) exact: fn(Exact, &Attributes) -> Option<Exact>,
}

/// The [`Twin`] of a generic twin function.
macro_rules! twin {
    ($($path:ident)::+) => {
        Twin { fast: $($path)::+::<f64>, exact: $($path)::+::<Exact> }
    };
}

/// The table of unary operators: each entry `STATIC = module { fields }` makes the public
/// static, its place in [`UNARY_OPS`], and the three things named after `module`: the twin's
/// file `src/ops/<module>.rs` (its function `<module>`), the kernel's file
/// `shaders/ops/<module>.wgsl`, and its WGSL function `<module>`.
macro_rules! unary_ops {
    ($($(#[$doc:meta])* $name:ident = $module:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        $(mod $module;)*
        $(
            $(#[$doc])*
            pub static $name: UnaryOp = UnaryOp {
                wgsl: include_str!(concat!("../../shaders/ops/", stringify!($module), ".wgsl")),
                wgsl_fn: stringify!($module),
                twin: twin!($module::$module),
                $($field: $value),*
            };
        )*
        /// Every unary operator, in the order of the table.
        pub static UNARY_OPS: &[&UnaryOp] = &[$(&$name),*];
    };
}

#[cfg(test)]
pub(crate) use hard_sigmoid::LINES_THROUGH_THEIR_ZERO as HARD_SIGMOID_LINES_THROUGH_THEIR_ZERO;

/// [`UnaryOp::kernel_parameters`] of a kernel that takes the attribute values as they are.
fn same_parameters(attributes: &Attributes) -> Attributes {
    *attributes
}

impl fmt::Debug for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnaryOp").field("onnx_name", &self.onnx_name).finish_non_exhaustive()
    }
}

impl PartialEq for UnaryOp {
    fn eq(&self, other: &Self) -> bool {
        self.onnx_name == other.onnx_name
    }
}

/// The binary operator PRelu: `Where(X < 0, slope * X, X)` with the slope broadcast to X.
#[derive(Debug)]
pub struct BinaryOp {
    /// The ONNX op type.
    pub onnx_name: &'static str,
    /// The name on the command line.
    pub cli_name: &'static str,
    /// The ONNX versions, oldest first, with the element types each accepts. Versions before 7
    /// apply a 1-D slope per channel along axis 1 ([`crate::per_channel_slope_shape`]).
    pub versions: &'static [OpVersion],
    /// Accuracy against the correctly rounded result.
    pub max_ulp: UlpBounds,
    /// The real result (see [`UnaryOp::formula`]); `slope` is the broadcast slope.
    pub formula: &'static str,
    /// The function body's pattern (see [`UnaryOp::expansion`]); `slope` is the second input.
    pub expansion: &'static str,
}

const FLOATS: &[DType] = &[DType::F16, DType::F32, DType::F64];
const FLOATS_BF16: &[DType] = &[DType::BF16, DType::F16, DType::F32, DType::F64];
const FLOATS_SIGNED: &[DType] =
    &[DType::BF16, DType::F16, DType::F32, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64];
const NUMBERS: &[DType] = &[DType::F16, DType::F32, DType::F64, DType::I32, DType::I64, DType::U32, DType::U64];

#[cfg(any(feature = "onnx", feature = "bench"))]
pub(crate) mod expansion;

unary_ops! {
    /// LeakyRelu: `Where(X < 0, alpha * X, X)`.
    LEAKY_RELU = leaky_relu {
        onnx_name: "LeakyRelu",
        cli_name: "leaky-relu",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 16, dtypes: FLOATS_BF16 },
        ],
        attributes: &[Attribute::new("alpha", LEAKY_RELU_DEFAULT_ALPHA)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 0, f64: 0 },
        formula: "alpha * x if x < 0 else X",
        expansion: "Where(Less(X, 0), Mul(alpha, X), X)",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::NEGATIVES,
    }

    /// Elu: `Where(X < 0, alpha * (exp(X) - 1), X)`.
    ELU = elu {
        onnx_name: "Elu",
        cli_name: "elu",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 22, dtypes: FLOATS_BF16 },
        ],
        attributes: &[Attribute::new("alpha", ELU_DEFAULT_ALPHA)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "alpha * expm1(x) if x < 0 else X",
        expansion: "Where(Less(X, 0), Mul(alpha, Sub(Exp(X), 1)), X)",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXPM1,
        sweep: Sweep::EXPM1_NEGATIVES,
    }

    /// Selu: `Where(X < 0, gamma * (alpha * exp(X) - alpha), gamma * X)`.
    SELU = selu {
        onnx_name: "Selu",
        cli_name: "selu",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 22, dtypes: FLOATS_BF16 },
        ],
        attributes: &[
            Attribute { name: "alpha", default: 1.673_263_2, earlier_defaults: &[(1, 1.6732)], choices: &[], own_kernel: None },
            Attribute { name: "gamma", default: 1.050_701, earlier_defaults: &[(1, 1.0507)], choices: &[], own_kernel: None },
        ],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "gamma * alpha * expm1(x) if x < 0 else gamma * x",
        expansion: "Where(Less(X, 0), Mul(gamma, Sub(Mul(alpha, Exp(X)), alpha)), Mul(gamma, X))",
        attributes_like_x: false,
        kernel_parameters: selu::selu_parameters,
        speed_target: SpeedTarget::EXPM1,
        sweep: Sweep { positives: true, ..Sweep::EXPM1_NEGATIVES },
    }

    /// Celu: `alpha * Elu(X / alpha)`, i.e. `max(0, X) + min(0, alpha * (exp(X / alpha) - 1))`.
    CELU = celu {
        onnx_name: "Celu",
        cli_name: "celu",
        versions: &[OpVersion { since: 12, dtypes: &[DType::F32] }, OpVersion { since: 28, dtypes: FLOATS_BF16 }],
        attributes: &[Attribute::new("alpha", 1.0)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 3 },
        formula: "alpha * expm1(x / alpha) if x / alpha < 0 else X",
        expansion: "Mul(alpha, Elu[alpha=1](Div(X, alpha)))",
        attributes_like_x: false,
        kernel_parameters: celu::celu_parameters,
        speed_target: SpeedTarget::EXPM1,
        sweep: Sweep::EXPM1_NEGATIVES,
    }

    /// Relu: `Max(X, 0)`, -0.0 giving +0.0 and NaN passing through.
    RELU = relu {
        onnx_name: "Relu",
        cli_name: "relu",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 13, dtypes: FLOATS_BF16 },
            OpVersion { since: 14, dtypes: FLOATS_SIGNED },
        ],
        attributes: &[],
        max_ulp: UlpBounds::EXACT,
        formula: "0 if x <= 0 else X",
        expansion: "Max(X, 0)",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep { positives: true, ..Sweep::NEGATIVES },
    }

    /// HardSigmoid: `Max(Min(alpha * X + beta, 1), 0)`.
    HARD_SIGMOID = hard_sigmoid {
        onnx_name: "HardSigmoid",
        cli_name: "hard-sigmoid",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 22, dtypes: FLOATS_BF16 },
        ],
        attributes: &[
            Attribute::new("alpha", 0.2).with_own_kernel(OwnKernel {
                name: "through_zero",
                runs_for: hard_sigmoid::runs_through_zero,
                example: (&[0.166_666_67, 0.5], "alpha 1/6"),
                general: (&[0.25, 0.4], "alpha 0.25 beta 0.4"),
            }),
            Attribute::new("beta", 0.5),
        ],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 1, f64: 1 },
        formula: "max(0, min(1, alpha * x + beta))",
        expansion: "Max(Min(Add(Mul(X, alpha), beta), 1), 0)",
        attributes_like_x: false,
        kernel_parameters: hard_sigmoid::hard_sigmoid_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::AROUND_ONE,
    }

    /// HardSwish: `X * HardSigmoid<alpha = 0.16666667, beta = 0.5>(X)`.
    HARD_SWISH = hard_swish {
        onnx_name: "HardSwish",
        cli_name: "hard-swish",
        versions: &[OpVersion { since: 14, dtypes: FLOATS }, OpVersion { since: 22, dtypes: FLOATS_BF16 }],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "x * max(0, min(1, 0.1666666716337204 * x + 0.5))",
        expansion: "Mul(X, HardSigmoid[alpha=0.16666667, beta=0.5](X))",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::AROUND_ONE,
    }

    /// Softsign: `X / (1 + |X|)`.
    SOFTSIGN = softsign {
        onnx_name: "Softsign",
        cli_name: "softsign",
        versions: &[OpVersion { since: 1, dtypes: FLOATS }, OpVersion { since: 22, dtypes: FLOATS_BF16 }],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 1, f64: 1 },
        formula: "x / (1 + abs(x))",
        expansion: "Div(X, Add(1, Abs(X)))",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep { positives: true, ..Sweep::NEGATIVES },
    }

    /// Sigmoid: `1 / (1 + exp(-X))`.
    SIGMOID = sigmoid {
        onnx_name: "Sigmoid",
        cli_name: "sigmoid",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 13, dtypes: FLOATS_BF16 },
        ],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "1 / (1 + exp(-x))",
        expansion: "",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP,
        sweep: Sweep::EXP_BOTH_SIGNS,
    }

    /// Tanh: `tanh(X)`.
    TANH = tanh {
        onnx_name: "Tanh",
        cli_name: "tanh",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 13, dtypes: FLOATS_BF16 },
        ],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "tanh(x)",
        expansion: "",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP,
        sweep: Sweep::EXP_BOTH_SIGNS,
    }

    /// Mish: `Mul(X, Tanh(Softplus(X)))`.
    MISH = mish {
        onnx_name: "Mish",
        cli_name: "mish",
        versions: &[OpVersion { since: 18, dtypes: FLOATS }, OpVersion { since: 22, dtypes: FLOATS_BF16 }],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
        formula: "x * tanh(log1p(exp(x)))",
        expansion: "Mul(X, Tanh(Softplus(X)))",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP_RECIPROCAL_PRODUCT,
        sweep: Sweep::MISH,
    }

    /// Gelu: `0.5 * X * (1 + Erf(X / sqrt(2)))`, or with `approximate = "tanh"` `0.5 * X * (1 +
    /// Tanh(sqrt(2 / pi) * (X + 0.044715 * X^3)))`.
    GELU = gelu {
        onnx_name: "Gelu",
        cli_name: "gelu",
        versions: &[OpVersion { since: 20, dtypes: FLOATS_BF16 }],
        attributes: &[Attribute::choice("approximate", &["none", "tanh"], 0)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
        formula: "x * erfc(-x / sqrt(2)) / 2 if approximate == 'none' else x / (1 + exp(-2 * sqrt(2 / pi) * (x + x**3 * 44715 / 1000000)))",
        expansion: "approximate=none: Mul(Mul(0.5, X), Sum(1, Erf(Div(X, Sqrt(2))))); approximate=tanh: Mul(Mul(0.5, X), Sum(1, Tanh(Mul(Sqrt(0.63661977236), Sum(X, Mul(0.044715, Pow(X, 3)))))))",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP_RECIPROCAL_PRODUCT,
        sweep: Sweep::GELU,
    }

    /// Softplus: `Log(Add(Exp(X), 1))`.
    SOFTPLUS = softplus {
        onnx_name: "Softplus",
        cli_name: "softplus",
        versions: &[OpVersion { since: 1, dtypes: FLOATS }, OpVersion { since: 22, dtypes: FLOATS_BF16 }],
        attributes: &[],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 2, f64: 2 },
        formula: "log1p(exp(x))",
        expansion: "Log(Add(Exp(X), 1))",
        attributes_like_x: false,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP_LOG,
        sweep: Sweep::EXP_BOTH_SIGNS,
    }

    /// Swish: `Mul(X, Sigmoid(Mul(CastLike(alpha, X), X)))`.
    SWISH = swish {
        onnx_name: "Swish",
        cli_name: "swish",
        versions: &[OpVersion { since: 24, dtypes: FLOATS_BF16 }],
        attributes: &[Attribute::new("alpha", 1.0).with_own_kernel(OwnKernel {
            name: "alpha_one",
            runs_for: |attributes| attributes[0].to_bits() == 1.0f32.to_bits(),
            example: (&[1.0], "alpha 1"),
            general: (&[1.702], "alpha 1.702"),
        })],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
        formula: "x / (1 + exp(-alpha * x))",
        expansion: "Mul(X, Sigmoid(Mul(alpha, X)))",
        attributes_like_x: true,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::EXP_LOG,
        sweep: Sweep::EXP_BOTH_SIGNS,
    }

    /// ThresholdedRelu: `Where(Less(CastLike(alpha, X), X), X, 0)`.
    THRESHOLDED_RELU = thresholded_relu {
        onnx_name: "ThresholdedRelu",
        cli_name: "thresholded-relu",
        versions: &[OpVersion { since: 10, dtypes: FLOATS }, OpVersion { since: 22, dtypes: FLOATS_BF16 }],
        attributes: &[Attribute::new("alpha", 1.0)],
        max_ulp: UlpBounds::EXACT,
        formula: "X if x > alpha else 0",
        expansion: "Where(Less(alpha, X), X, 0)",
        attributes_like_x: true,
        kernel_parameters: same_parameters,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::AROUND_ONE,
    }
}

/// PRelu: `Where(X < 0, slope * X, X)`.
pub static PRELU: BinaryOp = BinaryOp {
    onnx_name: "PRelu",
    cli_name: "prelu",
    versions: &[
        OpVersion { since: 1, dtypes: FLOATS },
        OpVersion { since: 6, dtypes: FLOATS },
        OpVersion { since: 7, dtypes: FLOATS },
        OpVersion { since: 9, dtypes: NUMBERS },
        OpVersion {
            since: 16,
            dtypes: &[DType::BF16, DType::F16, DType::F32, DType::F64, DType::I32, DType::I64, DType::U32, DType::U64],
        },
    ],
    max_ulp: UlpBounds::EXACT,
    formula: "slope * x if x < 0 else X",
    expansion: "Where(Less(X, 0), Mul(slope, X), X)",
};

/// LeakyRelu's default alpha (ONNX).
pub const LEAKY_RELU_DEFAULT_ALPHA: f32 = 0.01;
/// Elu's default alpha (ONNX).
pub const ELU_DEFAULT_ALPHA: f32 = 1.0;

/// The bound a chain of steps is held to, from its steps' own bounds (each against the
/// correctly rounded result of its own input): the bound itself for one step, 0 when every
/// step is exact, else 2 x the sum plus one per step. Every step here keeps relative errors
/// (scalings, and expm1 whose condition number is below 1 where Elu uses it), but a ULP spans
/// a factor of 2 of relative error within a binade, and each step rounds again. A step that
/// scales up an earlier step's rounding (a large PRelu slope after a subnormal result) breaks
/// that premise: [`crate::reference::check_chain`] follows such chains element by element.
pub fn chain_bound(bounds: impl IntoIterator<Item = u64>) -> u64 {
    let bounds: Vec<u64> = bounds.into_iter().collect();
    match bounds.as_slice() {
        [single] => *single,
        _ if bounds.iter().all(|&b| b == 0) => 0,
        _ => 2 * bounds.iter().sum::<u64>() + bounds.len() as u64,
    }
}

/// A chain's name in messages: `copy` when it has no steps, else its steps' ONNX names joined
/// by ` -> `.
pub(crate) fn chain_label(names: impl IntoIterator<Item = &'static str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() { "copy".into() } else { names.join(" -> ") }
}

/// The version of an operator with `versions` that a model importing `opset` runs: the newest
/// one not newer than the opset.
pub fn version_at(versions: &'static [OpVersion], opset: i64) -> Option<&'static OpVersion> {
    versions.iter().rev().find(|v| i64::from(v.since) <= opset)
}

/// True when some version of an operator accepts `dtype`.
pub fn accepts(versions: &[OpVersion], dtype: DType) -> bool {
    versions.iter().any(|v| v.dtypes.contains(&dtype))
}

impl UnaryOp {
    /// True when some ONNX version of the operator accepts `dtype`.
    pub fn accepts(&self, dtype: DType) -> bool {
        accepts(self.versions, dtype)
    }

    /// The unary operator with this ONNX name or command-line name.
    pub fn find(name: &str) -> Option<&'static UnaryOp> {
        UNARY_OPS.iter().copied().find(|op| op.onnx_name == name || op.cli_name == name)
    }

    /// The default attribute values of the newest version, in parameter-block order.
    pub fn default_attributes(&self) -> Attributes {
        self.default_attributes_at(u32::MAX) // no version is that new: every attribute's `default`
    }

    /// The default attribute values of operator version `version`, in parameter-block order.
    pub fn default_attributes_at(&self, version: u32) -> Attributes {
        let mut values = [0.0; MAX_ATTRIBUTES];
        for (slot, attribute) in values.iter_mut().zip(self.attributes) {
            *slot = attribute.default_at(version);
        }
        values
    }

    /// The position of attribute `name` in the parameter block.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }

    /// Attribute `name`, if the operator has it.
    pub fn attribute(&self, name: &str) -> Option<&'static Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The operator's STRING attribute and its place in the parameter block, if it has one.
    fn choice_attribute(&self) -> Option<(usize, &'static Attribute)> {
        self.attributes.iter().enumerate().find(|(_, a)| a.is_choice())
    }

    /// Attribute values with a kernel of their own, if the operator has them.
    fn own_kernel(&self) -> Option<OwnKernel> {
        self.attributes.iter().find_map(|a| a.own_kernel)
    }

    /// Which of the operator's kernel functions `attributes` run: the index of the choice of
    /// its STRING attribute (Gelu's erf form 0, its tanh form 1), the default's for a value that
    /// is no choice's index; for values with a kernel of their own ([`OwnKernel`]) that kernel,
    /// 1, and 0 for any others; 0 for an operator without either. A choice or a value's own
    /// kernel is a different function, not a number the kernel reads: each is a kernel of its
    /// own, so that a device that runs both sides of a branch (a CPU adapter) pays for one. The
    /// twins read it too.
    pub(crate) fn kernel_variant(&self, attributes: &Attributes) -> u8 {
        if let Some((index, attribute)) = self.choice_attribute() {
            let value = attributes[index];
            return (if attribute.admits(value) { value } else { attribute.default }) as u8;
        }
        self.own_kernel().map_or(0, |own| u8::from((own.runs_for)(attributes)))
    }

    /// The WGSL function of kernel variant `variant`: `wgsl_fn` for the default choice (and for
    /// operators without one), `<wgsl_fn>_<choice>` for another (`gelu_tanh`), `<wgsl_fn>_<name>`
    /// for a value's own kernel (`swish_alpha_one`).
    pub(crate) fn kernel_function(&self, variant: u8) -> String {
        let own = self.own_kernel().filter(|_| variant == 1).map(|own| own.name);
        match own.or_else(|| self.variant_choice(variant)) {
            Some(name) => format!("{}_{name}", self.wgsl_fn),
            None => self.wgsl_fn.to_string(),
        }
    }

    /// The name of kernel variant `variant` where it is not the default's: its choice.
    fn variant_choice(&self, variant: u8) -> Option<&'static str> {
        let (_, attribute) = self.choice_attribute()?;
        let choice = attribute.choices.get(usize::from(variant))?;
        (f32::from(variant) != attribute.default).then_some(*choice)
    }

    /// Every kernel variant of the operator with attributes that run it and a label for them,
    /// the defaults' first, labelled `""`: a STRING attribute set to each choice (labelled by
    /// it); the defaults and an [`OwnKernel`]'s values for the other kernel (labelled by it);
    /// one for an operator with neither.
    #[cfg(any(test, feature = "bench"))]
    pub(crate) fn kernel_variants(&self) -> Vec<(u8, Attributes, &'static str)> {
        let defaults = self.default_attributes();
        if let Some((index, attribute)) = self.choice_attribute() {
            return (0..attribute.choices.len() as u8)
                .map(|variant| {
                    let mut attributes = defaults;
                    attributes[index] = f32::from(variant);
                    (variant, attributes, self.variant_choice(variant).unwrap_or(""))
                })
                .collect();
        }
        let Some(own) = self.own_kernel() else {
            return vec![(0, defaults, "")];
        };
        let (values, label) = if self.kernel_variant(&defaults) == 1 { own.general } else { own.example };
        let mut other = defaults;
        other[..values.len()].copy_from_slice(values);
        vec![(self.kernel_variant(&defaults), defaults, ""), (self.kernel_variant(&other), other, label)]
    }
}

/// The operators and what they accept, as a markdown table: for each operator its ONNX
/// versions, and per element type its accuracy bound against the correctly rounded result
/// (`exact`, or `<= N ULP`), the opset from which a version accepts it when not from the
/// first, or `-` where no version does. `wgpu-act ops` prints it and the README carries it.
pub fn markdown_table() -> String {
    let dtypes = DType::ALL;
    let mut table = String::from("| op | ONNX versions | Y |");
    for dtype in dtypes {
        table.push_str(&format!(" {} |", dtype.name()));
    }
    table.push_str("\n|---|---|---|");
    table.push_str(&"---|".repeat(dtypes.len()));
    let rows = UNARY_OPS.iter().map(|op| (op.onnx_name, op.versions, op.formula, op.max_ulp)).chain([(
        PRELU.onnx_name,
        PRELU.versions,
        PRELU.formula,
        PRELU.max_ulp,
    )]);
    for (name, versions, formula, bounds) in rows {
        let listed: Vec<String> = versions.iter().map(|v| v.since.to_string()).collect();
        table.push_str(&format!("\n| {name} | {} | `{formula}` |", listed.join(", ")));
        for dtype in dtypes {
            let cell = match versions.iter().find(|v| v.dtypes.contains(&dtype)) {
                None => "-".to_string(),
                Some(first) => {
                    let bound = match bounds.for_dtype(dtype) {
                        0 => "exact".to_string(),
                        n => format!("<= {n} ULP"),
                    };
                    if first.since == versions[0].since { bound } else { format!("{bound} (from {})", first.since) }
                }
            };
            table.push_str(&format!(" {cell} |"));
        }
    }
    table
}

/// One step of a chain, the one step type from the ONNX plan to the kernel: an operator of the
/// table with its attribute values `A`, or PRelu, the operator with a second input, with its
/// slope held as `S`. Each layer holds the slope its own way: a device tensor
/// ([`crate::Activation`]), a host view ([`crate::reference::ChainStep`]), a window of a device
/// tensor (a recorded job), the way the kernel gathers it (a kernel key, whose steps carry no
/// attributes: `A = ()`), a graph value's name (the ONNX plan), or nothing at all (an
/// operator by itself: [`Operator`]).
#[derive(Debug, Clone, Copy)]
pub enum Step<S, A = Attributes> {
    /// A unary operator with its attribute values (in the order of [`UnaryOp::attributes`]).
    Unary(&'static UnaryOp, A),
    /// PRelu with its slope.
    Prelu(S),
}

/// An operator of the table by itself, without attributes or inputs.
pub type Operator = Step<(), ()>;

impl<S, A> Step<S, A> {
    /// The operator of this step, without its attributes and slope.
    pub fn operator(&self) -> Operator {
        match self {
            Step::Unary(op, _) => Step::Unary(op, ()),
            Step::Prelu(_) => Step::Prelu(()),
        }
    }

    /// The ONNX op type.
    pub fn onnx_name(&self) -> &'static str {
        match self {
            Step::Unary(op, _) => op.onnx_name,
            Step::Prelu(_) => PRELU.onnx_name,
        }
    }

    /// The name on the command line.
    pub fn cli_name(&self) -> &'static str {
        match self {
            Step::Unary(op, _) => op.cli_name,
            Step::Prelu(_) => PRELU.cli_name,
        }
    }

    /// The operator's ONNX versions, oldest first.
    pub fn versions(&self) -> &'static [OpVersion] {
        match self {
            Step::Unary(op, _) => op.versions,
            Step::Prelu(_) => PRELU.versions,
        }
    }

    /// The operator's accuracy bounds.
    pub fn max_ulp(&self) -> UlpBounds {
        match self {
            Step::Unary(op, _) => op.max_ulp,
            Step::Prelu(_) => PRELU.max_ulp,
        }
    }

    /// How many inputs a node of the operator takes: X, and PRelu's slope.
    pub fn inputs(&self) -> usize {
        match self {
            Step::Unary(..) => 1,
            Step::Prelu(_) => 2,
        }
    }

    /// True when some ONNX version of the operator accepts `dtype`.
    pub fn accepts(&self, dtype: DType) -> bool {
        accepts(self.versions(), dtype)
    }

    /// The unary operator of this step (`None` for PRelu).
    pub fn unary_op(&self) -> Option<&'static UnaryOp> {
        match self {
            Step::Unary(op, _) => Some(op),
            Step::Prelu(_) => None,
        }
    }

    /// The slope of a PRelu step.
    pub fn slope(&self) -> Option<&S> {
        match self {
            Step::Prelu(slope) => Some(slope),
            Step::Unary(..) => None,
        }
    }

    /// The same step borrowing its slope.
    pub fn as_ref(&self) -> Step<&S, A>
    where
        A: Copy,
    {
        match self {
            Step::Unary(op, attributes) => Step::Unary(op, *attributes),
            Step::Prelu(slope) => Step::Prelu(slope),
        }
    }

    /// The same step with its slope held another way.
    pub fn map_slope<U>(self, f: impl FnOnce(S) -> U) -> Step<U, A> {
        match self {
            Step::Unary(op, attributes) => Step::Unary(op, attributes),
            Step::Prelu(slope) => Step::Prelu(f(slope)),
        }
    }

    /// [`Step::map_slope`] with a conversion that can fail.
    pub fn try_map_slope<U, E>(self, f: impl FnOnce(S) -> Result<U, E>) -> Result<Step<U, A>, E> {
        Ok(match self {
            Step::Unary(op, attributes) => Step::Unary(op, attributes),
            Step::Prelu(slope) => Step::Prelu(f(slope)?),
        })
    }
}

impl Operator {
    /// The operator with this ONNX op type (exactly: ONNX op types are case-sensitive).
    pub fn find(op_type: &str) -> Option<Operator> {
        if op_type == PRELU.onnx_name {
            return Some(Step::Prelu(()));
        }
        UNARY_OPS.iter().find(|op| op.onnx_name == op_type).map(|op| Step::Unary(op, ()))
    }
}

/// Steps are equal when their operators are the same table entry and their attributes and
/// slopes are equal.
impl<S: PartialEq, A: PartialEq> PartialEq for Step<S, A> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Step::Unary(a, x), Step::Unary(b, y)) => std::ptr::eq(*a, *b) && x == y,
            (Step::Prelu(a), Step::Prelu(b)) => a == b,
            _ => false,
        }
    }
}

impl<S: Eq, A: Eq> Eq for Step<S, A> {}

impl<S: std::hash::Hash, A: std::hash::Hash> std::hash::Hash for Step<S, A> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Step::Unary(op, variant) => (0u8, op.onnx_name, variant).hash(state),
            Step::Prelu(slope) => (1u8, slope).hash(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With `WGPU_ACTIVATIONS_BLESS=1` the test writes the table into README.md instead.
    #[test]
    fn the_readme_carries_the_generated_operator_table() {
        let readme = include_str!("../../README.md");
        if readme.contains(markdown_table().trim()) {
            return;
        }
        let (begin, end) = ("<!-- generated by `wgpu-act ops`", "<!-- end of generated table -->");
        if std::env::var("WGPU_ACTIVATIONS_BLESS").is_ok_and(|v| v == "1") {
            let (Some(b), Some(e)) = (readme.find(begin), readme.find(end)) else {
                panic!("README.md lost its markers")
            };
            let b = b + readme[b..].find('\n').map_or(0, |n| n + 1);
            let updated = format!("{}{}\n{}", &readme[..b], markdown_table(), &readme[e..]);
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), updated).expect("README.md is writable");
            return;
        }
        panic!(
            "README.md's operator table differs from `wgpu-act ops`: rerun with WGPU_ACTIVATIONS_BLESS=1, or paste:\n{}",
            markdown_table()
        );
    }

    /// Every word of every formula is a function of [`FORMULA_FUNCTIONS`], an attribute or one
    /// of its choices, `x`, `X`, or Python's `if`, `else`, `and`, `or`, `not`.
    #[test]
    fn formulas_use_only_the_functions_the_generator_knows() {
        for op in UNARY_OPS.iter() {
            let words = op.formula.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            for word in words.filter(|w| w.starts_with(|c: char| c.is_alphabetic())) {
                let known = FORMULA_FUNCTIONS.contains(&word)
                    || op.attributes.iter().any(|a| a.name == word || a.choices.contains(&word))
                    || ["x", "X", "if", "else", "and", "or", "not"].contains(&word);
                assert!(known, "{}'s formula uses {word:?}", op.onnx_name);
            }
        }
    }

    #[test]
    fn names_and_attributes_are_unique_and_fit_the_parameter_block() {
        for (i, op) in UNARY_OPS.iter().enumerate() {
            assert!(op.attributes.len() <= MAX_ATTRIBUTES, "{}", op.onnx_name);
            for (variant, attributes, _) in op.kernel_variants() {
                assert_eq!(op.kernel_variant(&attributes), variant);
                let function = op.kernel_function(variant);
                assert!(op.wgsl.contains(&format!("fn {function}(x: Lanes, attributes: vec4<f32>) -> Lanes")));
            }
            for other in &UNARY_OPS[i + 1..] {
                assert_ne!(op.onnx_name, other.onnx_name);
                assert_ne!(op.cli_name, other.cli_name);
            }
            assert!(op.versions.windows(2).all(|w| w[0].since < w[1].since));
        }
        assert_eq!(UnaryOp::find("leaky-relu"), Some(&LEAKY_RELU));
        assert_eq!(UnaryOp::find("Elu"), Some(&ELU));
        assert_eq!(version_at(LEAKY_RELU.versions, 15).map(|v| v.since), Some(6));
        assert!(version_at(PRELU.versions, 0).is_none());
        assert_eq!(chain_bound([2]), 2);
        assert_eq!(chain_bound([0, 0, 0]), 0);
        assert_eq!(chain_bound([2, 0, 0]), 7);
    }
}

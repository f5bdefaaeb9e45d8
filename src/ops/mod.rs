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

mod axis;
mod entry;
mod gated;
mod plain_products;
mod step;

pub use axis::{AXIS_OPS, AxisKind, AxisOp, FIRST_SINGLE_AXIS_VERSION, HARDMAX, LOG_SOFTMAX, SOFTMAX};
pub use gated::{GatedOp, SWIGLU};

#[cfg(feature = "onnx")]
pub(crate) use clip::bound_without_effect;
pub(crate) use plain_products::PlainRange;

pub(crate) use entry::Twin;
pub use entry::{Attribute, BinaryOp, OpVersion, OwnKernel, SpeedTarget, Sweep, UlpBounds, UnaryOp, markdown_table};
pub use step::{Operator, Step};

use crate::dtype::DType;
use crate::real::Exact;

/// The functions (and the constant `pi`) a [`UnaryOp::formula`] may use. The test-data generator
/// evaluates formulas with exactly these, mpmath's for finite nonzero `x` and IEEE ones
/// (numpy's NaN-propagating `max` and `min`, Python's `erfc`) otherwise; a test keeps every
/// formula within them.
pub const FORMULA_FUNCTIONS: &[&str] = &["abs", "erfc", "exp", "expm1", "log1p", "max", "min", "pi", "sqrt", "tanh"];

/// Most attributes a unary operator has, their residuals included: the size of its parameter
/// block in the kernel.
pub const MAX_ATTRIBUTES: usize = 4;

/// Slots after the first [`MAX_ATTRIBUTES`] that hold a bound of X's type in full, two a bound
/// (its low and high words, as the bits of two f32): Clip's min and max of an f64 X where no f32
/// holds them (`Activation::set_f64`). The host packs them into the parameter block of an f64
/// kernel in place of the f32 bounds (`UnaryOp::parameter_block`).
pub const BOUND_WORD_SLOTS: usize = 4;

/// A unary operator's attribute values, in the order of [`UnaryOp::attributes`], then the
/// residuals of attributes that come as inputs of X's type, then [`BOUND_WORD_SLOTS`].
pub type Attributes = [f32; MAX_ATTRIBUTES + BOUND_WORD_SLOTS];

/// What a kernel's WGSL function receives as `attributes`, from [`UnaryOp::parameter_block`].
pub(crate) type ParameterBlock = [f32; MAX_ATTRIBUTES];

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
fn same_parameters(attributes: &Attributes) -> ParameterBlock {
    leading_slots(attributes)
}

/// [`Attributes`] of `values` in their order (those beyond the slots are left out), the slots
/// after them 0: a [`Step`]'s attributes, `[alpha]` for LeakyRelu.
pub fn attributes_from(values: &[f32]) -> Attributes {
    let mut attributes = [0.0; MAX_ATTRIBUTES + BOUND_WORD_SLOTS];
    for (slot, value) in attributes.iter_mut().zip(values) {
        *slot = *value;
    }
    attributes
}

/// The attributes and their residuals: the slots of `attributes` that fit the parameter block.
pub(crate) fn leading_slots(attributes: &Attributes) -> ParameterBlock {
    std::array::from_fn(|slot| attributes[slot])
}

const FLOATS: &[DType] = &[DType::F16, DType::F32, DType::F64];
const FLOATS_BF16: &[DType] = &[DType::BF16, DType::F16, DType::F32, DType::F64];
const FLOATS_SIGNED: &[DType] =
    &[DType::BF16, DType::F16, DType::F32, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64];
/// Clip-13's types: every dtype.
const CLIP_13: &[DType] = &DType::ALL;
/// Clip-12's and Shrink's: the same without bf16 (`DType::ALL` begins with it).
const ALL_BUT_BF16: &[DType] = DType::ALL.split_first().unwrap().1;
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::leaky_relu,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::elu,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: selu::selu_parameters,
        plain_products: plain_products::selu,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: celu::celu_parameters,
        plain_products: plain_products::celu,
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
        attribute_inputs_since: None,
        integer_twin: Some(relu::relu_integer),
        kernel_parameters: same_parameters,
        plain_products: plain_products::always,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: hard_sigmoid::hard_sigmoid_parameters,
        plain_products: plain_products::hard_sigmoid,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::hard_swish,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::softsign,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::exp_scaled,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::always,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::mish,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::gelu,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::exp_scaled,
        speed_target: SpeedTarget::EXP_LOG,
        sweep: Sweep::EXP_BOTH_SIGNS,
    }

    /// Swish: `Mul(X, Sigmoid(Mul(CastLike(alpha, X), X)))`.
    SWISH = swish {
        onnx_name: "Swish",
        cli_name: "swish",
        versions: &[OpVersion { since: 24, dtypes: FLOATS_BF16 }],
        attributes: &[Attribute::new("alpha", 1.0).with_own_kernel(OwnKernel::ALPHA_ONE)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 3, f64: 3 },
        formula: "x / (1 + exp(-alpha * x))",
        expansion: "Mul(X, Sigmoid(Mul(alpha, X)))",
        attributes_like_x: true,
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::swish,
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
        attribute_inputs_since: None,
        integer_twin: None,
        kernel_parameters: same_parameters,
        plain_products: plain_products::always,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::AROUND_ONE,
    }

    /// Clip: `Where(Less(max, T), max, T)` with `T = Where(Less(X, min), min, X)`, its function
    /// body: NaN passes through, and min > max gives max. Its bounds are FLOAT attributes before version 11 (version 6's defaults are f32's
    /// largest magnitude, for every dtype) and optional scalar inputs of X's type from 11
    /// (absent: no bound).
    CLIP = clip {
        onnx_name: "Clip",
        cli_name: "clip",
        versions: &[
            OpVersion { since: 1, dtypes: FLOATS },
            OpVersion { since: 6, dtypes: FLOATS },
            OpVersion { since: 11, dtypes: FLOATS },
            OpVersion { since: 12, dtypes: ALL_BUT_BF16 },
            OpVersion { since: 13, dtypes: CLIP_13 },
        ],
        attributes: &[
            Attribute {
                name: "min",
                default: f32::NEG_INFINITY,
                earlier_defaults: &[(1, f32::MIN), (6, f32::MIN)],
                choices: &[],
                own_kernel: None,
            },
            Attribute {
                name: "max",
                default: f32::INFINITY,
                earlier_defaults: &[(1, f32::MAX), (6, f32::MAX)],
                choices: &[],
                own_kernel: None,
            },
        ],
        max_ulp: UlpBounds::EXACT,
        formula: "max if max < (x if x >= min or x != x or min != min else min) else (X if x >= min or x != x or min != min else min)",
        expansion: "Where(Less(max, Where(Less(X, min), min, X)), max, Where(Less(X, min), min, X)); \
                    Where(Less(X, min), min, X); Where(Less(max, X), max, X)",
        attributes_like_x: true,
        attribute_inputs_since: Some(11),
        integer_twin: Some(clip::clip_integer),
        kernel_parameters: same_parameters,
        plain_products: plain_products::always,
        speed_target: SpeedTarget::STREAMING,
        sweep: Sweep::AROUND_ONE,
    }

    /// Shrink: `X + bias` where `X < -lambd`, `X - bias` where `X > lambd`, 0 elsewhere (NaN
    /// included), lambd and bias cast like X (its function body, from ONNX 1.13's schemas; on the
    /// integers its Add, Sub and Neg wrap, and X is never below -lambd on the unsigned ones).
    SHRINK = shrink {
        onnx_name: "Shrink",
        cli_name: "shrink",
        versions: &[OpVersion { since: 9, dtypes: ALL_BUT_BF16 }],
        attributes: &[Attribute::new("lambd", 0.5), Attribute::new("bias", 0.0)],
        max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 0, f64: 0 },
        formula: "x + bias if x < -lambd else (x - bias if x > lambd else 0)",
        expansion: "Where(Less(X, Neg(lambd)), Add(X, bias), Where(Less(lambd, X), Sub(X, bias), 0))",
        attributes_like_x: true,
        attribute_inputs_since: None,
        integer_twin: Some(shrink::shrink_integer),
        kernel_parameters: same_parameters,
        plain_products: plain_products::always,
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
            let residuals = op.attributes.len() * usize::from(op.attribute_inputs_since.is_some());
            assert!(op.attributes.len() + residuals <= MAX_ATTRIBUTES, "{}'s residuals", op.onnx_name);
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
            let takes_integers = DType::ALL.iter().any(|&dtype| !dtype.is_float() && op.accepts(dtype));
            assert_eq!(op.integer_twin.is_some(), takes_integers, "{}'s integer twin", op.onnx_name);
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

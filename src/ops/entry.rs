//! What an entry of the operator table holds ([`UnaryOp`], [`BinaryOp`] and their parts) and
//! what is read from one (versions, kernel variants, the README's table). The entries themselves
//! are the table in `mod.rs`.

use std::fmt;

use super::*;
use crate::dtype::DType;
use crate::real::{Exact, IntegerType};

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

impl OwnKernel {
    /// Alpha 1 (Swish's and SwiGLU's default, SiLU): alpha x is x itself, exact, so the kernel
    /// takes no product for it nor that product's error.
    pub(crate) const ALPHA_ONE: OwnKernel = OwnKernel {
        name: "alpha_one",
        runs_for: |attributes| attributes[0].to_bits() == 1.0f32.to_bits(),
        example: (&[1.0], "alpha 1"),
        general: (&[1.702], "alpha 1.702"),
    };

    /// The first of `attributes` with values that have a kernel of their own.
    pub(crate) fn of(attributes: &[Attribute]) -> Option<OwnKernel> {
        attributes.iter().find_map(|a| a.own_kernel)
    }

    /// The kernel variant `attributes` run: 1 for this kernel, 0 for the general one.
    pub(crate) fn variant(own: Option<OwnKernel>, attributes: &Attributes) -> u8 {
        own.map_or(0, |own| u8::from((own.runs_for)(attributes)))
    }
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
    /// `inf` and `nan` included; an integer literal only where an f32 is exactly it); `None` if
    /// it is neither.
    pub fn value_of(&self, text: &str) -> Option<f32> {
        if self.is_choice() {
            return self.choices.iter().position(|c| *c == text).map(|i| i as f32);
        }
        let value: f32 = text.parse().ok()?;
        // An integer written out (a bound of an integer X, say) is taken only where an f32 is
        // exactly it: 16777217 would be 16777216. (The parsed f32 keeps the sign of "-0".)
        match text.parse::<i128>() {
            Ok(integer) => crate::dtype::f32_exactly(integer).map(|_| value),
            Err(_) => Some(value),
        }
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
            return "a number (an integer written out: one a float32 is exactly)".into();
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
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32 | DType::U64 => 0,
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
    /// The CPU twin on the integer dtypes, for an operator whose versions take any: X, the
    /// attributes (cast like X, as Rust's `as` casts) and the result exact in i128, the result
    /// wrapped like the dtype by the reference. `None` where no version takes an integer.
    pub(crate) integer_twin: Option<IntegerTwin>,
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
    /// From this version on, the attributes are the node's optional inputs after X instead:
    /// scalars of X's type, in the order of [`UnaryOp::attributes`], an absent one taking its
    /// default (Clip's min and max from 11). `None` where they are attributes in every version.
    pub attribute_inputs_since: Option<u32>,
    /// The kernel's parameter block from the attribute values (what the WGSL function receives
    /// as `attributes`): the values themselves unless the kernel wants something derived.
    pub(crate) kernel_parameters: fn(&Attributes) -> ParameterBlock,
    /// The magnitudes of x, from the kernel parameters, for which a device that flushes
    /// subnormals may take the kernel's products on its float unit without a check
    /// (`src/ops/plain_products.rs`, `Products::Guarded`).
    pub(crate) plain_products: fn(&ParameterBlock) -> super::PlainRange,
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

/// An operator's CPU twin on the integers (`src/ops/<op>.rs`): the result for X, the attributes
/// cast like X and the dtype, or `None` where X passes through.
pub(crate) type IntegerTwin = fn(i128, &[i128; MAX_ATTRIBUTES], IntegerType) -> Option<i128>;

/// An operator's CPU twin (`src/ops/<op>.rs`), one generic function instantiated for both
/// arithmetics of [`crate::real::Real`]: f64 for the narrower dtypes, [`Exact`] for f64.
#[derive(Clone, Copy)]
pub(crate) struct Twin {
    pub(crate) fast: fn(f64, &Attributes) -> Option<f64>,
    pub(crate) exact: fn(Exact, &Attributes) -> Option<Exact>,
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
        let mut values = [0.0; MAX_ATTRIBUTES + BOUND_WORD_SLOTS];
        for (slot, attribute) in values.iter_mut().zip(self.attributes) {
            *slot = attribute.default_at(version);
        }
        values
    }

    /// The position of attribute `name` in the parameter block.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }

    /// Where attribute `slot`'s residual sits in the parameter block, for an operator whose
    /// attributes may come as inputs of X's type (Clip's bounds): after its own attributes. An
    /// integer bound no f32 holds is its leading f32 in its own slot plus this residual
    /// ([`crate::dtype::f32_pair_exactly`]), which the integer twins and kernels add back
    /// exactly (`lanes_from_bound`); the floats never have one (it stays 0).
    pub(crate) fn residual_slot(&self, slot: usize) -> Option<usize> {
        self.attribute_inputs_since.map(|_| slot + self.attributes.len())
    }

    /// Where attribute `slot`'s [`BOUND_WORD_SLOTS`] sit, for an operator whose attributes may
    /// come as inputs of X's type: the low word's slot, the high word's after it.
    pub(crate) fn bound_word_slot(&self, slot: usize) -> Option<usize> {
        self.residual_slot(slot).map(|_| MAX_ATTRIBUTES + 2 * slot)
    }

    /// Attribute `slot` as the f64 bound that [`crate::Activation::set_f64`] left in full in its
    /// bound words; `None` for any other value.
    pub(crate) fn f64_bound(&self, attributes: &Attributes, slot: usize) -> Option<f64> {
        let (residual, words) = (self.residual_slot(slot)?, self.bound_word_slot(slot)?);
        crate::dtype::f64_from_bound_slots(attributes[residual], [attributes[words], attributes[words + 1]])
    }

    /// Attribute `slot` as the integer bound that [`crate::Activation::set_integer`] left in
    /// full in its bound words (one no two f32 sum to); `None` for any other value.
    pub(crate) fn integer_bound_in_words(&self, attributes: &Attributes, slot: usize) -> Option<i128> {
        let (residual, words) = (self.residual_slot(slot)?, self.bound_word_slot(slot)?);
        let words = [attributes[words], attributes[words + 1]];
        crate::dtype::integer_from_bound_slots(attributes[slot], attributes[residual], words)
    }

    /// Attribute `slot` as a bound of an integer X of type `integer` takes it, in the kernels
    /// and the integer twin alike: the integer in its bound words, or its f32 and its residual
    /// each cast like X (as Rust's `as` casts) and added.
    pub(crate) fn integer_bound(&self, attributes: &Attributes, slot: usize, integer: IntegerType) -> i128 {
        self.integer_bound_in_words(attributes, slot).unwrap_or_else(|| {
            let residual = self.residual_slot(slot).map_or(0.0, |r| attributes[r]);
            integer.saturated(f64::from(attributes[slot])) + integer.saturated(f64::from(residual))
        })
    }

    /// What the kernel's WGSL function receives as `attributes` for X of type `dtype`: the
    /// operator's [`UnaryOp::kernel_parameters`], except that the f64 and 64-bit integer kernels
    /// of an operator whose attributes come as inputs of X's type (Clip) take each as its 64
    /// bits, in two words (low, high; min in `.xy`, max in `.zw`), which `lanes_from_bound`
    /// reads: every f64, and every integer of the type.
    /// For X of a 16-bit float type they come cast like X already where the function body
    /// casts them ([`UnaryOp::attributes_like_x`]): a kernel that adds them in f32 (Shrink's
    /// bias) takes them as they are, where a cast of its own in every invocation cost Shrink f16
    /// half its speed on lavapipe; the kernels' own casts leave them as they are.
    pub(crate) fn parameter_block(&self, attributes: &Attributes, dtype: DType) -> ParameterBlock {
        let wide = matches!(dtype, DType::F64 | DType::I64 | DType::U64);
        if !wide || self.attribute_inputs_since.is_none() {
            return (self.kernel_parameters)(&self.attributes_like(attributes, dtype));
        }
        let mut block = [0.0; MAX_ATTRIBUTES];
        for (slot, words) in block.chunks_exact_mut(2).enumerate().take(self.attributes.len()) {
            let bits = match IntegerType::of(dtype) {
                Some(integer) => integer.wrapped(self.integer_bound(attributes, slot, integer)) as u64,
                None => self.f64_bound(attributes, slot).unwrap_or(f64::from(attributes[slot])).to_bits(),
            };
            words.copy_from_slice(&crate::dtype::slot_words_of_u64(bits));
        }
        block
    }

    /// The attribute values cast to a float `dtype` where the function body casts them like X
    /// ([`UnaryOp::attributes_like_x`]), each rounded once and widened back to f32 (exact for
    /// every float dtype but f64, which f32 values are already); every other slot, and every
    /// slot for the integers (their casts are [`UnaryOp::integer_bound`]'s), as it is.
    pub(crate) fn attributes_like(&self, attributes: &Attributes, dtype: DType) -> Attributes {
        let mut cast = *attributes;
        if self.attributes_like_x {
            for value in &mut cast[..self.attributes.len()] {
                *value = match dtype {
                    DType::F16 => half::f16::from_f32(*value).to_f32(),
                    DType::BF16 => half::bf16::from_f32(*value).to_f32(),
                    _ => *value,
                };
            }
        }
        cast
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
        OwnKernel::of(self.attributes)
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
        OwnKernel::variant(self.own_kernel(), attributes)
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

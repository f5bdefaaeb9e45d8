//! Kernel sources: `shaders/driver/elementwise.wgsl` expanded per (representation, chain of step
//! kinds, in place or not), and the constants that Rust and WGSL share, defined here once and
//! prepended to every expansion.
//!
//! Only kinds of things become shader text: the representation, which operator each step is,
//! how a PRelu step gathers its slope. Attributes, sizes and slope extents travel in [`Params`],
//! so one pipeline serves every alpha and every shape.

use std::fmt::Write as _;

use crate::DType;
use crate::broadcast::{MAX_BLOCK, MAX_RANK, SlopeAccess};
use crate::ops::Step;
use crate::repr::{Repr, WIDE_U32};

/// Longest chain of steps one kernel runs (the size of `Params.steps`).
pub(crate) const MAX_CHAIN: usize = 8;
/// Bytes of one storage Vector.
pub(crate) const VECTOR_BYTES: u64 = 16;

const DRIVER: &str = include_str!("../shaders/driver/elementwise.wgsl");
const INVOCATION: &str = include_str!("../shaders/driver/invocation.wgsl");
const VECTOR: &str = include_str!("../shaders/driver/vector.wgsl");
const IO: &str = include_str!("../shaders/driver/io.wgsl");
const IO_SEPARATE_Y: &str = include_str!("../shaders/driver/io_separate_y.wgsl");
const PRELU: &str = include_str!("../shaders/ops/prelu.wgsl");
const PRELU_SLOPE: &str = include_str!("../shaders/ops/prelu_slope.wgsl");
const SWIGLU: &str = include_str!("../shaders/ops/swiglu.wgsl");
const DIVIDE: &str = include_str!("../shaders/shared/divide.wgsl");
const MARKS: &str = include_str!("../shaders/driver/marks.wgsl");
const LISTED: &str = include_str!("../shaders/driver/listed.wgsl");
const REST: &str = include_str!("../shaders/driver/rest.wgsl");
const GROUP: &str = include_str!("../shaders/driver/group.wgsl");
const PROGRAM: &str = include_str!("../shaders/driver/program.wgsl");

/// Binding numbers, as the driver and its IO files declare them.
pub(crate) mod binding {
    pub(crate) const PARAMS: u32 = 0;
    pub(crate) const X: u32 = 1;
    pub(crate) const Y: u32 = 2;
    pub(crate) const X_WORDS: u32 = 3;
    pub(crate) const Y_WORDS: u32 = 4;
    /// The first pass's marks on a device that flushes subnormals (`driver/marks.wgsl`), past
    /// every slope's binding.
    pub(crate) const MARKS: u32 = 5 + 2 * super::MAX_CHAIN as u32;

    /// The slope of the PRelu step at chain position `k`, as Vectors.
    pub(crate) fn slope_vectors(k: usize) -> u32 {
        5 + 2 * k as u32
    }

    /// The same slope as Words.
    pub(crate) fn slope_words(k: usize) -> u32 {
        6 + 2 * k as u32
    }
}

/// What one chain step contributes to the shader text: its operator with its kernel variant
/// (the choice of a STRING attribute, [`UnaryOp::kernel_variant`]) and, for PRelu, how the slope
/// is gathered. Numeric attributes are not shader text.
pub(crate) type StepKind = Step<SlopeAccess, u8>;

/// One kernel: the unit of compilation and of the pipeline cache. Copy and allocation-free, so
/// looking a kernel up costs a hash of a few words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KernelKey {
    pub(crate) repr: Repr,
    steps: [Option<StepKind>; MAX_CHAIN],
    pub(crate) in_place: bool,
    /// Whether an input (X or a slope) lies in the buffer the kernel writes, at a range of its
    /// own: every input is then bound writable (the kernel never writes them), since WebGPU
    /// cannot bind one buffer read-only beside writable in a dispatch. A framework's pooled
    /// allocations share buffers this way.
    pub(crate) inputs_in_output_buffer: bool,
    pub(crate) tuning: Tuning,
}

/// Which pass of a kernel: whole Vectors, the tail's Words, or the Vectors a first pass
/// marked ([`Products::Listed`] kernels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Main,
    /// The workgroup after main's last whole one, where main is in straight-line code.
    Rest,
    Tail,
    Listed,
}

impl Pass {
    pub(crate) fn entry_point(self) -> &'static str {
        match self {
            Pass::Main => "main",
            Pass::Rest => "rest",
            Pass::Tail => "tail",
            Pass::Listed => "listed",
        }
    }
}

/// The functions an operator's WGSL may call and still take no float product: selects,
/// comparisons on the bits, exact conversions and constructors (`takes_no_products`).
const PRODUCT_FREE_CALLS: &[&str] = &[
    "select",
    "Lanes",
    "Mask",
    "is_negative",
    "is_zero",
    "is_nan",
    "greater",
    "to_compute",
    "from_compute",
    "from_attribute",
    "less",
    "lanes_from_attribute",
    "lanes_from_bound",
    "negate",
    "below_negated",
];

/// The functions besides [`PRODUCT_FREE_CALLS`] that an operator may call and still take no
/// float product, only sums that must keep a subnormal result (Shrink's: on a device that
/// flushes subnormals, `compute/f32_sums_flushing.wgsl`, which every mode of exact products
/// includes and the hardware's does not).
const SUM_CALLS: &[&str] = &["shifted_by_attribute"];

/// The float arithmetic a step's kernel takes, from the functions its WGSL calls (a function
/// it defines is no call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arithmetic {
    /// Only [`PRODUCT_FREE_CALLS`]: the same results whichever products a kernel takes, so on a
    /// device that flushes subnormals no second pass (on SwiftShader Relu f32 0.56 of the copy
    /// kernel in two passes, 0.65 in one).
    NoProducts,
    /// Only those and [`SUM_CALLS`]: on a device that flushes subnormals its sums want the exact
    /// modes' files, but nothing of it is flagged for a second pass, so one pass with them (on
    /// SwiftShader Shrink f32 ran at 0.44-0.48 of the copy kernel in two passes).
    SumsOnly,
    /// Products, or a step that is not a unary operator.
    Products,
}

/// What `step` takes, read once per operator, not on every key (a key is made for every
/// dispatch).
fn arithmetic_of(step: &StepKind) -> Arithmetic {
    static BY_OP: std::sync::OnceLock<Vec<(&'static str, Arithmetic)>> = std::sync::OnceLock::new();
    let Step::Unary(op, _) = step else { return Arithmetic::Products };
    let table = BY_OP.get_or_init(|| {
        let of = |wgsl| match (
            calls_only(wgsl, &[PRODUCT_FREE_CALLS]),
            calls_only(wgsl, &[PRODUCT_FREE_CALLS, SUM_CALLS]),
        ) {
            (true, _) => Arithmetic::NoProducts,
            (false, true) => Arithmetic::SumsOnly,
            (false, false) => Arithmetic::Products,
        };
        crate::ops::UNARY_OPS.iter().map(|op| (op.onnx_name, of(op.wgsl))).collect()
    });
    table.iter().find(|(name, _)| *name == op.onnx_name).map_or(Arithmetic::Products, |&(_, arithmetic)| arithmetic)
}

/// Whether a step computes no float product ([`Arithmetic::NoProducts`]).
fn takes_no_products(step: &StepKind) -> bool {
    arithmetic_of(step) == Arithmetic::NoProducts
}

/// Whether a step computes no float product, sums that keep subnormals aside
/// ([`Arithmetic::NoProducts`] or [`Arithmetic::SumsOnly`]).
fn takes_only_sums(step: &StepKind) -> bool {
    arithmetic_of(step) != Arithmetic::Products
}

/// Whether `step`'s kernel on `repr` runs its math on the software-f64 interpreter
/// (`compute/f64_program.wgsl`). Shader compilers inline each call of the interpreter, and
/// compile time grows faster than the code: on lavapipe the five heaviest software-f64 steps fused
/// took 97 s to compile where their five kernels took 22 s together. So a segment holds at most
/// one such step; splitting costs a pass over memory, nothing beside binary64 on integers.
pub(crate) fn interprets_math(repr: Repr, step: StepKind, tuning: Tuning) -> bool {
    type Seen = std::sync::Mutex<Vec<(Repr, StepKind, bool)>>;
    static SEEN: std::sync::OnceLock<Seen> = std::sync::OnceLock::new();
    if repr.spec().native || repr.spec().dtype != crate::dtype::DType::F64 {
        return false;
    }
    let Step::Unary(..) = step else { return false };
    let seen = SEEN.get_or_init(Seen::default);
    let found =
        seen.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|(r, s, _)| (*r, *s) == (repr, step)).map(|e| e.2);
    found.unwrap_or_else(|| {
        // The kernel's text, not the table: whether a function reaches the interpreter is what
        // the expansion and pruning decide.
        let interprets = KernelKey::new(repr, &[step], true, tuning).wgsl().contains("fn f64_program_run(");
        seen.lock().unwrap_or_else(|p| p.into_inner()).push((repr, step, interprets));
        interprets
    })
}

/// Whether `wgsl` calls only the functions of `allowed` (a function it defines is no call).
fn calls_only(wgsl: &str, allowed: &[&[&str]]) -> bool {
    let code: String = wgsl.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut rest = code.as_str();
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let name_start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &before[name_start..];
        let defined = before[..name_start].trim_end().ends_with("fn");
        if !name.is_empty() && !defined && !allowed.iter().any(|calls| calls.contains(&name)) {
            return false;
        }
        rest = &rest[open + 1..];
    }
    true
}

impl KernelKey {
    /// A kernel for `steps` (at most [`MAX_CHAIN`]; the caller splits longer chains).
    /// A representation without the f32 arithmetic has one kind of products, and a chain whose
    /// steps take none (a copy, Relu, ThresholdedRelu) computes the same with any: their keys
    /// say [`Products::Hardware`], one pass where a flushing device would take two. A chain
    /// whose steps take sums and no product (Shrink) takes [`Products::OnIntegers`] where it
    /// would take two passes: their files, and one pass.
    ///
    /// Where the tuning asks for a step program and the chain has two steps or more, all unary,
    /// the key holds each distinct step kind once, in the table's order: the chain itself is
    /// then `params`' to say ([`KernelKey::program_case`]), and every chain over the same
    /// operators has this key. A single step keeps its written kernel: it is one kernel per
    /// operator either way, and the written one runs faster.
    pub(crate) fn new(repr: Repr, steps: &[StepKind], in_place: bool, mut tuning: Tuning) -> Self {
        assert!(steps.len() <= MAX_CHAIN, "a kernel runs at most {MAX_CHAIN} steps");
        tuning.step_program &= steps.len() > 1 && steps.iter().all(|s| matches!(s, Step::Unary(..)));
        let mut slots = [None; MAX_CHAIN];
        let mut held = 0;
        for step in steps {
            if !tuning.step_program || !slots[..held].contains(&Some(*step)) {
                slots[held] = Some(*step);
                held += 1;
            }
        }
        if tuning.step_program {
            slots[..held].sort_by_key(|slot| slot.as_ref().map(program_order));
        }
        if steps.iter().all(takes_no_products)
            || !repr.spec().files().any(|f| crate::repr::exact_subnormal_products(f).is_some())
        {
            tuning.products = Products::Hardware;
        } else if tuning.products.first_of_two_passes() && steps.iter().all(takes_only_sums) {
            tuning.products = Products::OnIntegers;
        }
        // Only the f32 arithmetic takes a product's error from fma.
        tuning.fused_product_errors &= repr.spec().files().any(crate::repr::is_product_error);
        KernelKey { repr, steps: slots, in_place, inputs_in_output_buffer: false, tuning }
    }

    /// This kernel with its inputs bound writable where `inputs_in_output_buffer`.
    pub(crate) fn with_inputs_in_output_buffer(self, inputs_in_output_buffer: bool) -> Self {
        KernelKey { inputs_in_output_buffer, ..self }
    }

    /// Whether main takes whole workgroups' Vectors in straight-line code, and `rest` the
    /// workgroup after them (the loop form otherwise): where the context asks for it
    /// (`ContextOptions::with_straight_line`), for every representation but f64's, whose math is
    /// long enough that four copies of it would multiply the drivers' compile times. On
    /// lavapipe the straight-line form ran Sigmoid f32 at 0.71-0.73 of the copy kernel against
    /// 0.53 in the loop; on SwiftShader, 0.16 against 0.25 (BENCHMARKS.md).
    pub(crate) fn straight_line(&self) -> bool {
        self.tuning.straight_line && self.repr.dtype() != DType::F64
    }

    /// The second pass's kernel of a first of two passes ([`Products::first_of_two_passes`]).
    pub(crate) fn listed(&self) -> Self {
        KernelKey { tuning: Tuning { products: Products::Listed, ..self.tuning }, ..*self }
    }

    /// The passes this kernel has.
    #[cfg(test)]
    pub(crate) fn passes(&self) -> Vec<Pass> {
        [Pass::Main, Pass::Rest, Pass::Tail, Pass::Listed]
            .into_iter()
            .filter(|pass| match pass {
                Pass::Rest => self.straight_line(),
                Pass::Listed => self.tuning.products == Products::Listed,
                _ => true,
            })
            .collect()
    }

    /// The steps, in chain order; for a step program, its distinct operators.
    pub(crate) fn steps(&self) -> impl Iterator<Item = StepKind> + '_ {
        self.steps.iter().map_while(|s| *s)
    }

    /// A step program's case for `step` (`params.steps[s].slope.x`, `driver/program.wgsl`):
    /// 1 and up, in the order of [`KernelKey::steps`]; 0, which no case takes, for a step the
    /// kernel does not hold.
    pub(crate) fn program_case(&self, step: StepKind) -> u32 {
        self.steps().position(|s| s == step).map_or(0, |i| i as u32 + 1)
    }

    /// Label of the GPU objects built from this key: `wgpu-activations.<steps>.<dtype>`.
    pub(crate) fn label(&self) -> String {
        let names: Vec<String> = self
            .steps()
            .map(|s| match s {
                Step::Unary(op, variant) => op.kernel_function(variant),
                Step::Prelu(access) => format!("prelu[{}]", access.wgsl_name()),
                Step::Swiglu(_, variant) => crate::ops::SWIGLU.kernel_function(variant),
            })
            .collect();
        let chain = match (names.is_empty(), self.tuning.step_program) {
            (true, _) => "copy".to_string(),
            (false, false) => names.join("+"),
            (false, true) => format!("program[{}]", names.join("|")),
        };
        let place = if self.in_place { ".in_place" } else { "" };
        let products = match self.tuning.products {
            Products::Hardware => "",
            Products::OnIntegers => ".exact_subnormals",
            Products::Guarded => ".guarded_subnormals",
            Products::Flagged => ".flagged_subnormals",
            Products::FlaggedByRange => ".range_flagged_subnormals",
            Products::Listed => ".exact_subnormals.listed",
        };
        let fma = if self.tuning.fused_product_errors { ".fma" } else { "" };
        let shared = input_access_label(self.inputs_in_output_buffer);
        format!("wgpu-activations.{chain}.{}{place}{shared}{products}{fma}", self.repr.dtype())
    }

    /// The bindings `pass` reads, in ascending order: what its bind group must hold.
    pub(crate) fn bindings(&self, pass: Pass) -> Vec<u32> {
        let vectors = pass != Pass::Tail;
        let mut used = vec![binding::PARAMS];
        used.push(if vectors { binding::X } else { binding::X_WORDS });
        if !self.in_place {
            used.push(if vectors { binding::Y } else { binding::Y_WORDS });
        }
        for (k, step) in self.steps().enumerate() {
            if let Step::Prelu(access) | Step::Swiglu(access, _) = step {
                let slope_vectors = vectors && matches!(access, SlopeAccess::Same | SlopeAccess::Trailing);
                used.push(if slope_vectors { binding::slope_vectors(k) } else { binding::slope_words(k) });
            }
        }
        if pass == Pass::Listed
            || (matches!(pass, Pass::Main | Pass::Rest) && self.tuning.products.first_of_two_passes())
        {
            used.push(binding::MARKS);
        }
        used
    }

    /// The unary steps' functions that test their input against the step's plain range, where
    /// the products do ([`Products::tests_plain_ranges`]): those that reach `mul` through the
    /// `arithmetic` files or their own. Another's plain copy would be itself, and its test would
    /// only cost (in the first of two passes, flags that the compiler cannot fold away: on
    /// lavapipe HardSigmoid's line through its zero at 0.75 of the copy kernel against 0.95).
    fn plain_range_steps(&self, arithmetic: &[&'static str]) -> Vec<String> {
        if !self.tuning.products.tests_plain_ranges() {
            return Vec::new();
        }
        let mut source = arithmetic.concat();
        let mut functions = Vec::new();
        for step in self.steps() {
            match step {
                Step::Unary(op, variant) => {
                    source.push_str(op.wgsl);
                    functions.push(op.kernel_function(variant));
                }
                Step::Swiglu(_, variant) => {
                    source.push_str(SWIGLU);
                    functions.push(crate::ops::SWIGLU.kernel_function(variant));
                }
                Step::Prelu(_) => {}
            }
        }
        prune::reaching_mul_of(&source, &functions)
    }

    /// The complete WGSL source, with only what its entry points reach (`prune.rs`).
    pub(crate) fn wgsl(&self) -> String {
        let spec = self.repr.spec();
        let mut src = String::from(spec.enable);
        let _ = writeln!(src, "const WORKGROUP_SIZE: u32 = {}u;", self.tuning.workgroup_size);
        let _ = writeln!(src, "const VECTORS_PER_INVOCATION: u32 = {}u;", self.tuning.vectors_per_invocation);
        let local_stride = if self.tuning.contiguous { self.tuning.vectors_per_invocation } else { 1 };
        let _ = writeln!(src, "const LOCAL_STRIDE: u32 = {local_stride}u;");
        let _ = writeln!(src, "const VECTOR_STRIDE: u32 = {}u;", self.tuning.vector_stride());
        let _ = writeln!(src, "const MAX_CHAIN: u32 = {MAX_CHAIN}u;");
        let _ = writeln!(src, "const MAX_RANK: u32 = {MAX_RANK}u;");
        let _ = writeln!(src, "const MAX_BLOCK: u32 = {MAX_BLOCK}u;");
        src.push_str(&spec.declarations());
        // Each file once, however many steps or rows name it.
        let mut files = arithmetic_files(spec, self.tuning);
        let tested = self.plain_range_steps(&files);
        let mut include = |file: &'static str| {
            if !files.contains(&file) {
                files.push(file);
            }
        };
        let mut text = StepText::default();
        let products = self.tuning.products;
        if self.tuning.step_program {
            let mut cases = String::new();
            for step in self.steps() {
                if let Step::Unary(op, variant) = step {
                    include(op.wgsl);
                    let function = op.kernel_function(variant);
                    let case = self.program_case(step);
                    let range = tested.contains(&function).then_some("params.steps[s].slope.yz");
                    let call = unary_call(&function, "attributes", range, products);
                    let _ = writeln!(cases, "        case {case}u: {{ {call} }}");
                }
            }
            text.both(&without_comments(&fill(PROGRAM, &[("{{CASES}}", &cases)])));
        }
        for (k, step) in self.steps().enumerate().filter(|_| !self.tuning.step_program) {
            match step {
                Step::Unary(op, variant) => {
                    include(op.wgsl);
                    // Read once per invocation, not per Vector: the shader compiler cannot
                    // tell that stores to Y leave the uniform as it was. Measured on lavapipe,
                    // the fused 3 x LeakyRelu chain runs about 8% faster this way.
                    text.prepare_all(&format!("let attributes_{k} = params.steps[{k}].attributes;"));
                    let function = op.kernel_function(variant);
                    let range = format!("plain_range_{k}");
                    let tests_range = tested.contains(&function);
                    if tests_range {
                        text.prepare_all(&format!("let {range} = params.steps[{k}].slope.yz;"));
                    }
                    let attributes = format!("attributes_{k}");
                    text.both(&unary_call(&function, &attributes, tests_range.then_some(&range), products));
                }
                Step::Prelu(access) | Step::Swiglu(access, _) => {
                    [PRELU, DIVIDE, WIDE_U32].into_iter().for_each(&mut include);
                    let run = if let SlopeAccess::Blocked { run } = access { run } else { 1 };
                    text.slopes.push_str(&fill(
                        PRELU_SLOPE,
                        &[
                            ("{{K}}", &k.to_string()),
                            ("{{VECTORS_BINDING}}", &binding::slope_vectors(k).to_string()),
                            ("{{WORDS_BINDING}}", &binding::slope_words(k).to_string()),
                            ("{{SLOPE_ACCESS}}", input_access(self.inputs_in_output_buffer)),
                            ("{{RUN}}", &run.to_string()),
                        ],
                    ));
                    if let Step::Swiglu(_, variant) = step {
                        include(SWIGLU);
                        text.prepare_all(&format!("let attributes_{k} = params.steps[{k}].attributes;"));
                        let function = crate::ops::SWIGLU.kernel_function(variant);
                        // The gate's plain range rides in its attributes' last two slots.
                        let range = format!("plain_range_{k}");
                        let tests_range = tested.contains(&function);
                        if tests_range {
                            text.prepare_all(&format!("let {range} = bitcast<vec2<u32>>(attributes_{k}.zw);"));
                        }
                        text.gate(k, &function, tests_range.then_some(&range), products);
                    } else {
                        text.prelu(k, access);
                    }
                }
            }
        }
        files.iter().for_each(|file| src.push_str(&f64_constants(file, spec.native)));
        let io = if self.in_place {
            fill(IO, &[("{{X_ACCESS}}", "read_write"), ("{{Y_BINDINGS}}", ""), ("{{Y}}", "x")])
        } else {
            let x_access = input_access(self.inputs_in_output_buffer);
            fill(IO, &[("{{X_ACCESS}}", x_access), ("{{Y_BINDINGS}}", IO_SEPARATE_Y), ("{{Y}}", "y")])
        };
        let flagged = products.first_of_two_passes();
        let [begin_invocation, begin, store, end_invocation] = if flagged {
            [
                "    var flagged = 0u;",
                "        needs_exact = false;",
                "        if (needs_exact) {\n            flagged |= 1u << k;\n        } else {\n            store_y(v, out);\n        }",
                "    if (flagged != 0u) {\n        mark_flagged(group_index * WORKGROUP_SIZE + local, flagged);\n    }",
            ]
        } else {
            ["", "", "        store_y(v, out);", ""]
        };
        let marks = binding::MARKS.to_string();
        let group = |g: &str, steps: &str| without_comments(&fill(GROUP, &[("{{G}}", g), ("{{STEPS}}", steps)]));
        let looped_groups = |steps: &str| {
            format!(
                "for (var group_counter = 0u; group_counter < GROUPS; group_counter++) {{\n{}}}\n",
                group("group_counter", steps)
            )
        };
        let groups: String = if self.straight_line() || self.tuning.looped_groups {
            looped_groups(&text.main)
        } else {
            (0..spec.layout.groups()).map(|g| group(&format!("{g}u"), &text.main)).collect()
        };
        let tail_groups = looped_groups(&text.tail);
        let vector_fills = [
            ("{{GROUPS}}", groups.as_str()),
            ("{{ADVANCE}}", text.advance.as_str()),
            ("{{BEGIN_VECTOR}}", begin),
            ("{{STORE_MAIN}}", store),
        ];
        let vector = without_comments(&fill(VECTOR, &vector_fills));
        // Past the last Vector the remaining iterations do nothing (v only grows), but they are
        // skipped by a test, not left by a break: lavapipe ran the loop with a break a sixth
        // slower (the copy kernel 14.0 ms against 11.9 ms for 2^24 f32).
        let looped = format!(
            "for (var k = 0u; k < VECTORS_PER_INVOCATION; k++) {{\nlet v = first + k * VECTOR_STRIDE;\nif (v < params.vectors) {{\nvar out = load_x(v);\n{vector}}}\n}}\n"
        );
        let invocation = |prepare: &str, vectors: &str| {
            without_comments(&fill(
                INVOCATION,
                &[
                    ("{{PREPARE}}", prepare),
                    ("{{BEGIN_INVOCATION}}", begin_invocation),
                    ("{{VECTORS}}", vectors),
                    ("{{END_INVOCATION}}", end_invocation),
                ],
            ))
        };
        let main_invocation = if self.straight_line() {
            // For whole workgroups only: every Vector loaded first (a store to Y could alias X
            // as far as the compiler knows, so a load after it waits: Sigmoid f32 0.64 of the
            // copy kernel on lavapipe against 0.68-0.75 loaded first), then each in a block of
            // its own, with its k and v.
            let n = self.tuning.vectors_per_invocation;
            let loads: String = (0..n)
                .map(|k| format!("let v_{k} = first + {k}u * VECTOR_STRIDE;\nlet loaded_{k} = load_x(v_{k});\n"))
                .collect();
            let blocks: String = (0..n)
                .map(|k| format!("{{\nlet k = {k}u;\nlet v = v_{k};\nvar out = loaded_{k};\n{vector}}}\n"))
                .collect();
            let whole = loads + &blocks;
            format!(
                "if ((group_index + 1u) * (WORKGROUP_SIZE * VECTORS_PER_INVOCATION) <= params.vectors) {{\n{}}}\n",
                invocation(&text.main_prepare, &whole)
            )
        } else {
            invocation(&text.main_prepare, &looped)
        };
        let fills = [
            ("{{IO}}", io.as_str()),
            ("{{SLOPES}}", text.slopes.as_str()),
            ("{{MAIN_INVOCATION}}", main_invocation.as_str()),
            ("{{PREPARE}}", text.prepare.as_str()),
            ("{{GROUPS}}", groups.as_str()),
            ("{{TAIL_GROUPS}}", tail_groups.as_str()),
            ("{{ADVANCE}}", text.advance.as_str()),
            ("{{BEGIN_INVOCATION}}", begin_invocation),
            ("{{BEGIN_VECTOR}}", begin),
            ("{{STORE_MAIN}}", store),
            ("{{END_INVOCATION}}", end_invocation),
            ("{{MARKS_BINDING}}", marks.as_str()),
        ];
        src.push_str(&fill(DRIVER, &fills));
        if self.straight_line() {
            src.push_str(&fill(REST, &[("{{REST_INVOCATION}}", invocation(&text.prepare, &looped).as_str())]));
        }
        if flagged {
            src.push_str(&fill(MARKS, &fills));
        }
        if self.tuning.products == Products::Listed {
            src.push_str(&fill(LISTED, &fills));
        }
        if !tested.is_empty() {
            src = prune::with_plain_copies(&src, &tested.iter().map(String::as_str).collect::<Vec<_>>());
        }
        with_math_f64(&src, spec.native)
    }
}

/// The files of representation `spec` (its own, its layout's and its arithmetic's), each once,
/// with the products and product errors `tuning` takes: the elementwise kernels' and the kernel
/// over an axis's (`kernel/axis.rs`).
pub(crate) fn arithmetic_files(spec: &crate::repr::ReprSpec, tuning: Tuning) -> Vec<&'static str> {
    let mut files: Vec<&'static str> = Vec::new();
    let mut include = |file: &'static str| {
        if !files.contains(&file) {
            files.push(file);
        }
    };
    for file in spec.files() {
        match (crate::repr::exact_subnormal_products(file), tuning.products) {
            (Some(exact), Products::OnIntegers | Products::Listed) => {
                exact.iter().chain(crate::repr::F32_PRODUCTS_ON_INTEGERS).for_each(|f| include(f))
            }
            (Some(exact), Products::Guarded) => exact
                .iter()
                .chain(crate::repr::F32_PRODUCTS_ON_INTEGERS)
                .chain(crate::repr::F32_PRODUCTS_GUARDED)
                .for_each(|f| include(f)),
            (Some(_), Products::Flagged) => crate::repr::F32_PRODUCTS_FLAGGED.iter().for_each(|f| include(f)),
            (Some(_), Products::FlaggedByRange) => crate::repr::F32_PRODUCTS_FLAGGED
                .iter()
                .chain(crate::repr::F32_PRODUCTS_GUARDED)
                .for_each(|f| include(f)),
            _ if tuning.fused_product_errors && crate::repr::is_product_error(file) => {
                include(crate::repr::F32_PRODUCT_ERROR_FUSED)
            }
            _ => include(file),
        }
    }
    files
}

/// `src` pruned, with the f64 math functions its entry points call (`f64_program.rs`) in place
/// of [`f64_program::PLACEHOLDER`]: every function first, to learn which are reached, then,
/// for the software path, a program of those alone.
pub(crate) fn with_math_f64(src: &str, native: bool) -> String {
    if !src.contains(f64_program::PLACEHOLDER) {
        return prune::prune(src); // not an f64 kernel: nothing to record
    }
    let with = |wanted: &dyn Fn(&str) -> bool| {
        let functions = f64_constants(&f64_program::functions(native, wanted), native);
        prune::prune(&fill(src, &[(f64_program::PLACEHOLDER, &functions)]))
    };
    let every = with(&|_| true);
    if native {
        return every;
    }
    with(&|name| every.contains(&format!("fn {name}(")) || f64_program::called(src, name))
}

/// The order of a step program's operators: the table's, then the kernel variant's.
fn program_order(step: &StepKind) -> (usize, u8) {
    match step {
        Step::Unary(op, variant) => {
            (crate::ops::UNARY_OPS.iter().position(|o| std::ptr::eq(*o, *op)).unwrap_or(usize::MAX), *variant)
        }
        Step::Prelu(_) | Step::Swiglu(..) => (usize::MAX, u8::MAX),
    }
}

/// The access of a kernel's inputs: writable where one lies in Y's buffer, since WebGPU cannot
/// bind one buffer read-only beside writable in a dispatch (the kernel never writes them).
pub(crate) fn input_access(input_in_y_buffer: bool) -> &'static str {
    if input_in_y_buffer { "read_write" } else { "read" }
}

/// The label's mark of a kernel whose inputs share Y's buffer.
pub(crate) fn input_access_label(input_in_y_buffer: bool) -> &'static str {
    if input_in_y_buffer { ".in-y-buffer" } else { "" }
}

pub(crate) mod axis;
mod f64_program;
mod params;
mod prune;
#[cfg(test)]
pub(crate) mod tests;
mod text;
#[cfg(test)]
mod translation;
mod tuning;

pub(crate) use params::{Params, StepParams};
use text::{StepText, unary_call};
pub(crate) use text::{f64_constants, fill, without_comments};
pub(crate) use tuning::{Products, Tuning};

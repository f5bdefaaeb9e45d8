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

/// Workgroup shape and how an invocation's Vectors lie, chosen per device (`WORKGROUP_SIZE`,
/// `VECTORS_PER_INVOCATION`, `LOCAL_STRIDE` and `VECTOR_STRIDE` in the WGSL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Tuning {
    pub(crate) workgroup_size: u32,
    pub(crate) vectors_per_invocation: u32,
    /// An invocation's Vectors are consecutive (best measured on CPU drivers, where a SIMD
    /// batch of invocations runs as one thread), or strided by the workgroup (neighbouring
    /// invocations touch neighbouring memory: coalesced on GPUs).
    pub(crate) contiguous: bool,
    /// Which products the f32 arithmetic takes.
    pub(crate) products: Products,
    /// A product's error from the device's fma (`compute/f32_product_error_fused.wgsl`), where
    /// the context's probe found it rounding once, instead of Dekker's steps.
    pub(crate) fused_product_errors: bool,
    /// Whole workgroups in straight-line code and the rest in a pass of its own, or every
    /// Vector in a loop (`KernelKey::straight_line`).
    pub(crate) straight_line: bool,
    /// In the loop form, a Vector's groups (two or four Lanes of 16-bit and 8-bit types) in a
    /// loop too, as the straight-line form has them, instead of a block each: the smallest code,
    /// for llvmpipe's small tensors (`Context::tuning_for`). On lavapipe it compiled 510 distinct
    /// f16 chains in 49 s where the blocks took 74 s (bf16: 32 s, 42 s), and ran Gelu f16 at
    /// 2^18 elements 0.3 ms slower. SwiftShader keeps the blocks: it held a loop's values in
    /// memory (Elu f32 0.39 of the copy kernel against 0.59).
    pub(crate) looped_groups: bool,
    /// A chain of unary steps as a step program (`driver/program.wgsl`): the kernel holds each
    /// distinct operator once and reads the chain from `params`, so every chain over the same
    /// operators shares it (`KernelKey::new`). For small tensors on CPU drivers
    /// (`Context::tuning_for`), where a kernel's compile costs more than its runs: the loop and
    /// its cases cost lavapipe 0.03-0.1 ms a call at 2^14-2^16 f32 elements, a new kernel's
    /// compile 40 ms (f32) to 95 ms (f16) cold, about 6 ms warm.
    pub(crate) step_program: bool,
}

/// The products of the f32 arithmetic (f32, and the 16-bit floats computed in f32): the
/// hardware's on a device that keeps subnormals; on one that flushes them, exact: on a GPU in
/// one pass that checks products only where a step's input lies outside its plain range (the
/// default there), or that checks every product; elsewhere in two passes (the default): the
/// hardware's products with a cheap flag, then the flagged Vectors again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Products {
    /// `compute/f32_products.wgsl`.
    Hardware,
    /// `compute/f32_products_exact.wgsl` for every product, one pass.
    OnIntegers,
    /// `compute/f32_products_guarded.wgsl`, one pass: the float unit's products without a check
    /// for a step whose input lies in its plain range (`UnaryOp::plain_products`), the exact
    /// products elsewhere.
    Guarded,
    /// The first of two passes: `compute/f32_products_flagged.wgsl`; a flagged Vector is left
    /// unwritten and marked (`driver/marks.wgsl`).
    Flagged,
    /// The second: `compute/f32_products_exact.wgsl` over the marked Vectors
    /// (`driver/listed.wgsl`), and the tail.
    Listed,
}

impl Products {
    /// Products that are exact on a device that flushes subnormals.
    pub(crate) fn exact_on_flushing_devices(self) -> bool {
        self != Products::Hardware
    }
}

impl Tuning {
    /// The shape for SwiftShader, which runs four invocations as one SIMD thread and every
    /// branch's code on all four, masked: what an invocation does once (its setup, and on the
    /// first of two passes the marking of its flagged Vectors, atomics included) is paid once
    /// per four invocations, taken or not, so it is spread over 32 Vectors, not 4. Natively, 2^22
    /// f32, ms, three rounds alternating with 256 x 4: two-pass LeakyRelu 16.6 -> 13.9, Elu 21.8
    /// -> 17.5, Gelu 61.6 -> 45.5, the hardware's products LeakyRelu 12.1 -> 10.3; in headless
    /// Chromium (`cargo xtask bench-web`), ms per 4 dispatches: LeakyRelu 64.0 -> 55.5, Elu
    /// 106.8 -> 84.6, HardSwish 75.9 -> 63.3 (BENCHMARKS.md). 64 invocations, not 256: 32 x 32
    /// to 256 x 32 measured alike, and smaller workgroups share out among more threads.
    pub(crate) const SIMD_ACROSS_INVOCATIONS: (u32, u32) = (64, 32);

    /// `requested` (invocations, vectors per invocation), or the adapter's default, shrunk to a
    /// power of two that `limits` allow; at most 32 Vectors per invocation (the first of two
    /// passes notes its flagged Vectors in one u32). The default is 256 invocations of 4 Vectors
    /// each (the fastest of the shapes measured on lavapipe and GPUs; `wgpu-act bench --shapes`
    /// compares others), but [`Tuning::SIMD_ACROSS_INVOCATIONS`] on a CPU adapter that runs the
    /// loop form, not the straight line (SwiftShader, natively and as Chromium's fallback WebGPU
    /// adapter).
    pub(crate) fn for_limits(
        limits: &wgpu::Limits,
        requested: Option<(u32, u32)>,
        contiguous: bool,
        cpu_adapter: bool,
        straight_line: bool,
    ) -> Self {
        let default = if cpu_adapter && !straight_line { Self::SIMD_ACROSS_INVOCATIONS } else { (256, 4) };
        let (size, vectors) = requested.unwrap_or(default);
        let cap = limits.max_compute_invocations_per_workgroup.min(limits.max_compute_workgroup_size_x);
        let size = size.clamp(1, cap.max(1));
        Tuning {
            workgroup_size: 1 << size.ilog2(),
            vectors_per_invocation: vectors.clamp(1, 32),
            contiguous,
            products: Products::Hardware,
            fused_product_errors: false,
            straight_line,
            looped_groups: false,
            step_program: false,
        }
    }

    /// Vectors one workgroup covers.
    pub(crate) fn vectors_per_workgroup(self) -> u64 {
        u64::from(self.workgroup_size) * u64::from(self.vectors_per_invocation)
    }

    /// Vectors between an invocation's consecutive Vectors.
    pub(crate) fn vector_stride(self) -> u64 {
        if self.contiguous { 1 } else { u64::from(self.workgroup_size) }
    }

    /// The aligned block of Vectors that holds all of one invocation's: its own Vectors when
    /// they are consecutive, else its workgroup's.
    pub(crate) fn invocation_block(self) -> u64 {
        if self.contiguous { u64::from(self.vectors_per_invocation) } else { self.vectors_per_workgroup() }
    }
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            workgroup_size: 256,
            vectors_per_invocation: 4,
            contiguous: false,
            products: Products::Hardware,
            fused_product_errors: false,
            straight_line: false,
            looped_groups: false,
            step_program: false,
        }
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
    "negate",
];

/// Whether a step computes no float product: a unary operator whose WGSL calls only
/// [`PRODUCT_FREE_CALLS`] (a function it defines is no call). Its results are the same whichever
/// products a kernel takes, so on a device that flushes subnormals it needs no second pass (on
/// SwiftShader Relu f32 0.56 of the copy kernel in two passes, 0.65 in one).
fn takes_no_products(step: &StepKind) -> bool {
    static PRODUCT_FREE_OPS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let Step::Unary(op, _) = step else { return false };
    // Read once per operator, not on every key (a key is made for every dispatch).
    PRODUCT_FREE_OPS
        .get_or_init(|| {
            crate::ops::UNARY_OPS.iter().filter(|op| calls_no_products(op.wgsl)).map(|op| op.onnx_name).collect()
        })
        .contains(&op.onnx_name)
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

/// Whether `wgsl` calls only [`PRODUCT_FREE_CALLS`] (a function it defines is no call).
fn calls_no_products(wgsl: &str) -> bool {
    let code: String = wgsl.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut rest = code.as_str();
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let name_start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &before[name_start..];
        let defined = before[..name_start].trim_end().ends_with("fn");
        if !name.is_empty() && !defined && !PRODUCT_FREE_CALLS.contains(&name) {
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
    /// say [`Products::Hardware`], one pass where a flushing device would take two.
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

    /// The second pass's kernel of a [`Products::Flagged`] kernel.
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
            if let Step::Prelu(access) = step {
                let slope_vectors = vectors && matches!(access, SlopeAccess::Same | SlopeAccess::Trailing);
                used.push(if slope_vectors { binding::slope_vectors(k) } else { binding::slope_words(k) });
            }
        }
        if pass == Pass::Listed
            || (matches!(pass, Pass::Main | Pass::Rest) && self.tuning.products == Products::Flagged)
        {
            used.push(binding::MARKS);
        }
        used
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
        src.push_str(&spec.layout.declarations());
        // Each file once, however many steps or rows name it.
        let mut files = arithmetic_files(spec, self.tuning);
        let mut include = |file: &'static str| {
            if !files.contains(&file) {
                files.push(file);
            }
        };
        let mut text = StepText::default();
        let guarded = self.tuning.products == Products::Guarded;
        if self.tuning.step_program {
            let mut cases = String::new();
            for step in self.steps() {
                if let Step::Unary(op, variant) = step {
                    include(op.wgsl);
                    let function = op.kernel_function(variant);
                    let case = self.program_case(step);
                    let call = unary_call(&function, "attributes", guarded.then_some("params.steps[s].slope.yz"));
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
                    let range = format!("plain_range_{k}");
                    if guarded {
                        text.prepare_all(&format!("let {range} = params.steps[{k}].slope.yz;"));
                    }
                    let attributes = format!("attributes_{k}");
                    text.both(&unary_call(&op.kernel_function(variant), &attributes, guarded.then_some(&range)));
                }
                Step::Prelu(access) => {
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
                    text.prelu(k, access);
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
        let flagged = self.tuning.products == Products::Flagged;
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
        if guarded {
            let roots: Vec<String> = self
                .steps()
                .filter_map(|step| match step {
                    Step::Unary(op, variant) => Some(op.kernel_function(variant)),
                    Step::Prelu(_) => None,
                })
                .collect();
            src = prune::with_plain_copies(&src, &roots.iter().map(String::as_str).collect::<Vec<_>>());
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
            _ if tuning.fused_product_errors && crate::repr::is_product_error(file) => {
                include(crate::repr::F32_PRODUCT_ERROR_FUSED)
            }
            _ => include(file),
        }
    }
    files
}

/// A unary step's statement on the group `b`: `function` with `attributes`, or in a guarded
/// kernel (`range`: the step's plain range) its `_plain` copy where `b` lies in the range.
fn unary_call(function: &str, attributes: &str, range: Option<&str>) -> String {
    let call = format!("b = {function}(b, {attributes});");
    match range {
        Some(range) => format!(
            "if (in_plain_range(to_compute(b), {range})) {{ b = {function}_plain(b, {attributes}); }} else {{ {call} }}"
        ),
        None => call,
    }
}

/// `src` pruned, with the f64 math functions its entry points call (`f64_program.rs`) in place
/// of [`f64_program::PLACEHOLDER`]: every function first, to learn which are reached, then,
/// for the software path, a program of those alone.
fn with_math_f64(src: &str, native: bool) -> String {
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
    with(&|name| every.contains(&format!("fn {name}(")))
}

/// The order of a step program's operators: the table's, then the kernel variant's.
fn program_order(step: &StepKind) -> (usize, u8) {
    match step {
        Step::Unary(op, variant) => {
            (crate::ops::UNARY_OPS.iter().position(|o| std::ptr::eq(*o, *op)).unwrap_or(usize::MAX), *variant)
        }
        Step::Prelu(_) => (usize::MAX, u8::MAX),
    }
}

/// The text each chain step contributes to the driver's placeholders.
#[derive(Default)]
struct StepText {
    slopes: String,
    /// Per-invocation state for `rest`, the tail and the second pass, which find it from
    /// `first_element`, and for main, `main_prepare`, which may also take it from its grid.
    prepare: String,
    main_prepare: String,
    main: String,
    tail: String,
    advance: String,
}

impl StepText {
    /// A statement of per-invocation state that every pass makes alike.
    fn prepare_all(&mut self, statement: &str) {
        let _ = writeln!(self.prepare, "    {statement}");
        let _ = writeln!(self.main_prepare, "    {statement}");
    }

    /// A statement that reads the same in the main pass and the tail.
    fn both(&mut self, statement: &str) {
        let _ = writeln!(self.main, "            {statement}");
        let _ = writeln!(self.tail, "        {statement}");
    }

    /// How the PRelu step at chain position `k` gathers its slope, per [`SlopeAccess`].
    fn prelu(&mut self, k: usize, access: SlopeAccess) {
        match access {
            SlopeAccess::Scalar => {
                self.prepare_all(&format!("let scalar_{k} = slope_scalar_{k}();"));
                self.both(&format!("b = prelu(b, scalar_{k});"));
            }
            SlopeAccess::Same => {
                let _ = writeln!(self.main, "            b = prelu(b, group(slope_vectors_{k}[v], g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_same_{k}(element, g));");
            }
            SlopeAccess::Channel | SlopeAccess::ChannelAligned => {
                self.prepare_all(&format!("var cursor_{k} = slope_cursor_{k}(first_element);"));
                if access == SlopeAccess::Channel {
                    self.both(&format!("b = prelu(b, slope_channel_{k}(cursor_{k}, g));"));
                } else {
                    self.both(&format!("b = prelu(b, slope_channel_aligned_{k}(cursor_{k}));"));
                }
                let _ = writeln!(self.advance, "        cursor_{k} = slope_jump_{k}(cursor_{k});");
            }
            SlopeAccess::Trailing => {
                self.prepare_all(&format!("var cursor_{k} = slope_cursor_{k}(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_trailing_{k}(cursor_{k}, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_channel_{k}(cursor_{k}, g));");
                let _ = writeln!(self.advance, "        cursor_{k} = slope_jump_{k}(cursor_{k});");
            }
            SlopeAccess::ChannelUniform | SlopeAccess::ChannelGrid => {
                let uniform = format!("let uniform_{k} = slope_channel_aligned_{k}(slope_cursor_{k}(first_element));");
                if access == SlopeAccess::ChannelGrid {
                    let _ = writeln!(self.prepare, "    {uniform}");
                    let _ = writeln!(self.main_prepare, "    let uniform_{k} = slope_channel_grid_{k}(workgroup.x);");
                } else {
                    self.prepare_all(&uniform);
                }
                self.both(&format!("b = prelu(b, uniform_{k});"));
            }
            SlopeAccess::Blocked { .. } => {
                self.prepare_all(&format!("var general_{k} = block_cursor(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_blocked_at_{k}(general_{k}, k, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_blocked_{k}(element, g));");
                let _ = writeln!(self.advance, "        general_{k} = slope_blocked_jump_{k}(general_{k});");
            }
            SlopeAccess::General => {
                self.prepare_all(&format!("var general_{k} = general_cursor(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_general_at_{k}(general_{k}, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_general_{k}(element, g));");
                let _ = writeln!(self.advance, "        general_{k} = slope_general_jump_{k}(general_{k});");
            }
        }
    }
}

/// The one template mechanism of the WGSL expansion: every `{{NAME}}` of `fills` in the code of
/// `template` becomes its text; a line holding a placeholder alone becomes the text's lines as
/// they are. Comment lines stay as they are: their mentions document the placeholders.
fn fill(template: &str, fills: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    for line in template.lines() {
        if line.trim_start().starts_with("//") {
            out.push_str(line);
        } else if let Some((_, text)) = fills.iter().find(|(placeholder, _)| line.trim() == *placeholder) {
            out.push_str(text.trim_end_matches('\n'));
        } else {
            let mut line = line.to_string();
            for (placeholder, text) in fills {
                line = line.replace(placeholder, text);
            }
            out.push_str(&line);
        }
        out.push('\n');
    }
    out
}

/// `text` without its comment lines (a template's part that is repeated).
fn without_comments(text: &str) -> String {
    text.lines().filter(|line| !line.trim_start().starts_with("//")).map(|line| format!("{line}\n")).collect()
}

/// The f64 arithmetic's constants, written `{{F64 <decimal>}}` (`shaders/math/f64.wgsl`), spelled
/// for the path: a literal of the native f64 type, or the value's (low, high) u32 pair for the
/// software one. A decimal that is not a number is left as it was, and naga's parse names it.
fn f64_constants(text: &str, native: bool) -> String {
    const OPEN: &str = "{{F64 ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find("}}") else { break };
        match after[..end].trim().parse::<f64>() {
            Ok(value) if native => {
                let _ = write!(out, "{value:e}");
            }
            Ok(value) => {
                let bits = value.to_bits();
                let _ = write!(out, "U64({:#010x}u, {:#010x}u)", bits as u32, (bits >> 32) as u32);
            }
            Err(_) => out.push_str(&rest[start..start + OPEN.len() + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// One step's slots of [`Params`]: a unary step's attributes, or a PRelu step's slope pattern.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct StepParams {
    pub(crate) attributes: [f32; 4],
    /// Run length, channels, flat index of the first bound slope element, unused; for a unary
    /// step, its case in a step program ([`KernelKey::program_case`]), then its plain range's
    /// words ([`crate::ops::PlainRange::words`], for [`Products::Guarded`]), unused.
    pub(crate) slope: [u32; 4],
    /// The channel cursor's move between an invocation's Vectors: (run, channel, unused, unused).
    pub(crate) jump: [u32; 4],
    /// Run length and channels prepared for division: magic numbers, then modes.
    pub(crate) divide: [u32; 4],
}

/// The driver's uniform block (`struct Params` in `shaders/driver/elementwise.wgsl`); a test
/// checks that naga lays the WGSL struct out exactly like this.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub(crate) vectors: u32,
    pub(crate) tail_word: u32,
    pub(crate) tail_elements: u32,
    pub(crate) first_element: u32,
    pub(crate) steps: [StepParams; MAX_CHAIN],
    pub(crate) general_rank: u32,
    /// Always 0: the kernels hide values from the compiler behind it (`shaders/README.md`).
    pub(crate) zero: u32,
    /// The most workgroups a second pass over marked Vectors dispatches (`driver/marks.wgsl`).
    pub(crate) max_listed_groups: u32,
    /// A step program's length (`driver/program.wgsl`); 0 in other kernels.
    pub(crate) program_steps: u32,
    pub(crate) general_dims: [u32; MAX_RANK],
    pub(crate) general_strides: [u32; MAX_RANK],
    /// `general_dims` prepared for division (`Divisor`): magic numbers, and modes.
    pub(crate) general_magics: [u32; MAX_RANK],
    pub(crate) general_modes: [u32; MAX_RANK],
    /// The slope offsets of [`SlopeAccess::Blocked`]'s block.
    pub(crate) block_offsets: [u32; MAX_BLOCK],
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
pub(crate) mod gated;
mod prune;
#[cfg(test)]
mod translation;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ops::{UNARY_OPS, UnaryOp};
    use crate::repr::REPRS;

    #[test]
    fn the_default_shape_follows_the_adapter_and_a_request_wins() {
        let limits = wgpu::Limits::default();
        let shape = |t: Tuning| (t.workgroup_size, t.vectors_per_invocation);
        assert_eq!(shape(Tuning::for_limits(&limits, None, false, false, false)), (256, 4), "a GPU");
        assert_eq!(shape(Tuning::for_limits(&limits, None, true, true, true)), (256, 4), "llvmpipe's straight line");
        let swiftshader = Tuning::for_limits(&limits, None, true, true, false);
        assert_eq!(shape(swiftshader), Tuning::SIMD_ACROSS_INVOCATIONS);
        assert!(!swiftshader.straight_line);
        assert_eq!(shape(Tuning::for_limits(&limits, Some((128, 8)), true, true, false)), (128, 8), "requested");
        let small = wgpu::Limits { max_compute_invocations_per_workgroup: 48, ..limits };
        assert_eq!(shape(Tuning::for_limits(&small, Some((256, 64)), false, false, false)), (32, 32), "within limits");
    }

    #[test]
    fn the_operators_that_only_compare_and_add_take_no_products() {
        let free: Vec<&str> =
            UNARY_OPS.iter().filter(|op| takes_no_products(&Step::Unary(op, 0))).map(|op| op.onnx_name).collect();
        assert_eq!(free, ["Relu", "ThresholdedRelu", "Clip"]);
        assert!(!takes_no_products(&Step::Prelu(SlopeAccess::Same)));
        let flagged = Tuning { products: Products::Flagged, ..Tuning::default() };
        let relu = Step::Unary(UNARY_OPS.iter().find(|op| op.onnx_name == "Relu").unwrap(), 0);
        let leaky = Step::Unary(UNARY_OPS.iter().find(|op| op.onnx_name == "LeakyRelu").unwrap(), 0);
        let f32_repr = REPRS.iter().find(|spec| spec.dtype == crate::DType::F32).unwrap().repr;
        assert_eq!(KernelKey::new(f32_repr, &[relu, relu], false, flagged).tuning.products, Products::Hardware);
        assert_eq!(KernelKey::new(f32_repr, &[relu, leaky], false, flagged).tuning.products, Products::Flagged);
    }

    #[test]
    fn chains_over_the_same_operators_share_one_step_program() {
        let (leaky, elu) = (Step::Unary(&crate::ops::LEAKY_RELU, 0), Step::Unary(&crate::ops::ELU, 0));
        let program = Tuning { step_program: true, ..Tuning::default() };
        let key = |steps: &[StepKind], tuning| KernelKey::new(Repr::F32, steps, false, tuning);
        assert_eq!(key(&[elu, leaky, elu], program), key(&[leaky, leaky, elu], program));
        assert_ne!(key(&[elu, leaky], program), key(&[elu, leaky], Tuning::default()));
        let both = key(&[elu, leaky], program);
        assert_eq!((both.program_case(leaky), both.program_case(elu)), (1, 2), "the table's order");
        assert_eq!(both.program_case(Step::Unary(&crate::ops::GELU, 0)), 0, "no case");
        assert_eq!(key(&[elu, elu], program).steps().count(), 1);
        assert!(!key(&[elu], program).tuning.step_program, "a single step keeps its written kernel");
        assert!(!key(&[elu, Step::Prelu(SlopeAccess::Scalar)], program).tuning.step_program, "PRelu is no case");
    }

    /// Every key the validation test covers: each representation with the empty chain (the
    /// bench's copy), each PRelu slope access and each single unary op where the dtype is
    /// accepted, each op followed by the next one of the table (every op fused before and after
    /// another, without the square of the table), a full chain, and PRelu mixed into unary
    /// chains, in place and not.
    pub(crate) fn all_variants() -> Vec<KernelKey> {
        let mut keys = Vec::new();
        for spec in &REPRS {
            let mut chains: Vec<Vec<StepKind>> = vec![vec![]];
            let prelu = crate::ops::accepts(crate::ops::PRELU.versions, spec.dtype);
            if prelu {
                for access in SlopeAccess::ALL {
                    chains.push(vec![Step::Prelu(access)]);
                }
            }
            let ops: Vec<&'static UnaryOp> =
                UNARY_OPS.iter().copied().filter(|op| crate::ops::accepts(op.versions, spec.dtype)).collect();
            for (i, &a) in ops.iter().enumerate() {
                chains.extend(a.kernel_variants().into_iter().map(|(variant, ..)| vec![Step::Unary(a, variant)]));
                if ops.len() > 1 {
                    chains.push(vec![Step::Unary(a, 0), Step::Unary(ops[(i + 1) % ops.len()], 0)]);
                }
            }
            if let (Some(&first), Some(&last)) = (ops.first(), ops.last()) {
                chains.push(vec![Step::Unary(last, 0); MAX_CHAIN]);
                if prelu {
                    chains.push(vec![
                        Step::Prelu(SlopeAccess::Same),
                        Step::Unary(last, 0),
                        Step::Prelu(SlopeAccess::Channel),
                        Step::Unary(first, 0),
                        Step::Prelu(SlopeAccess::General),
                    ]);
                }
            }
            let products: &[Products] = if spec.files().any(|f| crate::repr::exact_subnormal_products(f).is_some()) {
                &[Products::Hardware, Products::OnIntegers, Products::Guarded, Products::Flagged, Products::Listed]
            } else {
                &[Products::Hardware]
            };
            for chain in &chains {
                for in_place in [false, true] {
                    for &products in products {
                        // Both driver forms: straight-line with Y apart, the loop in place.
                        // Both forms of a product's error: fma's with Y apart, Dekker's in place.
                        let tuning = Tuning {
                            contiguous: in_place,
                            products,
                            straight_line: !in_place,
                            fused_product_errors: !in_place,
                            ..Tuning::default()
                        };
                        keys.push(KernelKey::new(spec.repr, chain, in_place, tuning));
                    }
                }
            }
            // The loop with its groups in a loop (llvmpipe's small tensors), Y apart, the full
            // chain and each single operator of a PRelu-free kernel.
            let compact = Tuning { contiguous: true, looped_groups: true, ..Tuning::default() };
            for chain in chains.iter().filter(|c| c.len() == 1 || c.len() == MAX_CHAIN) {
                keys.push(KernelKey::new(spec.repr, chain, false, compact));
            }
            // X, or a PRelu slope, at a range of its own in Y's buffer (a framework's pooled
            // page): those bindings are read_write.
            for chain in chains.iter().filter(|c| c.len() == 1 || c.iter().any(|s| matches!(s, Step::Prelu(_)))) {
                let has_slope = chain.iter().any(|s| matches!(s, Step::Prelu(_)));
                for in_place in [false, has_slope] {
                    keys.push(KernelKey::new(spec.repr, chain, in_place, compact).with_inputs_in_output_buffer(true));
                }
            }
            // A step program over every operator of the dtype (two on the software-f64 path,
            // which holds one interpreter a kernel), in place, on each kind of products.
            let software_f64 = spec.dtype == DType::F64 && !spec.native;
            let program: Vec<StepKind> =
                ops.iter().take(if software_f64 { 2 } else { MAX_CHAIN }).map(|op| Step::Unary(op, 0)).collect();
            for &products in products.iter().filter(|p| **p != Products::OnIntegers) {
                let tuning = Tuning { products, step_program: true, fused_product_errors: true, ..compact };
                keys.push(KernelKey::new(spec.repr, &program, true, tuning));
            }
        }
        keys
    }

    pub(crate) fn parse_and_validate(key: &KernelKey) -> Result<naga::Module, String> {
        let src = key.wgsl();
        let module = naga::front::wgsl::parse_str(&src)
            .map_err(|e| format!("{}: parse error\n{}\n{src}", key.label(), e.emit_to_string(&src)))?;
        // Exactly the capabilities the representation's feature grants: the emulated paths must
        // validate with none, since they exist for adapters that have none.
        let feature = key.repr.spec().feature;
        let mut caps = naga::valid::Capabilities::empty();
        if feature.contains(wgpu::Features::SHADER_F16) {
            caps |= naga::valid::Capabilities::SHADER_FLOAT16;
        }
        if feature.contains(wgpu::Features::SHADER_F64) {
            caps |= naga::valid::Capabilities::FLOAT64;
        }
        if feature.contains(wgpu::Features::SHADER_INT64) {
            caps |= naga::valid::Capabilities::SHADER_INT64;
        }
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .map_err(|e| format!("{}: invalid\n{}\n{src}", key.label(), e.emit_to_string(&src)))?;
        Ok(module)
    }

    #[test]
    fn every_kernel_variant_validates_with_naga() {
        let keys = all_variants();
        assert!(keys.len() >= 150, "{} variants", keys.len());
        let failures: Vec<String> = keys.iter().filter_map(|k| parse_and_validate(k).err()).collect();
        assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), keys.len(), failures.join("\n\n"));
    }

    #[test]
    fn entry_points_read_exactly_the_bindings_the_engine_binds() {
        for key in all_variants() {
            let module = parse_and_validate(&key).unwrap();
            let info =
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
                    .validate(&module)
                    .unwrap();
            for pass in key.passes() {
                let index = module.entry_points.iter().position(|e| e.name == pass.entry_point()).unwrap();
                let function = info.get_entry_point(index);
                let mut used: Vec<u32> = module
                    .global_variables
                    .iter()
                    .filter(|(handle, _)| !function[*handle].is_empty())
                    .filter_map(|(_, var)| var.binding.as_ref().map(|b| b.binding))
                    .collect();
                used.sort();
                assert_eq!(used, key.bindings(pass), "{} {pass:?}", key.label());
            }
        }
    }

    #[test]
    fn params_layout_matches_the_wgsl_struct() {
        use std::mem::{offset_of, size_of};
        let key = KernelKey::new(Repr::F32, &[Step::Unary(UNARY_OPS[0], 0)], false, Tuning::default());
        let module = parse_and_validate(&key).unwrap();
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();
        let find = |name: &str| {
            let (handle, ty) = module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).unwrap();
            let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("{name} is not a struct") };
            let offsets: Vec<(String, u32)> =
                members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect();
            (offsets, *span, layouter[handle].size)
        };
        let (members, span, _) = find("Params");
        let rust = [
            ("vectors", offset_of!(Params, vectors)),
            ("tail_word", offset_of!(Params, tail_word)),
            ("tail_elements", offset_of!(Params, tail_elements)),
            ("first_element", offset_of!(Params, first_element)),
            ("steps", offset_of!(Params, steps)),
            ("general_rank", offset_of!(Params, general_rank)),
            ("zero", offset_of!(Params, zero)),
            ("max_listed_groups", offset_of!(Params, max_listed_groups)),
            ("program_steps", offset_of!(Params, program_steps)),
            ("general_dims", offset_of!(Params, general_dims)),
            ("general_strides", offset_of!(Params, general_strides)),
            ("general_magics", offset_of!(Params, general_magics)),
            ("general_modes", offset_of!(Params, general_modes)),
            ("block_offsets", offset_of!(Params, block_offsets)),
        ];
        let expected: Vec<(String, u32)> = rust.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect();
        assert_eq!(members, expected);
        assert_eq!(span as usize, size_of::<Params>());
        let (members, span, _) = find("Step");
        let expected = [
            ("attributes", 0),
            ("slope", offset_of!(StepParams, slope)),
            ("jump", offset_of!(StepParams, jump)),
            ("divide", offset_of!(StepParams, divide)),
        ];
        assert_eq!(members, expected.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect::<Vec<_>>());
        assert_eq!(span as usize, size_of::<StepParams>());
    }

    /// A kernel holds the math its operators call and no other: SwiftShader compiles whatever a
    /// module holds, and the software f64 math is heavy.
    #[test]
    fn kernels_hold_only_the_math_they_call() {
        let kernel = |op: &'static UnaryOp| {
            KernelKey::new(Repr::F64Soft, &[Step::Unary(op, 0)], false, Tuning::default()).wgsl()
        };
        let leaky = kernel(&crate::ops::LEAKY_RELU);
        let sigmoid = kernel(&crate::ops::SIGMOID);
        assert!(
            !leaky.contains("fn d_logistic") && !leaky.contains("fn d_expm1"),
            "LeakyRelu's kernel holds math it never calls"
        );
        assert!(sigmoid.contains("fn d_logistic") && !sigmoid.contains("fn d_hyperbolic_tangent"));
        assert!(leaky.len() < sigmoid.len(), "{} bytes against {}", leaky.len(), sigmoid.len());
        // Each choice of a STRING attribute is a kernel of its own, holding its own math only.
        let gelu = |variant| {
            KernelKey::new(Repr::F64Soft, &[Step::Unary(&crate::ops::GELU, variant)], false, Tuning::default())
        };
        let (erf, tanh) = (gelu(0).wgsl(), gelu(1).wgsl());
        assert!(erf.contains("fn d_normal_cdf_product") && !erf.contains("fn d_gelu_tanh_product"));
        assert!(tanh.contains("fn d_gelu_tanh_product") && !tanh.contains("fn d_normal_cdf_product"));
        assert_eq!(
            (gelu(0).label(), gelu(1).label()),
            ("wgpu-activations.gelu.f64".into(), "wgpu-activations.gelu_tanh.f64".into())
        );
        let tanh_attributes = [1.0, 0.0, 0.0, 0.0];
        assert_eq!(crate::ops::GELU.kernel_variant(&tanh_attributes), 1);
        assert_eq!(crate::ops::GELU.kernel_variant(&[0.5, 0.0, 0.0, 0.0]), 0, "no choice: the default's kernel");
    }

    #[test]
    fn attributes_and_shapes_are_not_shader_text() {
        let key = KernelKey::new(Repr::F32, &[Step::Unary(UNARY_OPS[1], 0)], false, Tuning::default());
        assert!(!key.wgsl().contains("0.01"));
        assert_eq!(key.label(), "wgpu-activations.elu.f32");
        for key in all_variants() {
            let src = key.wgsl();
            let code = src.lines().filter(|l| !l.trim_start().starts_with("//"));
            assert!(code.clone().all(|l| !l.contains("{{")), "unfilled placeholder in {}", key.label());
        }
    }
}

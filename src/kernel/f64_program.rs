//! The f64 math (`src/cpu/math_f64.rs`, written once on the `Steps` trait) recorded into the WGSL
//! of both f64 paths, in place of `{{F64_FUNCTIONS}}` in `shaders/math/f64.wgsl`:
//!
//! - native f64: straight-line functions on the `d_*` steps of `compute/f64.wgsl`;
//! - software f64: one program for the interpreter of `compute/f64_program.wgsl`, and functions
//!   that run their part of it.
//!
//! Why an interpreter: shader compilers inline every call, and a software binary64 addition or
//! product is a hundred lines of integer code. Sigmoid's math holds about 40 of them; inlined,
//! SwiftShader took over 15 minutes and 24 GB to compile that one kernel (Elu's, with a third
//! as many, took 6 s). The interpreter holds one addition, one product and one product error
//! whatever the function, so a kernel's compile cost no longer grows with its math: every
//! software-f64 kernel now compiles on SwiftShader in about half a second, and runs on lavapipe
//! faster than the inlined code did (2^18 Sigmoid elements: 0.34 s for the whole command, 0.79 s
//! before, compiled kernels cached).
//!
//! Recording runs the math once on [`Traced`] values, which append each step to a list instead
//! of computing it; the math has no branches on values (`Steps::pick`), so the list is the
//! whole function. The software recording spells `quotient` and `mul_add` in the steps the
//! software twin (`cpu::compute::Soft`) takes, so the program computes what the twin does, bit
//! for bit (a test runs this module's twin of the interpreter against it).

use std::cell::RefCell;
use std::fmt::Write as _;

use crate::cpu::compute::Steps;
use crate::cpu::{axis_f64, gated_f64, math_f64};

/// A math function of `math_f64` (or `axis_f64`), on the values being recorded: of x alone, of
/// x and y, or of x, y and z.
#[derive(Clone, Copy)]
enum MathFunction {
    Unary(fn(Traced) -> Traced),
    Binary(fn(Traced, Traced) -> Traced),
    Ternary(fn(Traced, Traced, Traced) -> Traced),
}

impl MathFunction {
    /// How many inputs it takes: they are its first steps, and registers 0 on.
    fn arity(self) -> usize {
        match self {
            MathFunction::Unary(_) => 1,
            MathFunction::Binary(_) => 2,
            MathFunction::Ternary(_) => 3,
        }
    }

    /// Its WGSL parameter list.
    fn parameters(self) -> &'static str {
        match self {
            MathFunction::Unary(_) => "x: F64",
            MathFunction::Binary(_) => "x: F64, y: F64",
            MathFunction::Ternary(_) => "x: F64, y: F64, z: F64",
        }
    }
}

/// The math functions, by their WGSL name (what `shaders/math/f64.wgsl` calls lane by lane, and
/// `shaders/driver/axis_f64.wgsl` element by element).
const FUNCTIONS: [(&str, MathFunction); 15] = [
    ("d_expm1", MathFunction::Unary(math_f64::expm1::<Traced>)),
    ("d_logistic", MathFunction::Unary(math_f64::logistic::<Traced>)),
    ("d_hyperbolic_tangent", MathFunction::Unary(math_f64::hyperbolic_tangent::<Traced>)),
    ("d_softsign_quotient", MathFunction::Unary(math_f64::softsign_quotient::<Traced>)),
    ("d_log_one_plus_exp", MathFunction::Unary(math_f64::log_one_plus_exp::<Traced>)),
    ("d_logistic_product", MathFunction::Binary(math_f64::logistic_product::<Traced>)),
    ("d_mish_product", MathFunction::Unary(math_f64::mish_product::<Traced>)),
    ("d_normal_cdf_product", MathFunction::Unary(math_f64::normal_cdf_product::<Traced>)),
    ("d_gelu_tanh_product", MathFunction::Unary(math_f64::gelu_tanh_product::<Traced>)),
    ("d_gated_product", MathFunction::Ternary(gated_f64::gated_product::<Traced>)),
    ("d_softmax_term", MathFunction::Binary(axis_f64::softmax_term::<Traced>)),
    ("d_compensated", MathFunction::Ternary(axis_f64::compensated::<Traced>)),
    ("d_softmax_quotient", MathFunction::Ternary(axis_f64::softmax_quotient::<Traced>)),
    ("d_log_of_sum", MathFunction::Binary(axis_f64::log_of_sum::<Traced>)),
    ("d_log_softmax_difference", MathFunction::Ternary(axis_f64::log_softmax_difference::<Traced>)),
];

/// One recorded step; operands are indices of earlier steps.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    Input,
    Constant(u64),
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Negate(u32),
    Absolute(u32),
    /// Native only: the device's division.
    Quotient(u32, u32),
    /// Native only: `d_mul_add`.
    MulAdd(u32, u32, u32),
    /// Native only: `d_opaque`.
    Opaque(u32),
    /// Software only: `f64_product_error(a, b, p)`.
    ProductError(u32, u32, u32),
    /// Software only: `a + b`, or `a` itself where b is +-0.
    AddUnlessZero(u32, u32),
    /// Software only: `f64_reciprocal_seed(b)`.
    ReciprocalSeed(u32),
    Less(u32, u32),
    Greater(u32, u32),
    /// `(mask, if true, if false)`.
    Pick(u32, u32, u32),
    FloorInt(u32),
    FromInt(u32),
    PowerOfTwo(u32),
    /// Native only (the software path's `PowerOfTwo` covers it).
    PowerOfTwoNear(u32),
    IntMax(u32, i32),
    IntSub(u32, u32),
}

impl Node {
    fn operands(self) -> Vec<u32> {
        use Node::*;
        match self {
            Input | Constant(_) => vec![],
            Negate(a)
            | Absolute(a)
            | Opaque(a)
            | ReciprocalSeed(a)
            | FloorInt(a)
            | FromInt(a)
            | PowerOfTwo(a)
            | PowerOfTwoNear(a)
            | IntMax(a, _) => vec![a],
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | Quotient(a, b)
            | AddUnlessZero(a, b)
            | Less(a, b)
            | Greater(a, b)
            | IntSub(a, b) => vec![a, b],
            MulAdd(a, b, c) | ProductError(a, b, c) | Pick(a, b, c) => vec![a, b, c],
        }
    }
}

/// A recording in progress: the steps so far, and which path they are for.
struct Recording {
    software: bool,
    nodes: Vec<Node>,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

fn push(node: Node) -> Traced {
    RECORDING.with_borrow_mut(|recording| {
        let nodes = &mut recording.as_mut().expect("Traced steps are taken only while recording").nodes;
        // Constants once each, so that each takes one register.
        if let Some(i) = nodes.iter().position(|n| matches!(n, Node::Constant(_)) && *n == node) {
            return Traced(i as u32);
        }
        nodes.push(node);
        Traced(nodes.len() as u32 - 1)
    })
}

fn software() -> bool {
    RECORDING.with_borrow(|recording| recording.as_ref().is_some_and(|r| r.software))
}

/// A value of the function being recorded: the index of the step that computes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Traced(u32);

impl Steps for Traced {
    type Int = Traced;
    type Mask = Traced;
    fn constant(v: f64) -> Self {
        push(Node::Constant(v.to_bits()))
    }
    fn add(self, b: Self) -> Self {
        push(Node::Add(self.0, b.0))
    }
    fn sub(self, b: Self) -> Self {
        push(Node::Sub(self.0, b.0))
    }
    fn mul(self, b: Self) -> Self {
        push(Node::Mul(self.0, b.0))
    }
    fn negate(self) -> Self {
        push(Node::Negate(self.0))
    }
    fn absolute(self) -> Self {
        push(Node::Absolute(self.0))
    }
    /// The software twin's steps (`Soft::quotient`) where the path is software.
    fn quotient(self, b: Self) -> Self {
        if !software() {
            return push(Node::Quotient(self.0, b.0));
        }
        let mut y = push(Node::ReciprocalSeed(b.0));
        for _ in 0..2 {
            y = y.add(y.mul(Self::constant(1.0).sub(b.mul(y))));
        }
        self.mul(y)
    }
    fn less(self, b: Self) -> Self {
        push(Node::Less(self.0, b.0))
    }
    fn greater(self, b: Self) -> Self {
        push(Node::Greater(self.0, b.0))
    }
    fn pick(m: Self, t: Self, f: Self) -> Self {
        push(Node::Pick(m.0, t.0, f.0))
    }
    fn floor_int(self) -> Self {
        push(Node::FloorInt(self.0))
    }
    fn from_int(k: Self) -> Self {
        push(Node::FromInt(k.0))
    }
    fn power_of_two(k: Self) -> Self {
        push(Node::PowerOfTwo(k.0))
    }
    fn power_of_two_near(k: Self) -> Self {
        push(if software() { Node::PowerOfTwo(k.0) } else { Node::PowerOfTwoNear(k.0) })
    }
    fn int_max(k: Self, floor: i32) -> Self {
        push(Node::IntMax(k.0, floor))
    }
    fn int_sub(a: Self, b: Self) -> Self {
        push(Node::IntSub(a.0, b.0))
    }
    fn opaque(self) -> Self {
        if software() { self } else { push(Node::Opaque(self.0)) }
    }
    /// The software twin's steps (`Soft::mul_add`) where the path is software.
    fn mul_add(self, b: Self, c: Self) -> Self {
        if !software() {
            return push(Node::MulAdd(self.0, b.0, c.0));
        }
        let p = self.mul(b);
        let e = push(Node::ProductError(self.0, b.0, p.0));
        push(Node::AddUnlessZero(c.add(p).0, e.0))
    }
}

/// `function`'s steps on one path, those its result needs, in order; the inputs are the first
/// steps (x, then y, then z).
fn record(function: MathFunction, software: bool) -> (Vec<Node>, u32) {
    RECORDING.set(Some(Recording { software, nodes: vec![Node::Input; function.arity()] }));
    let result = match function {
        MathFunction::Unary(f) => f(Traced(0)),
        MathFunction::Binary(f) => f(Traced(0), Traced(1)),
        MathFunction::Ternary(f) => f(Traced(0), Traced(1), Traced(2)),
    };
    let nodes = RECORDING.take().map(|r| r.nodes).unwrap_or_default();
    let mut needed = vec![false; nodes.len()];
    needed[result.0 as usize] = true;
    needed[..function.arity()].iter_mut().for_each(|n| *n = true);
    for i in (0..nodes.len()).rev() {
        if needed[i] {
            nodes[i].operands().into_iter().for_each(|o| needed[o as usize] = true);
        }
    }
    let mut renumbered = vec![0u32; nodes.len()];
    let mut kept = Vec::new();
    for (i, node) in nodes.into_iter().enumerate() {
        if needed[i] {
            renumbered[i] = kept.len() as u32;
            kept.push(remap(node, |o| renumbered[o as usize]));
        }
    }
    (kept, renumbered[result.0 as usize])
}

fn remap(node: Node, f: impl Fn(u32) -> u32) -> Node {
    use Node::*;
    match node {
        Input | Constant(_) => node,
        Add(a, b) => Add(f(a), f(b)),
        Sub(a, b) => Sub(f(a), f(b)),
        Mul(a, b) => Mul(f(a), f(b)),
        Negate(a) => Negate(f(a)),
        Absolute(a) => Absolute(f(a)),
        Quotient(a, b) => Quotient(f(a), f(b)),
        MulAdd(a, b, c) => MulAdd(f(a), f(b), f(c)),
        Opaque(a) => Opaque(f(a)),
        ProductError(a, b, c) => ProductError(f(a), f(b), f(c)),
        AddUnlessZero(a, b) => AddUnlessZero(f(a), f(b)),
        ReciprocalSeed(a) => ReciprocalSeed(f(a)),
        Less(a, b) => Less(f(a), f(b)),
        Greater(a, b) => Greater(f(a), f(b)),
        Pick(a, b, c) => Pick(f(a), f(b), f(c)),
        FloorInt(a) => FloorInt(f(a)),
        FromInt(a) => FromInt(f(a)),
        PowerOfTwo(a) => PowerOfTwo(f(a)),
        PowerOfTwoNear(a) => PowerOfTwoNear(f(a)),
        IntMax(a, k) => IntMax(f(a), k),
        IntSub(a, b) => IntSub(f(a), f(b)),
    }
}

/// The f64 literal placeholder the expansion spells for the path (`kernel::f64_constants`).
fn literal(bits: u64) -> String {
    format!("{{{{F64 {:e}}}}}", f64::from_bits(bits))
}

/// A native function: one `let` per step.
fn native_function(name: &str, function: MathFunction) -> String {
    use Node::*;
    let (nodes, result) = record(function, false);
    let v = |i: &u32| match i {
        0 => "x".to_string(),
        1 if function.arity() >= 2 => "y".to_string(),
        2 if function.arity() == 3 => "z".to_string(),
        _ => format!("v{i}"),
    };
    let mut out = format!("fn {name}({}) -> F64 {{\n", function.parameters());
    for (i, node) in nodes.iter().enumerate().skip(function.arity()) {
        let (ty, value) = match node {
            Constant(bits) => ("F64", literal(*bits)),
            Add(a, b) => ("F64", format!("d_add({}, {})", v(a), v(b))),
            Sub(a, b) => ("F64", format!("d_sub({}, {})", v(a), v(b))),
            Mul(a, b) => ("F64", format!("d_mul({}, {})", v(a), v(b))),
            Negate(a) => ("F64", format!("d_negate({})", v(a))),
            Absolute(a) => ("F64", format!("d_absolute({})", v(a))),
            Quotient(a, b) => ("F64", format!("d_quotient({}, {})", v(a), v(b))),
            MulAdd(a, b, c) => ("F64", format!("d_mul_add({}, {}, {})", v(a), v(b), v(c))),
            Opaque(a) => ("F64", format!("d_opaque({})", v(a))),
            Less(a, b) => ("bool", format!("d_less({}, {})", v(a), v(b))),
            Greater(a, b) => ("bool", format!("d_greater({}, {})", v(a), v(b))),
            Pick(m, t, f) => ("F64", format!("select({}, {}, {})", v(f), v(t), v(m))),
            FloorInt(a) => ("i32", format!("d_floor_int({})", v(a))),
            FromInt(a) => ("F64", format!("d_from_int({})", v(a))),
            PowerOfTwo(a) => ("F64", format!("d_power_of_two({})", v(a))),
            PowerOfTwoNear(a) => ("F64", format!("d_power_of_two_near({})", v(a))),
            IntMax(a, k) => ("i32", format!("max({}, {k}i)", v(a))),
            IntSub(a, b) => ("i32", format!("{} - {}", v(a), v(b))),
            Input | ProductError(..) | AddUnlessZero(..) | ReciprocalSeed(..) => {
                unreachable!("not a native step: {node:?}")
            }
        };
        let _ = writeln!(out, "    let v{i}: {ty} = {value};");
    }
    let _ = writeln!(out, "    return {};\n}}", v(&result));
    out
}

/// The interpreter's operations (`compute/f64_program.wgsl`), in their code order: the
/// additions first, as it tells them apart by `op <= ADD_UNLESS_ZERO`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Operation {
    Add,
    Sub,
    AddUnlessZero,
    Mul,
    ProductError,
    Negate,
    Absolute,
    Less,
    Greater,
    Pick,
    FloorInt,
    FromInt,
    PowerOfTwo,
    IntMax,
    IntSub,
    ReciprocalSeed,
}

impl Operation {
    const ALL: [Operation; 16] = [
        Operation::Add,
        Operation::Sub,
        Operation::AddUnlessZero,
        Operation::Mul,
        Operation::ProductError,
        Operation::Negate,
        Operation::Absolute,
        Operation::Less,
        Operation::Greater,
        Operation::Pick,
        Operation::FloorInt,
        Operation::FromInt,
        Operation::PowerOfTwo,
        Operation::IntMax,
        Operation::IntSub,
        Operation::ReciprocalSeed,
    ];

    fn wgsl_name(self) -> String {
        let mut name = String::from("F64_OP");
        for c in format!("{self:?}").chars() {
            if c.is_ascii_uppercase() {
                name.push('_');
            }
            name.push(c.to_ascii_uppercase());
        }
        name
    }
}

/// One instruction: `(op | dst << 8 | immediate << 16, a, b, c)`, operands and destination
/// being register numbers.
pub(crate) type Instruction = [u32; 4];

/// The software path's program: every function's instructions, one after the other; registers
/// below `temporaries` are the function's own (the inputs in registers 0 to 2), the rest hold
/// `constants`.
pub(crate) struct Program {
    pub(crate) instructions: Vec<Instruction>,
    pub(crate) temporaries: u32,
    pub(crate) constants: Vec<u64>,
    /// Per function: its name, first and past-the-end instruction, and result register.
    pub(crate) functions: Vec<(&'static str, u32, u32, u32)>,
}

/// Registers for temporaries while allocating: more than any function needs (recording panics
/// otherwise, and the tests record every function); the program keeps as many as its
/// functions use, the `F64_TEMPORARIES` of `compute/f64_program.wgsl`.
const TEMPORARIES: u32 = 32;

/// The program of the functions `wanted` names, in [`FUNCTIONS`] order.
pub(crate) fn program(wanted: &impl Fn(&str) -> bool) -> Program {
    let recorded: Vec<_> = FUNCTIONS
        .iter()
        .filter(|(name, _)| wanted(name))
        .map(|&(name, f)| (name, f.arity(), record(f, true)))
        .collect();
    let mut constants: Vec<u64> = Vec::new();
    for (_, _, (nodes, _)) in &recorded {
        for node in nodes {
            match node {
                Node::Constant(bits) if !constants.contains(bits) => constants.push(*bits),
                _ => {}
            }
        }
    }
    let mut program = Program { instructions: Vec::new(), temporaries: 3, constants, functions: vec![] };
    let constants = program.constants.clone();
    let constant_register = |bits: u64| TEMPORARIES + constants.iter().position(|&c| c == bits).unwrap_or(0) as u32;
    for (name, arity, (nodes, result)) in recorded {
        let start = program.instructions.len() as u32;
        let mut last_use = vec![0usize; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            node.operands().into_iter().for_each(|o| last_use[o as usize] = i);
        }
        last_use[result as usize] = usize::MAX;
        // The inputs are in registers 0 to 2; each step's result takes the lowest free
        // temporary once its operands are read, which may be one of theirs.
        let mut register: Vec<u32> = (0..nodes.len() as u32).map(|i| i.min(2)).collect();
        let mut free: Vec<bool> = (0..TEMPORARIES as usize).map(|r| r >= arity).collect();
        for (i, node) in nodes.iter().enumerate().skip(arity) {
            if let Node::Constant(bits) = node {
                register[i] = constant_register(*bits);
                continue;
            }
            for o in node.operands() {
                if last_use[o as usize] == i && register[o as usize] < TEMPORARIES {
                    free[register[o as usize] as usize] = true;
                }
            }
            let Some(dst) = free.iter().position(|&f| f) else {
                panic!("{name} needs more than {TEMPORARIES} temporary registers");
            };
            free[dst] = false;
            register[i] = dst as u32;
            program.temporaries = program.temporaries.max(dst as u32 + 1);
            let r = |o: u32| register[o as usize];
            use Node::*;
            let (op, immediate, operands) = match *node {
                Add(a, b) => (Operation::Add, 0, [r(a), r(b), 0]),
                Sub(a, b) => (Operation::Sub, 0, [r(a), r(b), 0]),
                AddUnlessZero(a, b) => (Operation::AddUnlessZero, 0, [r(a), r(b), 0]),
                Mul(a, b) => (Operation::Mul, 0, [r(a), r(b), 0]),
                ProductError(a, b, p) => (Operation::ProductError, 0, [r(a), r(b), r(p)]),
                Negate(a) => (Operation::Negate, 0, [r(a), 0, 0]),
                Absolute(a) => (Operation::Absolute, 0, [r(a), 0, 0]),
                Less(a, b) => (Operation::Less, 0, [r(a), r(b), 0]),
                Greater(a, b) => (Operation::Greater, 0, [r(a), r(b), 0]),
                Pick(m, t, f) => (Operation::Pick, 0, [r(m), r(t), r(f)]),
                FloorInt(a) => (Operation::FloorInt, 0, [r(a), 0, 0]),
                FromInt(a) => (Operation::FromInt, 0, [r(a), 0, 0]),
                PowerOfTwo(a) => (Operation::PowerOfTwo, 0, [r(a), 0, 0]),
                IntMax(a, k) => (Operation::IntMax, k, [r(a), 0, 0]),
                IntSub(a, b) => (Operation::IntSub, 0, [r(a), r(b), 0]),
                ReciprocalSeed(a) => (Operation::ReciprocalSeed, 0, [r(a), 0, 0]),
                Input | Constant(_) | Quotient(..) | MulAdd(..) | Opaque(_) | PowerOfTwoNear(_) => {
                    unreachable!("not a software step: {node:?}")
                }
            };
            assert!(i16::try_from(immediate).is_ok(), "{name}: immediate {immediate} beyond 16 bits");
            program.instructions.push([
                op as u32 | (dst as u32) << 8 | (immediate as u32) << 16,
                operands[0],
                operands[1],
                operands[2],
            ]);
        }
        program.functions.push((name, start, program.instructions.len() as u32, register[result as usize]));
    }
    // The constants move down to follow the temporaries the functions use.
    let shift = TEMPORARIES - program.temporaries;
    let moved = |r: &mut u32| {
        if *r >= TEMPORARIES {
            *r -= shift;
        }
    };
    program.instructions.iter_mut().for_each(|instruction| instruction[1..].iter_mut().for_each(moved));
    program.functions.iter_mut().for_each(|function| moved(&mut function.3));
    program
}

/// The software path's text: the operation codes, the program of the functions `wanted` names,
/// its constants, and a function per math function that runs its part.
fn software_functions(program: &Program) -> String {
    let mut out = String::new();
    for op in Operation::ALL {
        let _ = writeln!(out, "const {}: u32 = {}u;", op.wgsl_name(), op as u32);
    }
    let _ = writeln!(
        out,
        "var<private> F64_PROGRAM: array<vec2<u32>, {0}> = array<vec2<u32>, {0}>(",
        program.instructions.len()
    );
    // Two words an instruction, the three operands' registers in ten bits each: the array is
    // written into every invocation's registers, and lavapipe's compile time grew with it.
    for &[x, a, b, c] in &program.instructions {
        assert!(a.max(b).max(c) < 1 << 10, "register {} beyond ten bits", a.max(b).max(c));
        let _ = writeln!(out, "    vec2<u32>({x:#x}u, {:#x}u),", a | b << 10 | c << 20);
    }
    out.push_str(");\n");
    let _ = writeln!(out, "const F64_TEMPORARIES: u32 = {}u;", program.temporaries);
    let _ = writeln!(out, "var<private> F64_CONSTANTS: array<U64, {0}> = array<U64, {0}>(", program.constants.len());
    for bits in &program.constants {
        let _ = writeln!(out, "    {},", super::text::u64_literal(*bits));
    }
    out.push_str(");\n");
    for (name, start, end, result) in &program.functions {
        let Some((_, function)) = FUNCTIONS.iter().find(|(n, _)| n == name) else { continue };
        let inputs = ["x, x, x", "x, y, y", "x, y, z"][function.arity() - 1];
        let _ = writeln!(
            out,
            "fn {name}({}) -> F64 {{\n    return f64_program_run({start}u, {end}u, {result}u, {inputs});\n}}",
            function.parameters()
        );
    }
    out
}

/// Where `shaders/math/f64.wgsl` takes the functions, a line of its own.
pub(crate) const PLACEHOLDER: &str = "{{F64_FUNCTIONS}}";

/// The text of [`PLACEHOLDER`] for the path, with the functions `wanted` names and their
/// Compute-level functions (`d_logistic` and `logistic`). Constants are written `{{F64
/// <decimal>}}`, for the expansion to spell.
///
/// The expansion asks for the functions its kernel calls only: a compiler may take the whole
/// program into account whatever the kernel runs of it (lavapipe compiled a Sigmoid kernel in
/// 6.5 s with every function's program, 1.2 s with Sigmoid's alone).
pub(crate) fn functions(native: bool, wanted: impl Fn(&str) -> bool) -> String {
    let program = (!native).then(|| program(&wanted));
    let mut text = match &program {
        None => FUNCTIONS
            .iter()
            .filter(|(name, _)| wanted(name))
            .map(|&(name, f)| native_function(name, f))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(program) => software_functions(program),
    };
    for &(name, function) in FUNCTIONS.iter().filter(|(name, _)| wanted(name)) {
        text.push_str(&lane_function(name, function));
    }
    text.push_str(&dispatcher(program.as_ref(), &wanted));
    text
}

/// The constant that names math function `name` for `f64_call` (`F64_FN_SOFTMAX_TERM` for
/// `d_softmax_term`).
pub(crate) fn call_constant(name: &str) -> String {
    format!("F64_FN_{}", name.strip_prefix("d_").unwrap_or(name).to_ascii_uppercase())
}

/// Whether a kernel's source `src` calls math function `name` through `f64_call`.
pub(crate) fn called(src: &str, name: &str) -> bool {
    src.contains(&call_constant(name))
}

/// `f64_call(function, x, y, z)`: any of the wanted functions by its constant, from one call
/// site. Shader compilers inline each call of a software-path function, the program's whole
/// interpreter with it: a kernel over an axis with four such calls took llvmpipe 18 s to
/// compile, where one call in a loop of steps holds one copy (on the native path, a switch).
fn dispatcher(program: Option<&Program>, wanted: &impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let mut cases = String::new();
    for (index, &(name, function)) in FUNCTIONS.iter().enumerate().filter(|(_, (name, _))| wanted(name)) {
        let _ = writeln!(out, "const {}: u32 = {index}u;", call_constant(name));
        let body = match program {
            Some(program) => {
                let Some(&(_, start, end, result)) = program.functions.iter().find(|f| f.0 == name) else { continue };
                format!("span = vec3({start}u, {end}u, {result}u);")
            }
            None => {
                let inputs = ["x", "x, y", "x, y, z"][function.arity() - 1];
                format!("return {name}({inputs});")
            }
        };
        let _ = writeln!(cases, "        case {index}u: {{ {body} }}");
    }
    let (before, after) = match program {
        None => ("", "    return x;"),
        Some(_) => {
            ("    var span = vec3(0u, 0u, 0u);\n", "    return f64_program_run(span.x, span.y, span.z, x, y, z);")
        }
    };
    let _ = write!(
        out,
        "fn f64_call(function: u32, x: F64, y: F64, z: F64) -> F64 {{\n{before}    switch function {{\n{cases}        default: {{}}\n    }}\n{after}\n}}\n"
    );
    out
}

/// The Compute-level function of the interface (`shaders/README.md`) for math function `name`:
/// its name without `d_`, applied lane by lane.
fn lane_function(name: &str, function: MathFunction) -> String {
    let (parameters, arguments) = match function {
        MathFunction::Unary(_) => ("c: Compute", "lane(c, i)"),
        MathFunction::Binary(_) => ("c: Compute, a: Compute", "lane(c, i), lane(a, i)"),
        MathFunction::Ternary(_) => ("c: Compute, a: Compute, b: Compute", "lane(c, i), lane(a, i), lane(b, i)"),
    };
    let short = name.strip_prefix("d_").unwrap_or(name);
    format!(
        "\nfn {short}({parameters}) -> Compute {{\n    var out = c;\n    for (var i = 0u; i < 2u; i++) {{\n        out = with_lane(out, i, {name}({arguments}));\n    }}\n    return out;\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::compute::{Soft, reciprocal_seed};
    use crate::cpu::soft_f64::{self as soft, U64};

    /// The twin of `compute/f64_program.wgsl`'s `f64_program_run`, step for step.
    fn run(program: &Program, start: u32, end: u32, result: u32, [x, y, z]: [U64; 3]) -> U64 {
        let mut r: Vec<U64> = vec![[0, 0]; program.temporaries as usize];
        r.extend(program.constants.iter().map(|&b| crate::dtype::words_of_u64(b)));
        r[0] = x;
        r[1] = y;
        r[2] = z;
        let int = |v: U64| v[0] as i32;
        let from_int = |k: i32| [k as u32, 0];
        for &[word, ia, ib, ic] in &program.instructions[start as usize..end as usize] {
            let (op, dst, immediate) = (word & 0xff, (word >> 8) & 0xff, (word as i32) >> 16);
            let (a, b, c) = (r[ia as usize], r[ib as usize], r[ic as usize]);
            let op = Operation::ALL[op as usize];
            r[dst as usize] = match op {
                Operation::Add | Operation::Sub | Operation::AddUnlessZero => {
                    let sum = soft::f64_add(a, if op == Operation::Sub { soft::f64_negate(b) } else { b });
                    if op == Operation::AddUnlessZero && soft::u64_is_zero([b[0], b[1] & 0x7fff_ffff]) {
                        a
                    } else {
                        sum
                    }
                }
                Operation::Mul => soft::f64_mul(a, b),
                Operation::ProductError => soft::f64_product_error(a, b, c),
                Operation::Negate => soft::f64_negate(a),
                Operation::Absolute => [a[0], a[1] & 0x7fff_ffff],
                Operation::Less => [u32::from(Soft(b).greater(Soft(a))), 0],
                Operation::Greater => [u32::from(Soft(a).greater(Soft(b))), 0],
                Operation::Pick => {
                    if a[0] != 0 {
                        b
                    } else {
                        c
                    }
                }
                Operation::FloorInt => from_int(soft::f64_floor_to_i32(a)),
                Operation::FromInt => soft::f64_from_i32(int(a)),
                Operation::PowerOfTwo => Soft::power_of_two(int(a)).0,
                Operation::IntMax => from_int(int(a).max(immediate)),
                Operation::IntSub => from_int(int(a).wrapping_sub(int(b))),
                Operation::ReciprocalSeed => reciprocal_seed(a),
            };
        }
        r[result as usize]
    }

    /// Log-spaced magnitudes of both signs from 1e-310 to 1e300, and the edges.
    fn inputs() -> Vec<f64> {
        let mut values: Vec<f64> = (0..4000).map(|i| 10f64.powf(-310.0 + 610.0 * i as f64 / 4000.0)).collect();
        values.extend([0.0, f64::MAX, f64::INFINITY, 746.0, 745.9, 19.1, 38.0, 7.450_580_596_923_828e-9]);
        values.extend(values.clone().into_iter().map(|v| -v));
        values
    }

    #[test]
    fn the_program_computes_what_the_software_twin_does() {
        let program = program(&|_| true);
        for (&(name, _), &(_, start, end, result)) in FUNCTIONS.iter().zip(&program.functions) {
            let twin: fn(Soft, Soft, Soft) -> Soft = match name {
                "d_expm1" => |x, _, _| math_f64::expm1(x),
                "d_logistic" => |x, _, _| math_f64::logistic(x),
                "d_hyperbolic_tangent" => |x, _, _| math_f64::hyperbolic_tangent(x),
                "d_softsign_quotient" => |x, _, _| math_f64::softsign_quotient(x),
                "d_log_one_plus_exp" => |x, _, _| math_f64::log_one_plus_exp(x),
                "d_logistic_product" => |x, a, _| math_f64::logistic_product(x, a),
                "d_mish_product" => |x, _, _| math_f64::mish_product(x),
                "d_normal_cdf_product" => |x, _, _| math_f64::normal_cdf_product(x),
                "d_gelu_tanh_product" => |x, _, _| math_f64::gelu_tanh_product(x),
                "d_gated_product" => gated_f64::gated_product,
                "d_softmax_term" => |x, m, _| axis_f64::softmax_term(x, m),
                "d_softmax_quotient" => axis_f64::softmax_quotient,
                "d_compensated" => axis_f64::compensated,
                "d_log_of_sum" => |hi, lo, _| axis_f64::log_of_sum(hi, lo),
                "d_log_softmax_difference" => axis_f64::log_softmax_difference,
                _ => panic!("{name} has no twin here"),
            };
            // The other inputs: x itself (what a function of fewer inputs gets), and
            // attribute-like values (a row's maximum, sum and log-sum for the axis's functions).
            let arity = FUNCTIONS.iter().find(|(n, _)| *n == name).map_or(1, |(_, f)| f.arity());
            let ys: &[Option<f64>] = if arity >= 2 {
                &[Some(1.0), Some(-0.5), Some(1.702), Some(3e-39), Some(3.4e38), Some(0.0)]
            } else {
                &[None]
            };
            let zs: &[Option<f64>] = if arity == 3 { &[Some(1.0), Some(3.75), Some(1e6)] } else { &[None] };
            for (&y, &z) in ys.iter().flat_map(|y| zs.iter().map(move |z| (y, z))) {
                for x in inputs() {
                    if name == "d_expm1" && x > 0.0 {
                        continue;
                    }
                    let y = Soft::constant(y.unwrap_or(x));
                    let z = z.map_or(y, Soft::constant);
                    let expected = twin(Soft::constant(x), y, z).0;
                    let got = run(&program, start, end, result, [Soft::constant(x).0, y.0, z.0]);
                    assert_eq!(got, expected, "{name}({x:e})");
                }
            }
        }
    }

    #[test]
    fn operation_codes_fit_and_are_in_order() {
        for (i, op) in Operation::ALL.iter().enumerate() {
            assert_eq!(*op as usize, i);
        }
        assert!(Operation::AddUnlessZero as u32 == 2 && Operation::Sub as u32 == 1);
        let program = program(&|_| true);
        let registers = program.temporaries as usize + program.constants.len();
        assert!(registers < 256);
        assert!(program.instructions.iter().all(|i| i[1..].iter().all(|&r| (r as usize) < registers)));
        assert!(program.instructions.iter().all(|i| (i[0] >> 8 & 0xff) < program.temporaries));
    }

    #[test]
    fn native_functions_take_each_step_once() {
        let text = functions(true, |_| true);
        for (name, function) in FUNCTIONS {
            assert!(text.contains(&format!("fn {name}({}) -> F64", function.parameters())), "{name}");
        }
        assert!(!text.contains("f64_program_run"));
        let software = functions(false, |name| name == "d_logistic");
        assert!(software.contains("fn d_logistic(") && !software.contains("fn d_expm1("));
    }
}

//! [`Step`]: the one step type of a chain, from the ONNX plan to the kernel.

use super::*;

/// One step of a chain, the one step type from the ONNX plan to the kernel: an operator of the
/// table with its attribute values `A`, or one of the two operators with a second tensor, held
/// as `S`: PRelu's slope, broadcast to X, and SwiGLU's B, of X's shape (the chain's value is its
/// A). The engine gathers both the same way and calls both the step's slope. Each layer holds
/// the slope its own way: a device tensor
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
    /// SwiGLU, `Swish_alpha(X) * B`, with its B and its attribute values (alpha).
    Swiglu(S, A),
}

/// An operator of the table by itself, without attributes or inputs.
pub type Operator = Step<(), ()>;

impl<S, A> Step<S, A> {
    /// The operator of this step, without its attributes and slope.
    pub fn operator(&self) -> Operator {
        match self {
            Step::Unary(op, _) => Step::Unary(op, ()),
            Step::Prelu(_) => Step::Prelu(()),
            Step::Swiglu(..) => Step::Swiglu((), ()),
        }
    }

    /// The ONNX op type.
    pub fn onnx_name(&self) -> &'static str {
        match self {
            Step::Unary(op, _) => op.onnx_name,
            Step::Prelu(_) => PRELU.onnx_name,
            Step::Swiglu(..) => SWIGLU.onnx_name,
        }
    }

    /// The name on the command line.
    pub fn cli_name(&self) -> &'static str {
        match self {
            Step::Unary(op, _) => op.cli_name,
            Step::Prelu(_) => PRELU.cli_name,
            Step::Swiglu(..) => SWIGLU.cli_name,
        }
    }

    /// The operator's ONNX versions, oldest first.
    pub fn versions(&self) -> &'static [OpVersion] {
        match self {
            Step::Unary(op, _) => op.versions,
            Step::Prelu(_) => PRELU.versions,
            Step::Swiglu(..) => SWIGLU.versions,
        }
    }

    /// The operator's accuracy bounds.
    pub fn max_ulp(&self) -> UlpBounds {
        match self {
            Step::Unary(op, _) => op.max_ulp,
            Step::Prelu(_) => PRELU.max_ulp,
            Step::Swiglu(..) => SWIGLU.max_ulp,
        }
    }

    /// How many inputs a node of the operator takes: X, and PRelu's slope or SwiGLU's B.
    pub fn inputs(&self) -> usize {
        match self {
            Step::Unary(..) => 1,
            Step::Prelu(_) | Step::Swiglu(..) => 2,
        }
    }

    /// True when some ONNX version of the operator accepts `dtype`.
    pub fn accepts(&self, dtype: DType) -> bool {
        accepts(self.versions(), dtype)
    }

    /// The unary operator of this step (`None` for PRelu and SwiGLU).
    pub fn unary_op(&self) -> Option<&'static UnaryOp> {
        match self {
            Step::Unary(op, _) => Some(op),
            Step::Prelu(_) | Step::Swiglu(..) => None,
        }
    }

    /// The step's second tensor: PRelu's slope, SwiGLU's B.
    pub fn slope(&self) -> Option<&S> {
        match self {
            Step::Prelu(slope) | Step::Swiglu(slope, _) => Some(slope),
            Step::Unary(..) => None,
        }
    }

    /// How errors name the step's second tensor: "PRelu's slope", "SwiGLU's B" (a unary step
    /// has none).
    pub(crate) fn slope_name(&self) -> &'static str {
        match self {
            Step::Prelu(_) => "PRelu's slope",
            Step::Swiglu(..) => "SwiGLU's B",
            Step::Unary(..) => "no second tensor",
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
            Step::Swiglu(b, attributes) => Step::Swiglu(b, *attributes),
        }
    }

    /// The same step with its slope held another way.
    pub fn map_slope<U>(self, f: impl FnOnce(S) -> U) -> Step<U, A> {
        match self {
            Step::Unary(op, attributes) => Step::Unary(op, attributes),
            Step::Prelu(slope) => Step::Prelu(f(slope)),
            Step::Swiglu(b, attributes) => Step::Swiglu(f(b), attributes),
        }
    }

    /// [`Step::map_slope`] with a conversion that can fail.
    pub fn try_map_slope<U, E>(self, f: impl FnOnce(S) -> Result<U, E>) -> Result<Step<U, A>, E> {
        Ok(match self {
            Step::Unary(op, attributes) => Step::Unary(op, attributes),
            Step::Prelu(slope) => Step::Prelu(f(slope)?),
            Step::Swiglu(b, attributes) => Step::Swiglu(f(b)?, attributes),
        })
    }
}

impl Operator {
    /// The operator with this ONNX op type (exactly: ONNX op types are case-sensitive).
    pub fn find(op_type: &str) -> Option<Operator> {
        if op_type == PRELU.onnx_name {
            return Some(Step::Prelu(()));
        }
        if op_type == SWIGLU.onnx_name {
            return Some(Step::Swiglu((), ()));
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
            (Step::Swiglu(a, x), Step::Swiglu(b, y)) => a == b && x == y,
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
            Step::Swiglu(b, attributes) => (2u8, b, attributes).hash(state),
        }
    }
}

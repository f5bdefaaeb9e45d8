//! [`Activation`]: a chain step whose PRelu slope or SwiGLU B is a device tensor, the step the
//! public API takes.

use std::fmt;

use super::tensor::GpuTensor;
use crate::dtype::DType;
use crate::ops::{Attributes, CLIP, ELU, LEAKY_RELU, SHRINK, SWIGLU, Step, UnaryOp};
use crate::real::IntegerType;

/// One step of a chain: a unary operator with its attribute values, PRelu with its slope
/// tensor, or SwiGLU with its B tensor and alpha. A slice of these runs as one fused kernel (one read and one write of X), each step
/// rounding exactly as it would alone.
#[derive(Clone)]
pub struct Activation(pub(crate) Step<GpuTensor>);

impl fmt::Debug for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Step::Unary(op, attributes) => {
                let mut s = f.debug_struct(op.onnx_name);
                for (slot, (attribute, value)) in op.attributes.iter().zip(attributes).enumerate() {
                    let residual = op.residual_slot(slot).map_or(0.0, |r| attributes[r]);
                    let (f64_bound, integer_bound) =
                        (op.f64_bound(attributes, slot), op.integer_bound_in_words(attributes, slot));
                    match (attribute.choice_name(*value), f64_bound) {
                        (Some(choice), _) => s.field(attribute.name, &choice),
                        (None, Some(bound)) => s.field(attribute.name, &bound),
                        (None, None) if integer_bound.is_some() => {
                            s.field(attribute.name, &integer_bound.unwrap_or_default())
                        }
                        (None, None) if residual != 0.0 => {
                            s.field(attribute.name, &(*value as i128).saturating_add(residual as i128))
                        }
                        (None, None) => s.field(attribute.name, value),
                    };
                }
                s.finish()
            }
            Step::Prelu(slope) => f.debug_struct("PRelu").field("slope", &slope.shape()).finish(),
            Step::Swiglu(b, [alpha, ..]) => {
                f.debug_struct("SwiGLU").field("alpha", alpha).field("b", &b.shape()).finish()
            }
        }
    }
}

/// Attributes compare bit for bit: a NaN attribute is itself, -0.0 is not +0.0 (Clip's bound
/// gives either sign), and an f64 bound's residual is a word, not a value.
impl PartialEq for Activation {
    fn eq(&self, other: &Self) -> bool {
        let same = |x: &Attributes, y: &Attributes| x.map(f32::to_bits) == y.map(f32::to_bits);
        match (&self.0, &other.0) {
            (Step::Prelu(a), Step::Prelu(b)) => a.same_view(b),
            (Step::Swiglu(a, x), Step::Swiglu(b, y)) => a.same_view(b) && same(x, y),
            (Step::Unary(a, x), Step::Unary(b, y)) => std::ptr::eq(*a, *b) && same(x, y),
            _ => false,
        }
    }
}

impl Activation {
    /// LeakyRelu with `alpha`.
    pub fn leaky_relu(alpha: f32) -> Self {
        Self::with_attributes(&LEAKY_RELU, &[alpha])
    }

    /// Elu with `alpha`.
    pub fn elu(alpha: f32) -> Self {
        Self::with_attributes(&ELU, &[alpha])
    }

    /// Clip to `[min, max]` (its function body: min where X is below it, then max where above;
    /// NaN passes through, min > max gives max). The bounds are f32 values, cast like X.
    pub fn clip(min: f32, max: f32) -> Self {
        Self::with_attributes(&CLIP, &[min, max])
    }

    /// Relu6, MobileNet's clamp: `Clip(0, 6)`.
    pub fn relu6() -> Self {
        Self::clip(0.0, 6.0)
    }

    /// Shrink with `lambd` and `bias` (Hardshrink is `bias` 0, Softshrink `bias` = `lambd`).
    pub fn shrink(lambd: f32, bias: f32) -> Self {
        Self::with_attributes(&SHRINK, &[lambd, bias])
    }

    /// PRelu with `slope`, which must have X's dtype and broadcast to X by ONNX's
    /// unidirectional rule (PRelu-7+). The step keeps the tensor alive.
    pub fn prelu(slope: &GpuTensor) -> Self {
        Activation(Step::Prelu(slope.clone()))
    }

    /// SwiGLU (ONNX 28), `Swish_alpha(X) * b`: the chain's value is SwiGLU's A, and `b` must have
    /// X's shape and dtype (no broadcasting); ONNX's default alpha is 1. f16, bf16 and f32 run on
    /// the device; the host-array chain functions run an f64 chain holding it on the CPU
    /// reference. The step keeps the tensor alive.
    pub fn swiglu(b: &GpuTensor, alpha: f32) -> Self {
        Activation(Step::Swiglu(b.clone(), crate::ops::attributes_from(&[alpha])))
    }

    /// `op` with every attribute at its ONNX default.
    pub fn with_defaults(op: &'static UnaryOp) -> Self {
        Activation(Step::Unary(op, op.default_attributes()))
    }

    /// `op` with the first `values.len()` attributes given (in the order of
    /// [`UnaryOp::attributes`]) and the rest at their defaults.
    pub fn with_attributes(op: &'static UnaryOp, values: &[f32]) -> Self {
        let mut attributes = op.default_attributes();
        for (slot, &value) in attributes.iter_mut().zip(values).take(op.attributes.len()) {
            *slot = value;
        }
        Activation(Step::Unary(op, attributes))
    }

    /// This step with attribute `name` set; `None` if the operator has no such attribute, or
    /// `value` is not one it takes (a STRING attribute's value is a choice's index: see
    /// [`Activation::set_choice`]).
    pub fn set(&self, name: &str, value: f32) -> Option<Self> {
        if let Step::Swiglu(b, attributes) = &self.0 {
            let mut attributes = *attributes;
            let index = SWIGLU.attribute_index(name)?;
            SWIGLU.attributes[index].admits(value).then_some(())?;
            attributes[index] = value;
            return Some(Activation(Step::Swiglu(b.clone(), attributes)));
        }
        let Step::Unary(op, mut attributes) = self.0 else { return None };
        let index = op.attribute_index(name)?;
        op.attributes[index].admits(value).then_some(())?;
        attributes[index] = value;
        if let (Some(residual), Some(words)) = (op.residual_slot(index), op.bound_word_slot(index)) {
            attributes[residual] = 0.0;
            attributes[words..words + 2].fill(0.0);
        }
        Some(Activation(Step::Unary(op, attributes)))
    }

    /// This step with attribute `name`, one that may come as an input of X's type (Clip's
    /// bounds), set to the integer `value` exactly, for an integer X: where no f32 is `value`
    /// (2^31 - 1, say), as the f32 of its leading bits plus a residual, which the kernels and the
    /// CPU reference add back exactly ([`Activation::attribute`] gives the leading f32); where
    /// no two f32 sum to it (2^53 + 2^25 + 1), for an int64 or uint64 X, in full (its nearest
    /// f32 stands for it). `None` if the operator has no such attribute, or `value` lies beyond
    /// the 64-bit types (-2^63 to 2^64 - 1).
    pub fn set_integer(&self, name: &str, value: i128) -> Option<Self> {
        let Step::Unary(op, mut attributes) = self.0 else { return None };
        let index = op.attribute_index(name)?;
        let (residual, words) = (op.residual_slot(index)?, op.bound_word_slot(index)?);
        let (leading, rest, bits) = match crate::dtype::f32_pair_exactly(value) {
            Some((leading, rest)) => (leading, rest, [0.0; 2]),
            None => crate::dtype::integer_bound_slots(value)?,
        };
        (attributes[index], attributes[residual]) = (leading, rest);
        attributes[words..words + 2].copy_from_slice(&bits);
        Some(Activation(Step::Unary(op, attributes)))
    }

    /// This step with attribute `name`, one that may come as an input of X's type (Clip's
    /// bounds), set to the f64 `value` exactly, for an f64 X: any f64, 0.1 and 1e300 and
    /// `f64::MAX` included, which no f32 holds. The kernels and the CPU reference read it in full
    /// ([`Activation::attribute`] gives its nearest f32). `None` if the operator has no such
    /// attribute.
    pub fn set_f64(&self, name: &str, value: f64) -> Option<Self> {
        let Step::Unary(op, mut attributes) = self.0 else { return None };
        let index = op.attribute_index(name)?;
        let (residual, words) = (op.residual_slot(index)?, op.bound_word_slot(index)?);
        let (nearest, tag, bits) =
            crate::dtype::f64_bound_slots(value).filter(|_| !value.is_nan()).unwrap_or((value as f32, 0.0, [0.0; 2]));
        (attributes[index], attributes[residual]) = (nearest, tag);
        attributes[words..words + 2].copy_from_slice(&bits);
        Some(Activation(Step::Unary(op, attributes)))
    }

    /// This step with STRING attribute `name` set to `choice` (Gelu's `approximate` to
    /// `"tanh"`); `None` if the operator has no such attribute or it has no such choice.
    pub fn set_choice(&self, name: &str, choice: &str) -> Option<Self> {
        let attribute = self.0.unary_op()?.attribute(name)?;
        attribute.is_choice().then_some(())?;
        self.set(name, attribute.value_of(choice)?)
    }

    /// The choice STRING attribute `name` holds, if the operator has it.
    pub fn choice(&self, name: &str) -> Option<&'static str> {
        self.0.unary_op()?.attribute(name)?.choice_name(self.attribute(name)?)
    }

    /// The step itself: the operator with its attributes or its slope tensor.
    pub fn step(&self) -> &Step<GpuTensor> {
        &self.0
    }

    /// The ONNX operator name.
    pub fn onnx_name(&self) -> &'static str {
        self.0.onnx_name()
    }

    /// The unary operator of this step (`None` for PRelu and SwiGLU).
    pub fn unary_op(&self) -> Option<&'static UnaryOp> {
        self.0.unary_op()
    }

    /// The value of attribute `name`, if the operator has it.
    pub fn attribute(&self, name: &str) -> Option<f32> {
        match self.0 {
            Step::Unary(op, attributes) => op.attribute_index(name).map(|i| attributes[i]),
            Step::Swiglu(_, attributes) => SWIGLU.attribute_index(name).map(|i| attributes[i]),
            Step::Prelu(_) => None,
        }
    }

    /// The attribute `alpha`; `None` for steps without one.
    pub fn alpha(&self) -> Option<f32> {
        self.attribute("alpha")
    }

    /// The second tensor of a PRelu step (its slope) or a SwiGLU step (its B).
    pub fn slope(&self) -> Option<&GpuTensor> {
        self.0.slope()
    }

    /// The accuracy bound of this step for `dtype`.
    pub fn max_ulp(&self, dtype: DType) -> u64 {
        self.0.max_ulp().for_dtype(dtype)
    }

    /// True when this step accepts `dtype` in some ONNX version.
    pub fn accepts(&self, dtype: DType) -> bool {
        self.0.accepts(dtype)
    }

    /// Refuses a `dtype` this step does not accept, an integer bound that holds a residual
    /// ([`Activation::set_integer`]) on a float X, where the kernels cast the bound's leading
    /// f32 alone, an integer bound no two f32 sum to on any X but an int64 or uint64 whose range
    /// holds it, and an f64 bound no f32 holds ([`Activation::set_f64`]) on any X but f64.
    pub fn check_dtype(&self, dtype: DType) -> crate::Result<()> {
        if !self.accepts(dtype) {
            return Err(crate::Error::DTypeNotAllowed { op: self.onnx_name(), dtype, version: None });
        }
        let Step::Unary(op, attributes) = &self.0 else { return Ok(()) };
        for slot in 0..op.attributes.len() {
            if op.residual_slot(slot).is_none_or(|r| attributes[r].to_bits() == 0) {
                continue;
            }
            let in_range = |v: i128| IntegerType::of(dtype).is_some_and(|integer| integer.wrapped(v) == v);
            if let Some(bound) = op.integer_bound_in_words(attributes, slot) {
                if matches!(dtype, DType::I64 | DType::U64) && in_range(bound) {
                    continue;
                }
                let reason = format!(
                    "{bound} is no sum of two float32 values: it applies to an int64 or uint64 X within its range, not to {dtype}"
                );
                return Err(crate::Error::InvalidAttribute {
                    op: op.onnx_name,
                    name: op.attributes[slot].name,
                    reason,
                });
            }
            let reason = match op.f64_bound(attributes, slot) {
                Some(_) if dtype == DType::F64 => continue,
                Some(_) => format!("a float64 bound no float32 holds applies to float64 X, not to {dtype}"),
                None if !dtype.is_float() => continue,
                None => format!("an integer bound no float32 holds applies to integer X, not to {dtype}"),
            };
            return Err(crate::Error::InvalidAttribute { op: op.onnx_name, name: op.attributes[slot].name, reason });
        }
        Ok(())
    }

    /// This step for the CPU reference's chain check: `None` for PRelu and SwiGLU, whose second
    /// tensor is on the device.
    pub fn reference_step<'a, T>(&self) -> Option<crate::reference::ChainStep<'a, T>> {
        match self.0 {
            Step::Unary(op, attributes) => Some(Step::Unary(op, attributes)),
            Step::Prelu(_) | Step::Swiglu(..) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_set_and_read_by_name() {
        assert_eq!(Activation::elu(2.0).set("alpha", 3.0).and_then(|a| a.alpha()), Some(3.0));
        assert_eq!(Activation::with_defaults(&LEAKY_RELU).alpha(), Some(crate::LEAKY_RELU_DEFAULT_ALPHA));
        assert_eq!(Activation::leaky_relu(0.5), Activation::leaky_relu(0.5));
        assert_ne!(Activation::leaky_relu(0.5), Activation::elu(0.5));
        assert_eq!(Activation::clip(f32::NAN, 1.0), Activation::clip(f32::NAN, 1.0));
        assert_ne!(Activation::clip(0.0, 1.0), Activation::clip(-0.0, 1.0));
        let tenth = Activation::clip(0.0, 1.0).set_f64("min", 0.1);
        assert_eq!(tenth, Activation::clip(0.0, 1.0).set_f64("min", 0.1));
        assert_ne!(tenth, Some(Activation::clip(0.1, 1.0)));
    }
}

//! Recognising what a model's nodes stand for beyond the operators themselves: the spec's
//! function bodies of the table's operators (each operator's `expansion` pattern, parsed once),
//! and the bodies written out here (Softmax's and LogSoftmax's reductions, SwiGLU's gate), for
//! the plan (`plan.rs`).

use std::collections::HashMap;

use super::error::OnnxResult;
use super::load::{HostTensor, Scalar};
use super::plan::{attribute, graph_error};
use super::proto::{NodeProto, attribute_proto::AttributeType};
use crate::dtype::DType;
use crate::ops::expansion::{Pattern, bodies};
use crate::ops::{AxisOp, Operator, PRELU, Step, UNARY_OPS, UnaryOp};

/// A SwiGLU node's alpha (a FLOAT attribute, 1 where absent) and inputs.
pub(super) fn gate_of(node: &NodeProto) -> OnnxResult<Option<(f32, Vec<String>)>> {
    let alpha = match attribute(node, "alpha") {
        None => 1.0,
        Some(a) if a.r#type.is_none_or(|t| t == AttributeType::Float as i32) => a.f.unwrap_or(1.0),
        Some(_) => return Err(graph_error(format!("node {:?}: SwiGLU's alpha must be a FLOAT", node.name()))),
    };
    Ok(Some((alpha, node.input.clone())))
}

/// SwiGLU's function body, `Mul(Swish[alpha](A), B)` (either order), rooted at `root`: alpha,
/// and the inputs A and B.
pub(super) fn match_gate_body(root: &NodeProto, producer: &HashMap<&str, &NodeProto>) -> Option<(f32, Vec<String>)> {
    let ([first, second], "Mul") = (root.input.as_slice(), root.op_type()) else { return None };
    let (swish, b) = match (produced_by(first, "Swish", producer), produced_by(second, "Swish", producer)) {
        (Some(swish), _) => (swish, second),
        (None, Some(swish)) => (swish, first),
        (None, None) => return None,
    };
    let alpha = attribute(swish, "alpha").and_then(|a| a.f).unwrap_or(1.0);
    let a = swish.input.first()?;
    Some((alpha, vec![a.clone(), b.clone()]))
}

/// Softmax's and LogSoftmax's function bodies (version 13's, in the form ONNX's expansion writes
/// at opsets 13 to 18), rooted at `root`: `Div(Exp(D), ReduceSum(Exp(D), axes))` and
/// `Sub(D, Log(ReduceSum(Exp(D), axes)))` with `D = Sub(X, ReduceMax(X, axes))`, both
/// reductions keeping dims over the same one axis. Returns the operator, its axis and X.
pub(super) fn match_axis_body(
    root: &NodeProto,
    producer: &HashMap<&str, &NodeProto>,
) -> Option<(&'static AxisOp, i64, String)> {
    let (op, exp_or_difference, sum_or_log) = match (root.op_type(), root.input.as_slice()) {
        ("Div", [e, s]) => (&crate::ops::SOFTMAX, e, s),
        ("Sub", [d, l]) => (&crate::ops::LOG_SOFTMAX, d, l),
        _ => return None,
    };
    let (exp, sum) = if op.kind == crate::ops::AxisKind::Softmax {
        (produced_by(exp_or_difference, "Exp", producer)?, produced_by(sum_or_log, "ReduceSum", producer)?)
    } else {
        let log = produced_by(sum_or_log, "Log", producer)?;
        let sum = produced_by(log.input.first()?, "ReduceSum", producer)?;
        (produced_by(sum.input.first()?, "Exp", producer)?, sum)
    };
    let difference = produced_by(exp.input.first()?, "Sub", producer)?;
    if op.kind == crate::ops::AxisKind::LogSoftmax && difference.output.first() != Some(exp_or_difference) {
        return None;
    }
    if sum.input.first() != exp.output.first() {
        return None;
    }
    let [x, max_name] = difference.input.as_slice() else { return None };
    let max = produced_by(max_name, "ReduceMax", producer)?;
    if max.input.first() != Some(x) {
        return None;
    }
    let axis = reduction_axis(max, producer)?;
    (reduction_axis(sum, producer)? == axis).then(|| (op, axis, x.clone()))
}

/// The one axis a reduction with `keepdims` 1 (its default) takes: its `axes` attribute or its
/// second input (a Constant); `None` for anything else.
fn reduction_axis(node: &NodeProto, producer: &HashMap<&str, &NodeProto>) -> Option<i64> {
    if attribute(node, "keepdims").is_some_and(|a| a.i != Some(1)) {
        return None;
    }
    let axes: Vec<i64> = match (attribute(node, "axes"), node.input.get(1).filter(|n| !n.is_empty())) {
        (Some(a), None) => a.ints.clone(),
        (None, Some(name)) => {
            let constant = produced_by(name, "Constant", producer)?;
            let tensor = HostTensor::from_proto(attribute(constant, "value")?.t.as_ref()?).ok()?;
            match tensor {
                HostTensor::I64(a) => a.iter().copied().collect(),
                _ => return None,
            }
        }
        _ => return None,
    };
    match axes.as_slice() {
        [axis] => Some(*axis),
        _ => None,
    }
}

/// The ops of the function bodies that the first opsets lack, with the opset that added them;
/// every other op of a body exists from opset 1.
const BODY_OPS_ADDED_LATER: &[(&str, i64)] = &[("Where", 9), ("Erf", 9), ("CastLike", 15)];

/// Whether default-domain op `op` exists at `opset`, for the ops function bodies use.
pub(super) fn exists_at(op: &str, opset: i64) -> bool {
    BODY_OPS_ADDED_LATER.iter().find(|(name, _)| *name == op).is_none_or(|&(_, since)| opset >= since)
}

/// Longest CastLike chain followed to a Constant (a malformed model may loop).
const MAX_CAST_CHAIN: usize = 16;

/// The producer of `name` if it is a default-domain node of type `op`.
pub(super) fn produced_by<'a>(name: &str, op: &str, producer: &HashMap<&str, &'a NodeProto>) -> Option<&'a NodeProto> {
    producer.get(name).copied().filter(|n| n.op_type() == op && matches!(n.domain(), "" | "ai.onnx"))
}

/// The scalar a value holds when it is a rank-0 Constant, possibly through CastLike (a
/// one-element tensor of higher rank would broadcast X to that rank, so it is not a scalar).
pub(super) fn constant_scalar(name: &str, producer: &HashMap<&str, &NodeProto>) -> Option<Scalar> {
    constant_scalar_typed(name, producer).map(|(scalar, _)| scalar)
}

/// [`constant_scalar`] with the Constant's dtype; `None` for the dtype through a CastLike (the
/// value becomes X's type, which the plan does not know yet).
pub(super) fn constant_scalar_typed(
    name: &str,
    producer: &HashMap<&str, &NodeProto>,
) -> Option<(Scalar, Option<DType>)> {
    let mut name = name;
    let mut cast = false;
    for _ in 0..MAX_CAST_CHAIN {
        if let Some(cast_like) = produced_by(name, "CastLike", producer) {
            name = cast_like.input.first()?;
            cast = true;
            continue;
        }
        let node = produced_by(name, "Constant", producer)?;
        let typed = |scalar: Scalar, dtype: DType| (scalar, (!cast).then_some(dtype));
        if let Some(a) = attribute(node, "value_float") {
            return a.f.map(|v| typed(Scalar::Float(f64::from(v)), DType::F32));
        }
        if let Some(a) = attribute(node, "value_int") {
            return a.i.map(|v| typed(Scalar::Integer(i128::from(v)), DType::I64));
        }
        let tensor = HostTensor::from_proto(attribute(node, "value")?.t.as_ref()?).ok()?;
        if !tensor.shape().is_empty() {
            return None;
        }
        return tensor.first_scalar().map(|scalar| typed(scalar, tensor.dtype()));
    }
    None
}

/// What a match binds: the graph values standing for the inputs, and the attribute values.
#[derive(Debug, Clone, Default)]
struct Bindings {
    inputs: Vec<(String, String)>,
    attributes: Vec<(String, Scalar)>,
    /// Attributes bound to graph inputs or initializers, read at run time: only where the
    /// operator takes its attributes as inputs (Clip's bounds).
    attribute_values: Vec<(String, String)>,
    attribute_values_allowed: bool,
}

impl Bindings {
    fn bind<T: PartialEq + Clone>(list: &mut Vec<(String, T)>, name: &str, value: T) -> bool {
        match list.iter().find(|(n, _)| n == name) {
            Some((_, bound)) => *bound == value,
            None => {
                list.push((name.to_string(), value));
                true
            }
        }
    }

    fn input(&self, name: &str) -> Option<String> {
        self.inputs.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }
}

/// Whether graph value `value` is what `pattern` describes, binding its inputs and attributes.
fn value_matches(pattern: &Pattern, value: &str, bound: &mut Bindings, producer: &HashMap<&str, &NodeProto>) -> bool {
    match pattern {
        Pattern::Input(name) => Bindings::bind(&mut bound.inputs, name, value.to_string()),
        // A float32 constant stands for the decimal rounded to float32 (Gelu's 0.044715).
        Pattern::Number(number) => constant_scalar(value, producer)
            .map(Scalar::to_f64)
            .is_some_and(|v| v == *number || (f64::from(v as f32) == v && v as f32 == *number as f32)),
        Pattern::Attribute(name) => match constant_scalar(value, producer) {
            Some(v) => Bindings::bind(&mut bound.attributes, name, v),
            None => {
                bound.attribute_values_allowed
                    && !producer.contains_key(value)
                    && Bindings::bind(&mut bound.attribute_values, name, value.to_string())
            }
        },
        Pattern::Node { op, .. } => {
            produced_by(value, op, producer).is_some_and(|node| node_matches(pattern, node, bound, producer))
        }
    }
}

/// The ops of the function bodies whose two operands may come in either order.
const COMMUTATIVE: &[&str] = &["Add", "Mul", "Max", "Min", "Sum"];

/// Whether `node` is what the `Pattern::Node` describes; a [`COMMUTATIVE`] op matches either
/// operand order.
fn node_matches(
    pattern: &Pattern,
    node: &NodeProto,
    bound: &mut Bindings,
    producer: &HashMap<&str, &NodeProto>,
) -> bool {
    let Pattern::Node { op, attributes, inputs } = pattern else { return false };
    if node.op_type() != op || node.input.len() != inputs.len() {
        return false;
    }
    // Attributes are f32: the pattern's decimal (HardSwish's `alpha=0.16666667`) is their value
    // rounded to f32.
    let own_attributes_match = attributes.iter().all(|(name, wanted)| {
        let default = UnaryOp::find(op).and_then(|o| o.attribute_index(name).map(|i| o.default_attributes()[i]));
        let value = attribute(node, name).and_then(|a| a.f).or(default);
        value == Some(*wanted as f32)
    });
    if !own_attributes_match {
        return false;
    }
    let mut orders = vec![node.input.clone()];
    if COMMUTATIVE.contains(&op.as_str()) {
        orders.push(node.input.iter().rev().cloned().collect());
    }
    for order in orders {
        let mut attempt = bound.clone();
        if inputs.iter().zip(&order).all(|(p, value)| value_matches(p, value, &mut attempt, producer)) {
            *bound = attempt;
            return true;
        }
    }
    false
}

/// One function body the runner recognises: the operator, its pattern, the names that stand
/// for its inputs, and the attribute values the body implies (`approximate=tanh:` before it).
struct Expansion {
    op: Operator,
    pattern: Pattern,
    inputs: &'static [&'static str],
    implies: Vec<(usize, f32)>,
}

/// An operator's `expansion` text as its bodies: `;`-separated, each with the attribute values
/// it implies; `None` if any is unreadable (a test keeps them readable).
fn parse_expansions(op: Operator, text: &str, inputs: &'static [&'static str]) -> Option<Vec<Expansion>> {
    let unary = op.unary_op();
    bodies(text)?
        .into_iter()
        .map(|(settings, body)| {
            let implies = settings
                .into_iter()
                .map(|(name, value)| {
                    let unary = unary?;
                    let index = unary.attribute_index(name)?;
                    Some((index, unary.attributes[index].value_of(value)?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Expansion { op, pattern: Pattern::parse(body, inputs)?, inputs, implies })
        })
        .collect()
}

/// Every operator's function-body patterns, parsed once, the largest first: a body may end in
/// another's (HardSigmoid's `Max(Min(...), 0)` is also Relu's `Max(X, 0)`), and the one that
/// explains more of the graph is the operator. An operator whose pattern is empty (or
/// unreadable) has none.
fn expansions() -> &'static [Expansion] {
    static PARSED: std::sync::OnceLock<Vec<Expansion>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| {
        let unary = UNARY_OPS.iter().map(|&op| (Step::Unary(op, ()), op.expansion, &["X"][..]));
        let prelu = std::iter::once((Step::Prelu(()), PRELU.expansion, &["X", "slope"][..]));
        let mut parsed: Vec<Expansion> = unary
            .chain(prelu)
            .filter(|(_, text, _)| !text.is_empty())
            .filter_map(|(op, text, inputs)| parse_expansions(op, text, inputs))
            .flatten()
            .collect();
        parsed.sort_by_key(|e| std::cmp::Reverse(e.pattern.nodes()));
        parsed
    })
}

/// Recognises the spec's function body of an operator of the table, rooted at `root` (the
/// patterns in [`crate::ops::UnaryOp::expansion`] and `PRELU.expansion`), and returns the
/// operator, its attributes and its inputs.
pub(super) fn match_expansion(root: &NodeProto, producer: &HashMap<&str, &NodeProto>) -> Option<Recognised> {
    'expansions: for expansion in expansions() {
        let takes_attribute_inputs = expansion.op.unary_op().is_some_and(|op| op.attribute_inputs_since.is_some());
        let mut bound = Bindings { attribute_values_allowed: takes_attribute_inputs, ..Bindings::default() };
        if !node_matches(&expansion.pattern, root, &mut bound, producer) {
            continue;
        }
        let mut attribute_inputs = Vec::new();
        let step = match expansion.op {
            Step::Unary(unary, ()) => {
                let mut attributes = unary.default_attributes();
                for (index, (slot, spec)) in attributes.iter_mut().zip(unary.attributes).enumerate() {
                    if let Some((_, value)) = bound.attributes.iter().find(|(n, _)| n == spec.name) {
                        // The kernels take the attributes as f32: a constant no f32 is exactly
                        // is not this body's attribute (a PRelu slope, say, is exact).
                        let Some(exact) = value.exact_f32() else { continue 'expansions };
                        *slot = exact;
                    }
                    if let Some((_, value)) = bound.attribute_values.iter().find(|(n, _)| n == spec.name) {
                        attribute_inputs.push((index, value.clone()));
                    }
                }
                for &(index, value) in &expansion.implies {
                    attributes[index] = value;
                }
                Step::Unary(unary, attributes)
            }
            Step::Prelu(()) => Step::Prelu(()),
            // SwiGLU's body is matched by match_gate_body, with its alpha.
            Step::Swiglu(..) => continue,
        };
        let values: Option<Vec<String>> = expansion.inputs.iter().map(|name| bound.input(name)).collect();
        return Some((step, values?, attribute_inputs));
    }
    None
}

/// A node recognised as an operator: the step, its inputs, and the attributes it reads from
/// graph values at run time (slot, value name).
pub(super) type Recognised = (Step<()>, Vec<String>, Vec<(usize, String)>);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator whose spec has a function body (Sigmoid's and Tanh's has none) has
    /// patterns that parse, one per body; an operator whose body depends on a STRING attribute
    /// has one per choice.
    #[test]
    fn every_function_body_pattern_of_the_table_is_readable() {
        let mut parsed: Vec<&str> = expansions().iter().map(|e| e.op.onnx_name()).collect();
        let with_bodies = UNARY_OPS.iter().filter(|op| !op.expansion.is_empty());
        let mut table: Vec<&str> = with_bodies
            .flat_map(|op| std::iter::repeat_n(op.onnx_name, op.expansion.split(';').count()))
            .chain([PRELU.onnx_name])
            .collect();
        parsed.sort();
        table.sort();
        assert_eq!(parsed, table);
        for op in UNARY_OPS.iter().filter(|op| op.expansion.contains(';')) {
            let implied: Vec<Vec<(usize, f32)>> =
                expansions().iter().filter(|e| e.op.onnx_name() == op.onnx_name).map(|e| e.implies.clone()).collect();
            for (index, attribute) in op.attributes.iter().enumerate().filter(|(_, a)| a.is_choice()) {
                for value in 0..attribute.choices.len() {
                    assert!(implied.iter().any(|i| i.contains(&(index, value as f32))), "{}", op.onnx_name);
                }
            }
        }
    }
}

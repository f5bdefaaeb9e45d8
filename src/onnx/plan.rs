//! Graph planning: a `ModelProto` becomes operator nodes (the three operators, and the spec's
//! function-body expansions recognised as the operator they expand), checked the way ONNX
//! Runtime checks them, ordered, and grouped into chains that each run as one fused kernel.

use std::collections::{HashMap, HashSet, VecDeque};

use super::error::{OnnxError, OnnxResult};
use super::load::{HostTensor, decode_model, dtype_of_code};
use super::proto::{AttributeProto, ModelProto, NodeProto, attribute_proto::AttributeType};
use super::versions::{Operator, op_version};
use crate::dtype::DType;
use crate::kernel::MAX_CHAIN;
use crate::ops::{Attributes, ELU, LEAKY_RELU, UnaryOp};

/// One operator application after loading.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) op: Operator,
    pub(crate) attributes: Attributes,
    pub(crate) version: u32,
    pub(crate) inputs: Vec<String>,
    pub(crate) output: String,
    pub(crate) name: String,
}

impl Node {
    /// The value name of its slope, when it is PRelu.
    pub(crate) fn slope(&self) -> Option<&str> {
        self.inputs.get(1).map(String::as_str)
    }
}

/// A unit of execution: a chain of nodes, each consuming the one before, run as one kernel.
#[derive(Debug, Clone)]
pub(crate) struct Chain {
    pub(crate) nodes: Vec<Node>,
    pub(crate) input: String,
    pub(crate) output: String,
}

impl Chain {
    /// Every value the chain reads: its input and its slopes.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.input.as_str()).chain(self.nodes.iter().filter_map(Node::slope))
    }
}

/// A loaded model: its inputs, initializers, outputs and execution plan.
#[derive(Debug, Clone)]
pub struct OnnxModel {
    pub(crate) opset: i64,
    pub(crate) inputs: Vec<String>,
    /// The element type each input declares.
    pub(crate) input_dtypes: HashMap<String, DType>,
    pub(crate) outputs: Vec<String>,
    pub(crate) initializers: HashMap<String, HostTensor>,
    pub(crate) chains: Vec<Chain>,
    pub(crate) nodes: Vec<Node>,
}

fn graph_error(message: impl Into<String>) -> OnnxError {
    OnnxError::Graph(message.into())
}

impl OnnxModel {
    /// Decodes and plans a serialized `ModelProto`.
    pub fn from_bytes(bytes: &[u8]) -> OnnxResult<Self> {
        Self::from_proto(&decode_model(bytes)?)
    }

    /// Plans a decoded `ModelProto`.
    pub fn from_proto(model: &ModelProto) -> OnnxResult<Self> {
        let opset = model
            .opset_import
            .iter()
            .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
            .and_then(|o| o.version)
            .ok_or_else(|| graph_error("the model imports no default-domain opset"))?;
        let graph = model.graph.as_ref().ok_or_else(|| graph_error("the model has no graph"))?;
        let mut initializers = HashMap::new();
        for tensor in &graph.initializer {
            let name = tensor.name.clone().unwrap_or_default();
            if initializers.insert(name.clone(), HostTensor::from_proto(tensor)?).is_some() {
                return Err(graph_error(format!("initializer {name:?} is defined twice")));
            }
        }
        // Old-style models also list initializers as graph inputs: those are not fed by callers.
        let mut inputs = Vec::new();
        let mut input_dtypes = HashMap::new();
        for value in &graph.input {
            let name = value.name.clone().unwrap_or_default();
            if initializers.contains_key(&name) {
                continue;
            }
            let code = value
                .r#type
                .as_ref()
                .and_then(|t| match &t.value {
                    Some(super::proto::type_proto::Value::TensorType(tensor)) => tensor.elem_type,
                    _ => None,
                })
                .ok_or_else(|| graph_error(format!("graph input {name:?} declares no tensor element type")))?;
            let dtype = dtype_of_code(code).ok_or(OnnxError::UnsupportedDataType { tensor: name.clone(), code })?;
            input_dtypes.insert(name.clone(), dtype);
            inputs.push(name);
        }
        let outputs: Vec<String> = graph.output.iter().map(|v| v.name.clone().unwrap_or_default()).collect();
        if outputs.is_empty() {
            return Err(graph_error("the model has no outputs"));
        }
        let nodes = recognise(&graph.node, opset, &outputs)?;
        let available: HashSet<String> = inputs.iter().chain(initializers.keys()).cloned().collect();
        let chains = schedule(&nodes, available, &outputs)?;
        Ok(Self { opset, inputs, input_dtypes, outputs, initializers, chains, nodes })
    }

    /// The default-domain opset the model imports.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// Names of the inputs a caller feeds, in graph order.
    pub fn input_names(&self) -> &[String] {
        &self.inputs
    }

    /// The element type input `name` declares.
    pub fn input_dtype(&self, name: &str) -> Option<DType> {
        self.input_dtypes.get(name).copied()
    }

    /// Names of the graph outputs, in order.
    pub fn output_names(&self) -> Vec<&str> {
        self.outputs.iter().map(String::as_str).collect()
    }

    /// The operators of the model (after recognising expansions): ONNX name and version.
    pub fn operators(&self) -> Vec<(&'static str, u32)> {
        self.nodes.iter().map(|n| (n.op.name(), n.version)).collect()
    }

    /// Number of GPU dispatch steps after fusion.
    pub fn step_count(&self) -> usize {
        self.chains.len()
    }

    /// The bound a result of the whole graph is held to on `dtype`: the chain bound
    /// ([`crate::ops::chain_bound`]) over all its operators, as if one fed the next.
    pub fn ulp_bound(&self, dtype: DType) -> u64 {
        crate::ops::chain_bound(self.nodes.iter().map(|n| n.op.max_ulp().for_dtype(dtype)))
    }
}

fn attribute<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute.iter().find(|a| a.name.as_deref() == Some(name))
}

/// The attribute values of a unary node, defaults where absent; a present attribute must be a
/// FLOAT, as the spec types them (ONNX Runtime refuses an INT alpha).
fn attributes_of(node: &NodeProto, op: &UnaryOp) -> OnnxResult<Attributes> {
    let mut values = op.default_attributes();
    for (slot, spec) in values.iter_mut().zip(op.attributes) {
        let Some(a) = attribute(node, spec.name) else { continue };
        let typed_float = a.r#type.is_none_or(|t| t == AttributeType::Float as i32);
        match (typed_float, a.f) {
            (true, Some(value)) => *slot = value,
            _ => {
                return Err(graph_error(format!(
                    "node {:?}: attribute {} of {} must be a FLOAT",
                    node.name(),
                    spec.name,
                    op.onnx_name
                )));
            }
        }
    }
    Ok(values)
}

/// Turns the graph's nodes into operator nodes: the operators directly, and their function-body
/// expansions (Constant, CastLike, Less, Mul, Exp, Sub, Where) recognised as the operator they
/// expand; anything else is refused, naming the op.
fn recognise(graph_nodes: &[NodeProto], opset: i64, outputs: &[String]) -> OnnxResult<Vec<Node>> {
    let mut producer: HashMap<&str, &NodeProto> = HashMap::new();
    for node in graph_nodes {
        for output in node.output.iter().filter(|o| !o.is_empty()) {
            if producer.insert(output.as_str(), node).is_some() {
                return Err(graph_error(format!("value {output:?} is produced by two nodes")));
            }
        }
    }
    let version =
        |op: &str| op_version(op, opset).ok_or_else(|| graph_error(format!("{op} does not exist at opset {opset}")));
    let mut nodes = Vec::new();
    for node in graph_nodes {
        let op_type = node.op_type();
        let domain = node.domain();
        if !(domain.is_empty() || domain == "ai.onnx") {
            continue; // refused below unless it is dead code
        }
        let recognised = match (Operator::find(op_type), op_type) {
            (Some(op @ Operator::Unary(unary)), _) => Some((op, attributes_of(node, unary)?, node.input.clone())),
            (Some(Operator::PRelu), _) => Some((Operator::PRelu, [0.0; 4], node.input.clone())),
            // Where exists from opset 9: an expansion that uses it earlier is not a valid model.
            (None, "Where") if opset >= 9 => match_expansion(node, &producer),
            _ => None,
        };
        let Some((op, attributes, inputs)) = recognised else { continue };
        let wanted = op.inputs();
        if inputs.len() != wanted || inputs.iter().any(String::is_empty) {
            return Err(graph_error(format!("node {:?} ({}) needs {wanted} input(s)", node.name(), op.name())));
        }
        let output = node
            .output
            .first()
            .cloned()
            .ok_or_else(|| graph_error(format!("node {:?} ({}) has no output", node.name(), op.name())))?;
        nodes.push(Node {
            op,
            attributes,
            version: version(op.name())?,
            inputs,
            output,
            name: node.name().to_string(),
        });
    }
    // Everything not feeding a recognised node or a graph output must be an expansion helper.
    let mut needed: HashSet<&str> = outputs.iter().map(String::as_str).collect();
    for n in &nodes {
        needed.extend(n.inputs.iter().map(String::as_str));
    }
    let produced: HashSet<&str> = nodes.iter().map(|n| n.output.as_str()).collect();
    for node in graph_nodes {
        let live = node.output.iter().any(|o| needed.contains(o.as_str()) && !produced.contains(o.as_str()));
        if live {
            let domain = if node.domain().is_empty() { String::new() } else { format!(" (domain {})", node.domain()) };
            return Err(OnnxError::UnsupportedOp {
                op: format!("{}{domain}", node.op_type()),
                node: node.name().to_string(),
            });
        }
    }
    Ok(nodes)
}

/// Longest CastLike chain followed to a Constant (a malformed model may loop).
const MAX_CAST_CHAIN: usize = 16;

/// The producer of `name` if it is a default-domain node of type `op`.
fn produced_by<'a>(name: &str, op: &str, producer: &HashMap<&str, &'a NodeProto>) -> Option<&'a NodeProto> {
    producer.get(name).copied().filter(|n| n.op_type() == op && matches!(n.domain(), "" | "ai.onnx"))
}

/// The scalar a value holds when it is a rank-0 Constant, possibly through CastLike (a
/// one-element tensor of higher rank would broadcast X to that rank, so it is not a scalar).
fn constant_scalar(name: &str, producer: &HashMap<&str, &NodeProto>) -> Option<f64> {
    let mut name = name;
    for _ in 0..MAX_CAST_CHAIN {
        if let Some(cast) = produced_by(name, "CastLike", producer) {
            name = cast.input.first()?;
            continue;
        }
        let node = produced_by(name, "Constant", producer)?;
        if let Some(a) = attribute(node, "value_float") {
            return a.f.map(f64::from);
        }
        if let Some(a) = attribute(node, "value_int") {
            return a.i.map(|v| v as f64);
        }
        let tensor = HostTensor::from_proto(attribute(node, "value")?.t.as_ref()?).ok()?;
        if !tensor.shape().is_empty() {
            return None;
        }
        return tensor.first_as_f64();
    }
    None
}

/// Recognises `Where(Less(X, 0), f, X)` where f is `Mul(alpha, X)` (LeakyRelu), `Mul(slope, X)`
/// with a non-constant slope (PRelu), or `Mul(alpha, Sub(Exp(X), 1))` (Elu): the function
/// bodies of the spec. Returns the operator, its attributes and its inputs.
fn match_expansion(
    where_node: &NodeProto,
    producer: &HashMap<&str, &NodeProto>,
) -> Option<(Operator, Attributes, Vec<String>)> {
    let [cond, then, x] = where_node.input.as_slice() else { return None };
    let less = produced_by(cond, "Less", producer)?;
    let [lx, zero] = less.input.as_slice() else { return None };
    if lx != x || constant_scalar(zero, producer) != Some(0.0) {
        return None;
    }
    let mul = produced_by(then, "Mul", producer)?;
    let [a, b] = mul.input.as_slice() else { return None };
    let other = if a == x {
        Some(b)
    } else if b == x {
        Some(a)
    } else {
        None
    };
    if let Some(factor) = other {
        return Some(match constant_scalar(factor, producer) {
            Some(alpha) => (Operator::Unary(&LEAKY_RELU), [alpha as f32, 0.0, 0.0, 0.0], vec![x.clone()]),
            None => (Operator::PRelu, [0.0; 4], vec![x.clone(), factor.clone()]),
        });
    }
    for (alpha, sub) in [(a, b), (b, a)] {
        let Some(alpha) = constant_scalar(alpha, producer) else { continue };
        let Some(sub) = produced_by(sub, "Sub", producer) else { continue };
        let [exp, one] = sub.input.as_slice() else { continue };
        let is_exp_x = produced_by(exp, "Exp", producer).is_some_and(|n| n.input.first() == Some(x));
        if is_exp_x && constant_scalar(one, producer) == Some(1.0) {
            return Some((Operator::Unary(&ELU), [alpha as f32, 0.0, 0.0, 0.0], vec![x.clone()]));
        }
    }
    None
}

/// Orders the nodes so that every input is ready (any DAG; a cycle or an undefined value is an
/// error), and appends each node to the chain of the node that produces its X when that value
/// has no other consumer, is not a graph output, and the node's slope (PRelu) is ready before
/// that chain runs.
fn schedule(nodes: &[Node], mut available: HashSet<String>, outputs: &[String]) -> OnnxResult<Vec<Chain>> {
    let mut consumers: HashMap<&str, usize> = HashMap::new();
    for n in nodes {
        for i in &n.inputs {
            *consumers.entry(i.as_str()).or_default() += 1;
        }
    }
    let is_output = |name: &str| outputs.iter().any(|n| n == name);
    let graph_values = available.clone();
    // Kahn's algorithm: a node is ready once all its inputs are available.
    let mut waiting_on: Vec<usize> =
        nodes.iter().map(|n| n.inputs.iter().filter(|i| !available.contains(*i)).count()).collect();
    let mut consumers_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for input in n.inputs.iter().filter(|i| !available.contains(*i)) {
            consumers_of.entry(input.as_str()).or_default().push(i);
        }
    }
    let mut ready: VecDeque<usize> = (0..nodes.len()).filter(|&i| waiting_on[i] == 0).collect();
    let mut scheduled = 0;
    let mut chains: Vec<Chain> = Vec::new();
    // Which chain produces each value, and the chain whose last output a value is.
    let mut produced_in: HashMap<String, usize> = HashMap::new();
    let mut chain_ending_in: HashMap<String, usize> = HashMap::new();
    while let Some(next) = ready.pop_front() {
        scheduled += 1;
        for &consumer in consumers_of.get(nodes[next].output.as_str()).into_iter().flatten() {
            waiting_on[consumer] -= 1;
            if waiting_on[consumer] == 0 {
                ready.push_back(consumer);
            }
        }
        let node = &nodes[next];
        if !available.insert(node.output.clone()) {
            return Err(graph_error(format!("value {:?} is produced twice", node.output)));
        }
        let input = &node.inputs[0];
        let slope = node.slope();
        let fusable_input = consumers.get(input.as_str()) == Some(&1) && !is_output(input);
        if let (true, Some(&c)) = (fusable_input, chain_ending_in.get(input.as_str())) {
            let slope_ready =
                slope.is_none_or(|s| graph_values.contains(s) || produced_in.get(s).is_some_and(|&p| p < c));
            if slope_ready && chains[c].nodes.len() < MAX_CHAIN {
                chains[c].nodes.push(node.clone());
                chains[c].output = node.output.clone();
                chain_ending_in.remove(input.as_str());
                chain_ending_in.insert(node.output.clone(), c);
                produced_in.insert(node.output.clone(), c);
                continue;
            }
        }
        chain_ending_in.insert(node.output.clone(), chains.len());
        produced_in.insert(node.output.clone(), chains.len());
        chains.push(Chain { nodes: vec![node.clone()], input: input.clone(), output: node.output.clone() });
    }
    if scheduled < nodes.len() {
        let stuck: Vec<&str> =
            (0..nodes.len()).filter(|&i| waiting_on[i] > 0).map(|i| nodes[i].name.as_str()).take(8).collect();
        return Err(graph_error(format!(
            "nodes {stuck:?} wait on values no node produces (a cycle or a missing input)"
        )));
    }
    for name in outputs {
        if !available.contains(name) {
            return Err(graph_error(format!("graph output {name:?} is never produced")));
        }
    }
    Ok(chains)
}

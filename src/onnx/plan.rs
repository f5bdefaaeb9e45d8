//! Graph planning: a `ModelProto` becomes operator nodes (the operators of the table, and the spec's
//! function-body expansions recognised as the operator they expand), checked the way ONNX
//! Runtime checks them, ordered, and grouped into chains that each run as one fused kernel.

use std::collections::{HashMap, HashSet, VecDeque};

use super::error::{OnnxError, OnnxResult};
use super::expansions::{constant_scalar_typed, exists_at, gate_of, match_axis_body, match_expansion, match_gate_body};
use super::load::{HostTensor, Scalar, decode_model, dtype_of_code};
use super::proto::{AttributeProto, ModelProto, NodeProto, attribute_proto::AttributeType};
use super::versions::{NEWEST_OPSET, op_version};
use crate::dtype::DType;
use crate::kernel::MAX_CHAIN;
use crate::ops::{AXIS_OPS, Attributes, AxisOp, Operator, SWIGLU, Step, UnaryOp};
use crate::real::IntegerType;

/// One operator application after loading.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The operator with its attributes; PRelu's slope and SwiGLU's B are the node's second
    /// input (SwiGLU's A, its first, is what a chain passes on). An operator
    /// over an axis has `axis` too, and its step is unused.
    pub(crate) step: Step<()>,
    /// An operator over an axis (Softmax, LogSoftmax, Hardmax) and its axis: a node of a chain
    /// of its own.
    pub(crate) axis: Option<(&'static AxisOp, i64)>,
    pub(crate) version: u32,
    pub(crate) inputs: Vec<String>,
    /// Attributes given as inputs fed at run time (Clip's bounds from 11, when they are not
    /// Constant nodes): (the attribute's slot, the value's name).
    pub(crate) attribute_inputs: Vec<(usize, String)>,
    /// The dtypes of the attributes given as Constant nodes (read when the model loads), for the
    /// run to check against X's: (the attribute's slot, its Constant's dtype).
    pub(crate) constant_dtypes: Vec<(usize, DType)>,
    pub(crate) output: String,
    pub(crate) name: String,
}

impl Node {
    /// The value name of its second input: PRelu's slope, SwiGLU's B.
    pub(crate) fn slope(&self) -> Option<&str> {
        self.inputs.get(1).map(String::as_str)
    }

    /// Its ONNX op type.
    pub(crate) fn onnx_name(&self) -> &'static str {
        match self.axis {
            Some((op, _)) => op.onnx_name,
            None => self.step.onnx_name(),
        }
    }

    /// Its accuracy bound for `dtype`.
    fn max_ulp(&self, dtype: DType) -> u64 {
        match self.axis {
            Some((op, _)) => op.max_ulp.for_dtype(dtype),
            None => self.step.max_ulp().for_dtype(dtype),
        }
    }

    /// True for the nodes that run by themselves, never fused: those over an axis.
    pub(crate) fn alone(&self) -> bool {
        self.axis.is_some()
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
        std::iter::once(self.input.as_str())
            .chain(self.nodes.iter().filter(|n| n.axis.is_none()).filter_map(Node::slope))
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
    /// The value each output is, in the order of `outputs`: itself, or what its Identity nodes
    /// pass on.
    pub(crate) sources: Vec<String>,
    pub(crate) initializers: HashMap<String, HostTensor>,
    pub(crate) chains: Vec<Chain>,
    pub(crate) nodes: Vec<Node>,
}

pub(super) fn graph_error(message: impl Into<String>) -> OnnxError {
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
        if opset > NEWEST_OPSET {
            return Err(graph_error(format!(
                "the model imports opset {opset}; the newest this runner knows is {NEWEST_OPSET}"
            )));
        }
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
        let (nodes, identities) = recognise(&graph.node, opset, &outputs)?;
        let available: HashSet<String> = inputs.iter().chain(initializers.keys()).cloned().collect();
        let sources: Vec<String> = outputs.iter().map(|o| identities.source(o).to_string()).collect();
        let chains = schedule(&nodes, available, &sources)?;
        Ok(Self { opset, inputs, input_dtypes, outputs, sources, initializers, chains, nodes })
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
        self.nodes.iter().map(|n| (n.onnx_name(), n.version)).collect()
    }

    /// Number of GPU dispatch steps after fusion.
    pub fn step_count(&self) -> usize {
        self.chains.len()
    }

    /// The bound a result of the whole graph is held to on `dtype`: the chain bound
    /// ([`crate::ops::chain_bound`]) over all its operators, as if one fed the next.
    pub fn ulp_bound(&self, dtype: DType) -> u64 {
        crate::ops::chain_bound(self.nodes.iter().map(|n| n.max_ulp(dtype)))
    }
}

pub(super) fn attribute<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute.iter().find(|a| a.name.as_deref() == Some(name))
}

/// The attribute values of a unary node of operator version `version`, that version's defaults
/// where absent; a present attribute must have the spec's type: FLOAT (ONNX Runtime refuses an
/// INT alpha), or STRING with one of the attribute's choices (Gelu's `approximate`).
fn attributes_of(node: &NodeProto, op: &UnaryOp, version: u32) -> OnnxResult<Attributes> {
    let mut values = op.default_attributes_at(version);
    for (slot, spec) in values.iter_mut().zip(op.attributes) {
        let Some(a) = attribute(node, spec.name) else { continue };
        let refused = |what: String| {
            graph_error(format!("node {:?}: attribute {} of {} must be {what}", node.name(), spec.name, op.onnx_name))
        };
        if spec.is_choice() {
            let typed_string = a.r#type.is_none_or(|t| t == AttributeType::String as i32);
            let text = a.s.as_deref().filter(|_| typed_string).map(String::from_utf8_lossy);
            let shown = text.as_deref().map_or_else(|| "not a STRING".to_string(), |t| format!("{t:?}"));
            *slot = text
                .and_then(|t| spec.value_of(&t))
                .ok_or_else(|| refused(format!("a STRING, {} (got {shown})", spec.accepted())))?;
            continue;
        }
        let typed_float = a.r#type.is_none_or(|t| t == AttributeType::Float as i32);
        match (typed_float, a.f) {
            (true, Some(value)) => *slot = value,
            _ => return Err(refused("a FLOAT".into())),
        }
    }
    Ok(values)
}

/// Turns the graph's nodes into operator nodes: the operators directly, and their function-body
/// expansions recognised as the operator they expand (each operator's `expansion` pattern in
/// the table); anything else is refused, naming the op.
fn recognise(graph_nodes: &[NodeProto], opset: i64, outputs: &[String]) -> OnnxResult<(Vec<Node>, Identities)> {
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
    // The nodes a function body may be made of: those whose op exists at the model's opset
    // (ONNX Runtime refuses a Where before opset 9).
    let matchable: HashMap<&str, &NodeProto> =
        producer.iter().filter(|(_, node)| exists_at(node.op_type(), opset)).map(|(&k, &v)| (k, v)).collect();
    let mut nodes = Vec::new();
    let mut identities = Identities::default();
    for node in graph_nodes {
        let op_type = node.op_type();
        let domain = node.domain();
        if !(domain.is_empty() || domain == "ai.onnx") {
            continue; // refused below unless it is dead code
        }
        if op_type == "Identity" && node.input.len() == 1 && node.output.len() == 1 {
            identities.insert(node.output[0].clone(), node.input[0].clone());
            continue;
        }
        if let Some(&axis_op) = AXIS_OPS.iter().find(|o| o.onnx_name == op_type) {
            let version = version(op_type)?;
            let axis = axis_of(node, axis_op, version)?;
            let output = node.output.first().cloned().unwrap_or_default();
            if node.input.len() != 1 || node.input[0].is_empty() || output.is_empty() {
                return Err(graph_error(format!("node {:?} ({op_type}) takes one input and one output", node.name())));
            }
            let name = node.name().to_string();
            let (step, inputs) = (Step::Prelu(()), node.input.clone());
            nodes.push(Node {
                step,
                axis: Some((axis_op, axis)),
                version,
                inputs,
                attribute_inputs: Vec::new(),
                constant_dtypes: Vec::new(),
                output,
                name,
            });
            continue;
        }
        if let Some((axis_op, axis, x)) = match_axis_body(node, &matchable) {
            let version = version(axis_op.onnx_name)?;
            let output = node.output.first().cloned().unwrap_or_default();
            let name = node.name().to_string();
            let axis = Some((axis_op, axis));
            let step = Step::Prelu(());
            nodes.push(Node {
                step,
                axis,
                version,
                inputs: vec![x],
                attribute_inputs: Vec::new(),
                constant_dtypes: Vec::new(),
                output,
                name,
            });
            continue;
        }
        let gate = if op_type == SWIGLU.onnx_name { gate_of(node)? } else { match_gate_body(node, &matchable) };
        if let Some((alpha, inputs)) = gate {
            let version = version(SWIGLU.onnx_name)?;
            let output = node.output.first().cloned().unwrap_or_default();
            if inputs.len() != 2 || inputs.iter().any(String::is_empty) || output.is_empty() {
                return Err(graph_error(format!(
                    "node {:?} (SwiGLU) takes inputs A and B and one output",
                    node.name()
                )));
            }
            let name = node.name().to_string();
            let step = Step::Swiglu((), crate::ops::attributes_from(&[alpha]));
            let (attribute_inputs, constant_dtypes, axis) = (Vec::new(), Vec::new(), None);
            nodes.push(Node { step, axis, version, inputs, attribute_inputs, constant_dtypes, output, name });
            continue;
        }
        let recognised = match (Operator::find(op_type), op_type) {
            (Some(Step::Unary(unary, ())), _) => {
                let version = version(op_type)?;
                let mut attributes = attributes_of(node, unary, version)?;
                let (inputs, attribute_inputs) = match unary.attribute_inputs_since {
                    Some(since) if version >= since => {
                        let bounds = bound_attribute_inputs(node, unary, &mut attributes, &producer)?;
                        (node.input.iter().take(1).cloned().collect(), bounds)
                    }
                    _ => (node.input.clone(), AttributeInputs::default()),
                };
                Some((Step::Unary(unary, attributes), inputs, attribute_inputs))
            }
            (Some(Step::Prelu(())), _) => Some((Step::Prelu(()), node.input.clone(), AttributeInputs::default())),
            // Matched above, with its alpha.
            (Some(Step::Swiglu(..)), _) => None,
            // At any opset whose ops the body's nodes are: converters write the bodies with the
            // model's own opset (`Add(Abs(X), 1)` at opset 6).
            (None, _) if exists_at(op_type, opset) => match_expansion(node, &matchable)
                .map(|(step, inputs, read_later)| (step, inputs, AttributeInputs { read_later, ..Default::default() })),
            _ => None,
        };
        let Some((step, inputs, AttributeInputs { read_later: attribute_inputs, constant_dtypes })) = recognised else {
            continue;
        };
        let wanted = step.inputs();
        if inputs.len() != wanted || inputs.iter().any(String::is_empty) {
            return Err(graph_error(format!("node {:?} ({}) needs {wanted} input(s)", node.name(), step.onnx_name())));
        }
        let output = node
            .output
            .first()
            .cloned()
            .ok_or_else(|| graph_error(format!("node {:?} ({}) has no output", node.name(), step.onnx_name())))?;
        let name = node.name().to_string();
        nodes.push(Node {
            step,
            axis: None,
            version: version(step.onnx_name())?,
            inputs,
            attribute_inputs,
            constant_dtypes,
            output,
            name,
        });
    }
    for node in &mut nodes {
        node.inputs.iter_mut().for_each(|input| *input = identities.source(input).to_string());
        node.attribute_inputs.iter_mut().for_each(|(_, input)| *input = identities.source(input).to_string());
    }
    let outputs: Vec<String> = outputs.iter().map(|o| identities.source(o).to_string()).collect();
    // A recognised node inside another's expansion (Celu's body holds an Elu) feeds nothing
    // that is kept: drop such nodes until every one left feeds a node or a graph output.
    loop {
        let consumed: HashSet<&str> = nodes.iter().flat_map(|n| n.inputs.iter().map(String::as_str)).collect();
        let dead = nodes.iter().position(|n| !consumed.contains(n.output.as_str()) && !outputs.contains(&n.output));
        match dead {
            Some(i) => drop(nodes.remove(i)),
            None => break,
        }
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
    Ok((nodes, identities))
}

/// Identity nodes: each output stands for its input, and no kernel runs for it (Clip's function
/// body without bounds is `Identity(X)`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Identities(HashMap<String, String>);

impl Identities {
    fn insert(&mut self, output: String, input: String) {
        self.0.insert(output, input);
    }

    /// The value `name` stands for: itself, or the input at the end of its Identity nodes (a
    /// malformed model's loop ends after as many steps as there are Identity nodes).
    pub(crate) fn source<'a>(&'a self, name: &'a str) -> &'a str {
        let mut name = name;
        for _ in 0..=self.0.len() {
            match self.0.get(name) {
                Some(input) => name = input,
                None => break,
            }
        }
        name
    }
}

/// The `axis` of an operator over an axis: an INT attribute, the version's default where absent.
fn axis_of(node: &NodeProto, op: &AxisOp, version: u32) -> OnnxResult<i64> {
    match attribute(node, "axis") {
        None => Ok(op.default_axis(version)),
        Some(a) if a.r#type.is_none_or(|t| t == AttributeType::Int as i32) => {
            a.i.ok_or_else(|| graph_error(format!("node {:?}: {}'s axis has no value", node.name(), op.onnx_name)))
        }
        Some(_) => Err(graph_error(format!("node {:?}: {}'s axis must be an INT", node.name(), op.onnx_name))),
    }
}

/// The attributes a node gives as inputs after X (Clip's min and max from 11): a Constant's scalar
/// goes into `attributes` now, a graph input's or initializer's name is returned with its slot
/// for the run to read; an absent or empty input keeps the default.
fn bound_attribute_inputs(
    node: &NodeProto,
    op: &UnaryOp,
    attributes: &mut Attributes,
    producer: &HashMap<&str, &NodeProto>,
) -> OnnxResult<AttributeInputs> {
    let given = node.input.len().saturating_sub(1);
    if node.input.is_empty() || given > op.attributes.len() {
        let most = op.attributes.len() + 1;
        return Err(graph_error(format!(
            "node {:?} ({}) takes 1 to {most} inputs, not {}",
            node.name(),
            op.onnx_name,
            node.input.len()
        )));
    }
    let mut inputs = AttributeInputs::default();
    for (slot, name) in node.input.iter().skip(1).enumerate().filter(|(_, name)| !name.is_empty()) {
        if producer.contains_key(name.as_str()) {
            let (value, dtype) = constant_scalar_typed(name, producer).ok_or_else(|| {
                graph_error(format!(
                    "node {:?}: {}'s {} must be a scalar graph input, initializer or Constant",
                    node.name(),
                    op.onnx_name,
                    op.attributes[slot].name
                ))
            })?;
            set_attribute_input(op, slot, value, dtype, attributes).map_err(graph_error)?;
            inputs.constant_dtypes.extend(dtype.map(|dtype| (slot, dtype)));
        } else {
            inputs.read_later.push((slot, name.clone()));
        }
    }
    Ok(inputs)
}

/// A node's attributes given as inputs: the graph inputs and initializers the run reads
/// ([`Node::attribute_inputs`]), and the dtypes of the Constants read now
/// ([`Node::constant_dtypes`]).
#[derive(Debug, Default)]
pub(super) struct AttributeInputs {
    pub(super) read_later: Vec<(usize, String)>,
    pub(super) constant_dtypes: Vec<(usize, DType)>,
}

/// Sets attribute `slot` of `attributes` to an attribute input's `value`, of type `dtype` (X's;
/// `None` where not known), exactly as the kernel's parameter block holds it:
/// - any f32, NaN and the infinities included;
/// - an integer of a 32- or 64-bit type that no f32 holds, as its leading f32 plus a residual
///   (`UnaryOp::residual_slot`), where that rest is an f32 (any integer of at most 48 bits from
///   its leading 1 to its last, and some wider), else in full in its bound words
///   (`crate::dtype::integer_bound_slots`, 64-bit types);
/// - a bound at the end of its type's range that never clips there (Clip's max at the type's
///   largest value, its min at the smallest), as the infinity it acts as;
/// - an f64 bound of an f64 X that no f32 holds, in full in its bound words
///   (`crate::dtype::f64_bound_slots`).
///
/// Anything else is refused, never rounded.
pub(crate) fn set_attribute_input(
    op: &UnaryOp,
    slot: usize,
    value: Scalar,
    dtype: Option<DType>,
    attributes: &mut Attributes,
) -> Result<(), String> {
    let residual_slot = op.residual_slot(slot);
    let no_words = [0.0; 2];
    let (leading, residual, words) = match (value, value.exact_f32(), dtype.and_then(IntegerType::of)) {
        (_, Some(exact), _) => (exact, 0.0, no_words),
        (Scalar::Integer(v), None, Some(integer)) => match crate::ops::bound_without_effect(op, slot, v, integer) {
            Some(infinity) => (infinity, 0.0, no_words),
            None => match crate::dtype::f32_pair_exactly(v).filter(|_| residual_slot.is_some()) {
                Some((leading, residual)) => (leading, residual, no_words),
                None => crate::dtype::integer_bound_slots(v)
                    .filter(|_| residual_slot.is_some() && integer.bits == 64 && integer.wrapped(v) == v)
                    .ok_or_else(|| {
                        format!(
                            "{}'s {} {value} is not a value of X's type {}",
                            op.onnx_name,
                            op.attributes[slot].name,
                            dtype.map_or("?".into(), |d| d.to_string())
                        )
                    })?,
            },
        },
        (Scalar::Float(v), None, _) if dtype == Some(DType::F64) && residual_slot.is_some() => {
            crate::dtype::f64_bound_slots(v).unwrap_or((v as f32, 0.0, no_words))
        }
        (Scalar::Integer(_), None, _) => {
            return Err(format!(
                "{}'s {} {value} is not a float32 value: an integer bound through CastLike that no float32 holds \
                 is not supported yet",
                op.onnx_name, op.attributes[slot].name
            ));
        }
        _ => {
            return Err(format!(
                "{}'s {} {value} is not a float32 value: float bounds beyond float32's precision are not supported yet",
                op.onnx_name, op.attributes[slot].name
            ));
        }
    };
    attributes[slot] = leading;
    if let (Some(residual_slot), Some(word_slot)) = (residual_slot, op.bound_word_slot(slot)) {
        attributes[residual_slot] = residual;
        attributes[word_slot..word_slot + 2].copy_from_slice(&words);
    }
    Ok(())
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
        let fusable_input = consumers.get(input.as_str()) == Some(&1) && !is_output(input) && !node.alone();
        if let (true, Some(&c)) = (fusable_input, chain_ending_in.get(input.as_str())) {
            let slope_ready =
                slope.is_none_or(|s| graph_values.contains(s) || produced_in.get(s).is_some_and(|&p| p < c));
            let after_axis = chains[c].nodes.iter().any(Node::alone);
            if slope_ready && chains[c].nodes.len() < MAX_CHAIN && !after_axis {
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

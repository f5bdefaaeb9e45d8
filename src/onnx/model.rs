//! ONNX models made of LeakyRelu, Elu and PRelu: loading, operator versions and their type
//! constraints, recognising the spec's function-body expansions, and running any DAG of them
//! with intermediates kept on the device and chains of unary ops fused into one kernel.

use std::collections::{HashMap, HashSet};

use prost::Message;

use super::proto::{AttributeProto, ModelProto, NodeProto};
use super::tensor::HostTensor;
use crate::broadcast::per_channel_slope_shape;
use crate::context::Context;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::Activation;
use crate::shader::MAX_CHAIN;
use crate::tensor::GpuTensor;
use crate::with_host_tensor;

/// One of the three operators, at the version the model's opset selects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OpKind {
    /// LeakyRelu with its alpha.
    LeakyRelu {
        /// Attribute alpha (default 0.01).
        alpha: f32,
    },
    /// Elu with its alpha.
    Elu {
        /// Attribute alpha (default 1.0).
        alpha: f32,
    },
    /// PRelu; opsets 1 and 6 apply a 1-D slope per channel along axis 1.
    PRelu,
}

impl OpKind {
    /// ONNX name.
    pub fn name(&self) -> &'static str {
        match self {
            OpKind::LeakyRelu { .. } => "LeakyRelu",
            OpKind::Elu { .. } => "Elu",
            OpKind::PRelu => "PRelu",
        }
    }
}

/// The versions of each operator in the default domain.
const VERSIONS: [(&str, &[u32]); 3] =
    [("LeakyRelu", &[1, 6, 16]), ("Elu", &[1, 6, 22]), ("PRelu", &[1, 6, 7, 9, 16])];

/// The operator version a model with default-domain `opset` uses: the newest one not newer.
pub fn op_version(op: &str, opset: i64) -> Option<u32> {
    let (_, versions) = VERSIONS.iter().find(|(name, _)| *name == op)?;
    versions.iter().rev().copied().find(|&v| i64::from(v) <= opset)
}

/// Whether `op` at `version` accepts `dtype` (the spec's type constraints).
pub fn allows(op: &str, version: u32, dtype: DType) -> bool {
    use DType::*;
    match (op, dtype) {
        (_, F16 | F32 | F64) => true,
        ("LeakyRelu", BF16) => version >= 16,
        ("Elu", BF16) => version >= 22,
        ("PRelu", BF16) => version >= 16,
        ("PRelu", I32 | I64 | U32 | U64) => version >= 9,
        _ => false,
    }
}

/// One operator application after loading.
#[derive(Debug, Clone)]
struct Node {
    kind: OpKind,
    version: u32,
    inputs: Vec<String>,
    output: String,
    name: String,
}

/// A unit of execution: one PRelu, or a fused chain of unary ops.
#[derive(Debug, Clone)]
enum Step {
    Unary { chain: Vec<(Activation, u32)>, input: String, output: String },
    PRelu { version: u32, x: String, slope: String, output: String },
}

impl Step {
    fn inputs(&self) -> Vec<&str> {
        match self {
            Step::Unary { input, .. } => vec![input],
            Step::PRelu { x, slope, .. } => vec![x, slope],
        }
    }

    fn output(&self) -> &str {
        match self {
            Step::Unary { output, .. } | Step::PRelu { output, .. } => output,
        }
    }
}

/// A loaded model: its inputs, initializers, outputs and execution plan.
#[derive(Debug, Clone)]
pub struct OnnxModel {
    opset: i64,
    inputs: Vec<String>,
    outputs: Vec<String>,
    initializers: HashMap<String, HostTensor>,
    steps: Vec<Step>,
    nodes: Vec<Node>,
}

fn graph_error(message: impl Into<String>) -> Error {
    Error::OnnxGraph(message.into())
}

impl OnnxModel {
    /// Decodes and plans a serialized `ModelProto`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let model = ModelProto::decode(bytes).map_err(|e| Error::OnnxMalformed(format!("ModelProto: {e}")))?;
        Self::from_proto(&model)
    }

    /// Plans a decoded `ModelProto`.
    pub fn from_proto(model: &ModelProto) -> Result<Self> {
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
            initializers.insert(name, HostTensor::from_proto(tensor)?);
        }
        // Old-style models also list initializers as graph inputs: those are not fed by callers.
        let inputs: Vec<String> = graph
            .input
            .iter()
            .filter_map(|v| v.name.clone())
            .filter(|name| !initializers.contains_key(name))
            .collect();
        let outputs: Vec<String> = graph.output.iter().map(|v| v.name.clone().unwrap_or_default()).collect();
        let nodes = recognise(&graph.node, opset, &outputs)?;
        let available: HashSet<String> = inputs.iter().chain(initializers.keys()).cloned().collect();
        let steps = schedule(&nodes, available, &outputs)?;
        Ok(Self { opset, inputs, outputs, initializers, steps, nodes })
    }

    /// The default-domain opset the model imports.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// Names of the inputs a caller feeds, in graph order.
    pub fn input_names(&self) -> &[String] {
        &self.inputs
    }

    /// Names of the graph outputs, in order.
    pub fn output_names(&self) -> Vec<&str> {
        self.outputs.iter().map(String::as_str).collect()
    }

    /// The operators of the model (after recognising expansions), with their versions.
    pub fn operators(&self) -> Vec<(OpKind, u32)> {
        self.nodes.iter().map(|n| (n.kind, n.version)).collect()
    }

    /// Number of GPU dispatch steps after fusion.
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }

    /// Sum over the model's operators of each one's ULP bound for `dtype` (0 for integers):
    /// the bound a result of the whole graph is held to.
    pub fn ulp_bound(&self, dtype: DType) -> u64 {
        self.nodes
            .iter()
            .map(|n| match (n.kind, dtype) {
                (_, DType::I32 | DType::I64 | DType::U32 | DType::U64) | (OpKind::PRelu, _) => 0,
                (OpKind::LeakyRelu { .. }, DType::F16 | DType::BF16) => 1,
                (OpKind::LeakyRelu { .. }, _) => 0,
                (OpKind::Elu { .. }, DType::F16 | DType::BF16) => 1,
                (OpKind::Elu { .. }, _) => 2,
            })
            .sum()
    }

    fn check_inputs(&self, feeds: &HashMap<String, HostTensor>) -> Result<()> {
        for name in &self.inputs {
            if !feeds.contains_key(name) {
                return Err(graph_error(format!("input {name:?} was not given")));
            }
        }
        Ok(())
    }

    /// Runs the model on the GPU. Intermediates stay on the device and are released after
    /// their last use; only the graph outputs are read back.
    pub fn run(&self, ctx: &Context, feeds: &HashMap<String, HostTensor>) -> Result<Vec<(String, HostTensor)>> {
        self.check_inputs(feeds)?;
        let needs_cpu = feeds.values().chain(self.initializers.values()).any(|t| t.dtype() == DType::F64)
            && matches!(ctx.dtype_path(DType::F64), crate::DTypePath::CpuFallback);
        if needs_cpu {
            return self.run_reference(feeds);
        }
        let mut remaining_uses: HashMap<&str, usize> = HashMap::new();
        for step in &self.steps {
            for input in step.inputs() {
                *remaining_uses.entry(input).or_default() += 1;
            }
        }
        let mut device: HashMap<String, GpuTensor> = HashMap::new();
        let host = |name: &str| feeds.get(name).or_else(|| self.initializers.get(name));
        for step in &self.steps {
            for input in step.inputs() {
                if !device.contains_key(input) {
                    let tensor = host(input).ok_or_else(|| graph_error(format!("value {input:?} is undefined")))?;
                    device.insert(input.to_string(), with_host_tensor!(tensor, a => ctx.upload(a.view()))?);
                }
            }
            let result = match step {
                Step::Unary { chain, input, .. } => {
                    let x = &device[input.as_str()];
                    for (activation, version) in chain {
                        check_type(activation.onnx_name(), *version, x.dtype())?;
                    }
                    let activations: Vec<Activation> = chain.iter().map(|(a, _)| *a).collect();
                    ctx.run_activations(&activations, x)?
                }
                Step::PRelu { version, x, slope, .. } => {
                    let (x, slope) = (&device[x.as_str()], &device[slope.as_str()]);
                    check_type("PRelu", *version, x.dtype())?;
                    if *version < 7 {
                        let shape = per_channel_slope_shape(x.shape(), slope.shape())?;
                        ctx.run_prelu_reshaped(x, slope, &shape)?
                    } else {
                        ctx.run_prelu(x, slope)?
                    }
                }
            };
            for input in step.inputs() {
                if let Some(uses) = remaining_uses.get_mut(input) {
                    *uses -= 1;
                    if *uses == 0 && !self.outputs.iter().any(|n| n == input) {
                        device.remove(input);
                    }
                }
            }
            device.insert(step.output().to_string(), result);
        }
        self.outputs
            .iter()
            .map(|name| {
                let value = match device.get(name) {
                    Some(tensor) => download(ctx, tensor)?,
                    None => host(name).cloned().ok_or_else(|| graph_error(format!("output {name:?} is never produced")))?,
                };
                Ok((name.clone(), value))
            })
            .collect()
    }

    /// Runs the model on the CPU reference (the same plan, each op by `crate::reference`).
    pub fn run_reference(&self, feeds: &HashMap<String, HostTensor>) -> Result<Vec<(String, HostTensor)>> {
        self.check_inputs(feeds)?;
        let mut values: HashMap<String, HostTensor> = HashMap::new();
        let get = |values: &HashMap<String, HostTensor>, name: &str| -> Result<HostTensor> {
            values
                .get(name)
                .or_else(|| feeds.get(name))
                .or_else(|| self.initializers.get(name))
                .cloned()
                .ok_or_else(|| graph_error(format!("value {name:?} is undefined")))
        };
        for step in &self.steps {
            let result = match step {
                Step::Unary { chain, input, .. } => {
                    let mut x = get(&values, input)?;
                    for (activation, version) in chain {
                        check_type(activation.onnx_name(), *version, x.dtype())?;
                        x = reference_unary(*activation, &x)?;
                    }
                    x
                }
                Step::PRelu { version, x, slope, .. } => {
                    let (x, slope) = (get(&values, x)?, get(&values, slope)?);
                    check_type("PRelu", *version, x.dtype())?;
                    reference_prelu(*version, &x, &slope)?
                }
            };
            values.insert(step.output().to_string(), result);
        }
        self.outputs.iter().map(|name| Ok((name.clone(), get(&values, name)?))).collect()
    }
}

fn check_type(op: &'static str, version: u32, dtype: DType) -> Result<()> {
    if allows(op, version, dtype) { Ok(()) } else { Err(Error::DTypeNotAllowed { op, dtype, version: Some(version) }) }
}

fn download(ctx: &Context, tensor: &GpuTensor) -> Result<HostTensor> {
    Ok(match tensor.dtype() {
        DType::BF16 => HostTensor::BF16(ctx.download(tensor)?),
        DType::F16 => HostTensor::F16(ctx.download(tensor)?),
        DType::F32 => HostTensor::F32(ctx.download(tensor)?),
        DType::F64 => HostTensor::F64(ctx.download(tensor)?),
        DType::I32 => HostTensor::I32(ctx.download(tensor)?),
        DType::I64 => HostTensor::I64(ctx.download(tensor)?),
        DType::U32 => HostTensor::U32(ctx.download(tensor)?),
        DType::U64 => HostTensor::U64(ctx.download(tensor)?),
    })
}

fn reference_unary(activation: Activation, x: &HostTensor) -> Result<HostTensor> {
    use crate::reference::map_standard;
    Ok(match x {
        HostTensor::BF16(a) => HostTensor::BF16(map_standard(a.view(), |v| activation.reference_scalar(v))),
        HostTensor::F16(a) => HostTensor::F16(map_standard(a.view(), |v| activation.reference_scalar(v))),
        HostTensor::F32(a) => HostTensor::F32(map_standard(a.view(), |v| activation.reference_scalar(v))),
        HostTensor::F64(a) => HostTensor::F64(map_standard(a.view(), |v| activation.reference_scalar(v))),
        other => return Err(Error::DTypeNotAllowed { op: activation.onnx_name(), dtype: other.dtype(), version: None }),
    })
}

fn reference_prelu(version: u32, x: &HostTensor, slope: &HostTensor) -> Result<HostTensor> {
    if x.dtype() != slope.dtype() {
        return Err(Error::DTypeMismatch { expected: x.dtype(), actual: slope.dtype() });
    }
    fn typed<T: super::tensor::HostElement>(
        version: u32,
        x: &ndarray::ArrayD<T>,
        slope: &HostTensor,
    ) -> Result<HostTensor> {
        let slope = T::unwrap_ref(slope).ok_or(Error::DTypeMismatch { expected: T::DTYPE, actual: slope.dtype() })?;
        let y = if version < 7 {
            let shape = per_channel_slope_shape(x.shape(), slope.shape())?;
            let values: Vec<T> = slope.iter().copied().collect();
            let reshaped = ndarray::ArrayD::from_shape_vec(shape, values).map_err(|e| Error::OnnxGraph(e.to_string()))?;
            crate::reference::prelu(x.view(), reshaped.view())?
        } else {
            crate::reference::prelu(x.view(), slope.view())?
        };
        Ok(T::wrap(y))
    }
    with_host_tensor!(x, a => typed(version, a, slope))
}

fn attribute<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute.iter().find(|a| a.name.as_deref() == Some(name))
}

fn alpha_of(node: &NodeProto, default: f32) -> Result<f32> {
    match attribute(node, "alpha") {
        None => Ok(default),
        Some(a) => a.f.ok_or_else(|| graph_error(format!("node {:?}: attribute alpha is not a float", node.name()))),
    }
}

/// Turns the graph's nodes into operator nodes: the three operators directly, and their
/// function-body expansions (Constant, CastLike, Less, Mul, Exp, Sub, Where) recognised as the
/// operator they expand; anything else is refused, naming the op.
fn recognise(graph_nodes: &[NodeProto], opset: i64, outputs: &[String]) -> Result<Vec<Node>> {
    let producer: HashMap<&str, &NodeProto> =
        graph_nodes.iter().flat_map(|n| n.output.iter().map(move |o| (o.as_str(), n))).collect();
    let version = |op: &str| op_version(op, opset).ok_or_else(|| graph_error(format!("{op} does not exist at opset {opset}")));
    let mut nodes = Vec::new();
    for node in graph_nodes {
        let op = node.op_type();
        let domain = node.domain();
        if !(domain.is_empty() || domain == "ai.onnx") {
            continue; // refused below unless it is dead code
        }
        let single_output = || {
            node.output.first().cloned().ok_or_else(|| graph_error(format!("node {:?} ({op}) has no output", node.name())))
        };
        let recognised = match op {
            "LeakyRelu" => Some((OpKind::LeakyRelu { alpha: alpha_of(node, crate::LEAKY_RELU_DEFAULT_ALPHA)? }, node.input.clone())),
            "Elu" => Some((OpKind::Elu { alpha: alpha_of(node, crate::ELU_DEFAULT_ALPHA)? }, node.input.clone())),
            "PRelu" => Some((OpKind::PRelu, node.input.clone())),
            "Where" => match_expansion(node, &producer),
            _ => None,
        };
        let Some((kind, inputs)) = recognised else { continue };
        let wanted = if kind == OpKind::PRelu { 2 } else { 1 };
        if inputs.len() != wanted || inputs.iter().any(String::is_empty) {
            return Err(graph_error(format!("node {:?} ({}) needs {wanted} input(s)", node.name(), kind.name())));
        }
        nodes.push(Node { kind, version: version(kind.name())?, inputs, output: single_output()?, name: node.name().to_string() });
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
            return Err(Error::OnnxUnsupportedOp { op: format!("{}{domain}", node.op_type()), node: node.name().to_string() });
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
        return Some(match &tensor {
            HostTensor::BF16(a) => a.iter().next()?.to_f64(),
            HostTensor::F16(a) => a.iter().next()?.to_f64(),
            HostTensor::F32(a) => f64::from(*a.iter().next()?),
            HostTensor::F64(a) => *a.iter().next()?,
            HostTensor::I32(a) => f64::from(*a.iter().next()?),
            HostTensor::I64(a) => *a.iter().next()? as f64,
            HostTensor::U32(a) => f64::from(*a.iter().next()?),
            HostTensor::U64(a) => *a.iter().next()? as f64,
        });
    }
    None
}

/// Recognises `Where(Less(X, 0), f, X)` where f is `Mul(alpha, X)` (LeakyRelu), `Mul(slope, X)`
/// with a non-constant slope (PRelu), or `Mul(alpha, Sub(Exp(X), 1))` (Elu): the function
/// bodies of the spec. Returns the operator and its inputs.
fn match_expansion(where_node: &NodeProto, producer: &HashMap<&str, &NodeProto>) -> Option<(OpKind, Vec<String>)> {
    let [cond, then, x] = where_node.input.as_slice() else { return None };
    let less = produced_by(cond, "Less", producer)?;
    let [lx, zero] = less.input.as_slice() else { return None };
    if lx != x || constant_scalar(zero, producer) != Some(0.0) {
        return None;
    }
    let mul = produced_by(then, "Mul", producer)?;
    let [a, b] = mul.input.as_slice() else { return None };
    let other = if a == x { Some(b) } else if b == x { Some(a) } else { None };
    if let Some(factor) = other {
        return Some(match constant_scalar(factor, producer) {
            Some(alpha) => (OpKind::LeakyRelu { alpha: alpha as f32 }, vec![x.clone()]),
            None => (OpKind::PRelu, vec![x.clone(), factor.clone()]),
        });
    }
    for (alpha, sub) in [(a, b), (b, a)] {
        let Some(alpha) = constant_scalar(alpha, producer) else { continue };
        let Some(sub) = produced_by(sub, "Sub", producer) else { continue };
        let [exp, one] = sub.input.as_slice() else { continue };
        let is_exp_x = produced_by(exp, "Exp", producer).is_some_and(|n| n.input.first() == Some(x));
        if is_exp_x && constant_scalar(one, producer) == Some(1.0) {
            return Some((OpKind::Elu { alpha: alpha as f32 }, vec![x.clone()]));
        }
    }
    None
}

/// Orders the nodes so that every input is ready (any DAG; a cycle or an undefined value is
/// an error) and fuses each unary node into the chain of the unary node that feeds it, when
/// that intermediate has no other consumer and is not a graph output.
fn schedule(nodes: &[Node], mut available: HashSet<String>, outputs: &[String]) -> Result<Vec<Step>> {
    let mut consumers: HashMap<&str, usize> = HashMap::new();
    for n in nodes {
        for i in &n.inputs {
            *consumers.entry(i.as_str()).or_default() += 1;
        }
    }
    let is_output = |name: &str| outputs.iter().any(|n| n == name);
    // Kahn's algorithm: a node is ready once all its inputs are available.
    let mut waiting_on: Vec<usize> = nodes.iter().map(|n| n.inputs.iter().filter(|i| !available.contains(*i)).count()).collect();
    let mut consumers_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for input in n.inputs.iter().filter(|i| !available.contains(*i)) {
            consumers_of.entry(input.as_str()).or_default().push(i);
        }
    }
    let mut ready: std::collections::VecDeque<usize> = (0..nodes.len()).filter(|&i| waiting_on[i] == 0).collect();
    let mut scheduled = 0;
    let mut steps: Vec<Step> = Vec::new();
    let mut step_of: HashMap<String, usize> = HashMap::new();
    while let Some(next) = ready.pop_front() {
        scheduled += 1;
        for &consumer in consumers_of.get(nodes[next].output.as_str()).into_iter().flatten() {
            waiting_on[consumer] -= 1;
            if waiting_on[consumer] == 0 {
                ready.push_back(consumer);
            }
        }
        let node = &nodes[next];
        if available.contains(&node.output) {
            return Err(graph_error(format!("value {:?} is produced twice", node.output)));
        }
        available.insert(node.output.clone());
        let activation = match node.kind {
            OpKind::LeakyRelu { alpha } => Some(Activation::leaky_relu(alpha)),
            OpKind::Elu { alpha } => Some(Activation::elu(alpha)),
            OpKind::PRelu => None,
        };
        let input = &node.inputs[0];
        let fusable = activation.is_some() && consumers.get(input.as_str()) == Some(&1) && !is_output(input);
        if let (Some(activation), true) = (activation, fusable) {
            if let Some(&s) = step_of.get(input.as_str()) {
                if let Step::Unary { chain, output, .. } = &mut steps[s] {
                    if chain.len() < MAX_CHAIN {
                        chain.push((activation, node.version));
                        *output = node.output.clone();
                        step_of.remove(input.as_str());
                        step_of.insert(node.output.clone(), s);
                        continue;
                    }
                }
            }
        }
        let step = match activation {
            Some(activation) => Step::Unary { chain: vec![(activation, node.version)], input: input.clone(), output: node.output.clone() },
            None => Step::PRelu { version: node.version, x: input.clone(), slope: node.inputs[1].clone(), output: node.output.clone() },
        };
        step_of.insert(node.output.clone(), steps.len());
        steps.push(step);
    }
    if scheduled < nodes.len() {
        let stuck: Vec<&str> = (0..nodes.len()).filter(|&i| waiting_on[i] > 0).map(|i| nodes[i].name.as_str()).take(8).collect();
        return Err(graph_error(format!("nodes {stuck:?} wait on values no node produces (a cycle or a missing input)")));
    }
    for name in outputs {
        if !available.contains(name) {
            return Err(graph_error(format!("graph output {name:?} is never produced")));
        }
    }
    Ok(steps)
}

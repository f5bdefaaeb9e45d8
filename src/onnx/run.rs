//! Execution: a planned model on the GPU, with intermediates kept on the device and released
//! after their last use, each chain one fused kernel; and the same plan on the CPU reference.

use std::collections::HashMap;

use super::error::{OnnxError, OnnxResult};
use super::load::{HostElement, HostTensor};
use super::plan::{Chain, Node, OnnxModel, set_attribute_input};
use super::versions::allows;
use crate::Activation;
use crate::broadcast::per_channel_slope_shape;
use crate::dtype::DType;
use crate::engine::{Context, GpuTensor};
use crate::error::Error;
use crate::ops::{Attributes, AxisOp, Step, UnaryOp};
use crate::with_host_tensor;

/// PRelu versions before 7 apply a 1-D slope per channel along axis 1.
const FIRST_BROADCASTING_PRELU: u32 = 7;

fn graph_error(message: impl Into<String>) -> OnnxError {
    OnnxError::Graph(message.into())
}

fn check_type(node: &Node, dtype: DType) -> OnnxResult<()> {
    if allows(node.onnx_name(), node.version, dtype) {
        Ok(())
    } else {
        Err(Error::DTypeNotAllowed { op: node.onnx_name(), dtype, version: Some(node.version) }.into())
    }
}

impl OnnxModel {
    fn check_feeds(&self, feeds: &HashMap<String, HostTensor>) -> OnnxResult<()> {
        for name in &self.inputs {
            let tensor = feeds.get(name).ok_or_else(|| graph_error(format!("input {name:?} was not given")))?;
            if let Some(declared) = self.input_dtype(name).filter(|&d| d != tensor.dtype()) {
                return Err(graph_error(format!(
                    "input {name:?} is declared {} but {} was given",
                    declared.onnx_name(),
                    tensor.dtype().onnx_name()
                )));
            }
        }
        Ok(())
    }

    fn host<'a>(&'a self, feeds: &'a HashMap<String, HostTensor>, name: &str) -> Option<&'a HostTensor> {
        feeds.get(name).or_else(|| self.initializers.get(name))
    }

    /// A unary node's attributes, with those it takes as inputs read from the feeds or the
    /// initializers: each a scalar of X's type `dtype`.
    fn node_attributes(
        &self,
        node: &Node,
        op: &UnaryOp,
        attributes: Attributes,
        feeds: &HashMap<String, HostTensor>,
        dtype: DType,
    ) -> OnnxResult<Attributes> {
        let mut attributes = attributes;
        for &(slot, constant) in &node.constant_dtypes {
            if constant != dtype {
                return Err(graph_error(format!(
                    "node {:?}: {}-{}'s {} must be {} like X, not {} (a Constant)",
                    node.name,
                    op.onnx_name,
                    node.version,
                    op.attributes[slot].name,
                    dtype.onnx_name(),
                    constant.onnx_name()
                )));
            }
        }
        for (slot, name) in &node.attribute_inputs {
            let what =
                format!("node {:?}: {}-{}'s {}", node.name, op.onnx_name, node.version, op.attributes[*slot].name);
            let tensor = self
                .host(feeds, name)
                .ok_or_else(|| graph_error(format!("{what} ({name:?}) must be a graph input or an initializer")))?;
            if !tensor.shape().is_empty() {
                return Err(graph_error(format!("{what} must be a scalar, not of shape {:?}", tensor.shape())));
            }
            if tensor.dtype() != dtype {
                return Err(graph_error(format!(
                    "{what} must be {} like X, not {}",
                    dtype.onnx_name(),
                    tensor.dtype().onnx_name()
                )));
            }
            let value = tensor.first_scalar().ok_or_else(|| graph_error(format!("{what} is empty")))?;
            set_attribute_input(op, *slot, value, Some(dtype), &mut attributes).map_err(graph_error)?;
        }
        Ok(attributes)
    }

    /// Runs the model on the GPU. Intermediates stay on the device and are released after
    /// their last use; only the graph outputs are read back. Blocks until they are (not in the
    /// browser: use [`OnnxModel::run_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, ctx: &Context, feeds: &HashMap<String, HostTensor>) -> OnnxResult<Vec<(String, HostTensor)>> {
        pollster::block_on(self.run_async(ctx, feeds))
    }

    /// Async form of [`OnnxModel::run`].
    pub async fn run_async(
        &self,
        ctx: &Context,
        feeds: &HashMap<String, HostTensor>,
    ) -> OnnxResult<Vec<(String, HostTensor)>> {
        self.check_feeds(feeds)?;
        let needs_cpu = feeds.values().chain(self.initializers.values()).any(|t| ctx.runs_on_cpu(t.dtype()));
        if needs_cpu {
            return self.run_reference(feeds);
        }
        let mut remaining_uses: HashMap<&str, usize> = HashMap::new();
        for chain in &self.chains {
            for input in chain.inputs() {
                *remaining_uses.entry(input).or_default() += 1;
            }
        }
        let mut device: HashMap<String, GpuTensor> = HashMap::new();
        for chain in &self.chains {
            for input in chain.inputs() {
                if !device.contains_key(input) {
                    let tensor =
                        self.host(feeds, input).ok_or_else(|| graph_error(format!("value {input:?} is undefined")))?;
                    device.insert(input.to_string(), tensor.upload(ctx)?);
                }
            }
            let first = chain.nodes.first();
            let x = &device[chain.input.as_str()];
            let result = match first.and_then(|n| n.axis.map(|a| (n, a))) {
                Some((node, (op, axis))) => {
                    check_type(node, x.dtype())?;
                    ctx.run_axis(op, x, axis, Some(node.version))?
                }
                None => self.run_chain(ctx, chain, &device, feeds)?,
            };
            for input in chain.inputs() {
                if let Some(uses) = remaining_uses.get_mut(input) {
                    *uses -= 1;
                    if *uses == 0 && !self.sources.iter().any(|n| n == input) {
                        device.remove(input);
                    }
                }
            }
            device.insert(chain.output.clone(), result);
        }
        let mut outputs = Vec::with_capacity(self.outputs.len());
        for (name, source) in self.outputs.iter().zip(&self.sources) {
            let value = match device.get(source) {
                Some(tensor) => HostTensor::download_async(ctx, tensor).await?,
                None => self
                    .host(feeds, source)
                    .cloned()
                    .ok_or_else(|| graph_error(format!("output {name:?} is never produced")))?,
            };
            outputs.push((name.clone(), value));
        }
        Ok(outputs)
    }

    fn run_chain(
        &self,
        ctx: &Context,
        chain: &Chain,
        device: &HashMap<String, GpuTensor>,
        feeds: &HashMap<String, HostTensor>,
    ) -> OnnxResult<GpuTensor> {
        let x = &device[chain.input.as_str()];
        let mut steps = Vec::with_capacity(chain.nodes.len());
        for node in &chain.nodes {
            check_type(node, x.dtype())?;
            steps.push(match (node.step, node.slope()) {
                (Step::Unary(op, attributes), _) => {
                    Activation(Step::Unary(op, self.node_attributes(node, op, attributes, feeds, x.dtype())?))
                }
                (Step::Prelu(()), Some(slope)) => {
                    let slope = &device[slope];
                    if node.version < FIRST_BROADCASTING_PRELU {
                        Activation::prelu(&slope.reshaped(&per_channel_slope_shape(x.shape(), slope.shape())?)?)
                    } else {
                        Activation::prelu(slope)
                    }
                }
                (Step::Swiglu((), attributes), Some(b)) => Activation(Step::Swiglu(device[b].clone(), attributes)),
                (Step::Prelu(()) | Step::Swiglu(..), None) => {
                    return Err(graph_error(format!("a {} node without its second input", node.onnx_name())));
                }
            });
        }
        Ok(ctx.run_activations(&steps, x)?)
    }

    /// Runs the model on the CPU reference (the same plan, each op by [`crate::reference`]).
    pub fn run_reference(&self, feeds: &HashMap<String, HostTensor>) -> OnnxResult<Vec<(String, HostTensor)>> {
        self.check_feeds(feeds)?;
        let mut values: HashMap<String, HostTensor> = HashMap::new();
        let get = |values: &HashMap<String, HostTensor>, name: &str| -> OnnxResult<HostTensor> {
            values
                .get(name)
                .or_else(|| self.host(feeds, name))
                .cloned()
                .ok_or_else(|| graph_error(format!("value {name:?} is undefined")))
        };
        for chain in &self.chains {
            let mut x = get(&values, &chain.input)?;
            for node in &chain.nodes {
                check_type(node, x.dtype())?;
                if let Some((op, axis)) = node.axis {
                    x = reference_axis(node, op, axis, &x)?;
                    continue;
                }
                let second = match node.slope() {
                    Some(name) => Some(get(&values, name)?),
                    None => None,
                };
                x = self.reference_node(node, &x, second.as_ref(), feeds)?;
            }
            values.insert(chain.output.clone(), x);
        }
        self.outputs.iter().zip(&self.sources).map(|(name, source)| Ok((name.clone(), get(&values, source)?))).collect()
    }

    /// One node of a chain (not over an axis) on the reference: `x` its input, `second` the
    /// value of its second input (PRelu's slope, SwiGLU's B).
    fn reference_node(
        &self,
        node: &Node,
        x: &HostTensor,
        second: Option<&HostTensor>,
        feeds: &HashMap<String, HostTensor>,
    ) -> OnnxResult<HostTensor> {
        match (node.step, second) {
            (Step::Unary(op, attributes), _) => {
                let attributes = self.node_attributes(node, op, attributes, feeds, x.dtype())?;
                reference_unary(op, &attributes, x)
            }
            (Step::Prelu(()), Some(slope)) => reference_prelu(node.version, x, slope),
            (Step::Swiglu((), [alpha, ..]), Some(b)) => reference_gate(alpha, x, b),
            (Step::Prelu(()) | Step::Swiglu(..), None) => {
                Err(graph_error(format!("a {} node without its second input", node.onnx_name())))
            }
        }
    }
}

fn reference_unary(
    op: &'static crate::ops::UnaryOp,
    attributes: &crate::ops::Attributes,
    x: &HostTensor,
) -> OnnxResult<HostTensor> {
    if !op.accepts(x.dtype()) {
        return Err(Error::DTypeNotAllowed { op: op.onnx_name, dtype: x.dtype(), version: None }.into());
    }
    Ok(crate::with_host_tensor!(x, a => HostElement::wrap(crate::cpu::unary(op, attributes, a.view()))))
}

/// SwiGLU on the CPU reference.
fn reference_gate(alpha: f32, a: &HostTensor, b: &HostTensor) -> OnnxResult<HostTensor> {
    if a.dtype() != b.dtype() {
        return Err(Error::DTypeMismatch { expected: a.dtype(), actual: b.dtype() }.into());
    }
    fn typed<T: HostElement + crate::FloatElement>(
        alpha: f32,
        a: &ndarray::ArrayD<T>,
        b: &HostTensor,
    ) -> OnnxResult<HostTensor> {
        let b = T::unwrap_ref(b).ok_or(Error::DTypeMismatch { expected: T::DTYPE, actual: b.dtype() })?;
        Ok(T::wrap(crate::cpu::gated::swiglu(a.view(), b.view(), alpha)?))
    }
    match a {
        HostTensor::BF16(x) => typed(alpha, x, b),
        HostTensor::F16(x) => typed(alpha, x, b),
        HostTensor::F32(x) => typed(alpha, x, b),
        HostTensor::F64(x) => typed(alpha, x, b),
        _ => Err(Error::DTypeNotAllowed { op: "SwiGLU", dtype: a.dtype(), version: Some(28) }.into()),
    }
}

/// An operator over an axis on the CPU reference.
fn reference_axis(node: &Node, op: &'static AxisOp, axis: i64, x: &HostTensor) -> OnnxResult<HostTensor> {
    fn typed<T: HostElement + crate::FloatElement>(
        node: &Node,
        op: &'static AxisOp,
        axis: i64,
        x: &ndarray::ArrayD<T>,
    ) -> OnnxResult<HostTensor> {
        Ok(T::wrap(crate::cpu::axis::axis_op(op, Some(node.version), x.view(), axis)?))
    }
    match x {
        HostTensor::BF16(a) => typed(node, op, axis, a),
        HostTensor::F16(a) => typed(node, op, axis, a),
        HostTensor::F32(a) => typed(node, op, axis, a),
        HostTensor::F64(a) => typed(node, op, axis, a),
        _ => Err(Error::DTypeNotAllowed { op: op.onnx_name, dtype: x.dtype(), version: Some(node.version) }.into()),
    }
}

fn reference_prelu(version: u32, x: &HostTensor, slope: &HostTensor) -> OnnxResult<HostTensor> {
    if x.dtype() != slope.dtype() {
        return Err(Error::DTypeMismatch { expected: x.dtype(), actual: slope.dtype() }.into());
    }
    fn typed<T: HostElement>(version: u32, x: &ndarray::ArrayD<T>, slope: &HostTensor) -> OnnxResult<HostTensor> {
        let slope = T::unwrap_ref(slope).ok_or(Error::DTypeMismatch { expected: T::DTYPE, actual: slope.dtype() })?;
        let y = if version < FIRST_BROADCASTING_PRELU {
            let shape = per_channel_slope_shape(x.shape(), slope.shape())?;
            let reshaped = slope.to_shape(shape).map_err(|e| OnnxError::Graph(e.to_string()))?;
            crate::cpu::prelu(x.view(), reshaped.view())?
        } else {
            crate::cpu::prelu(x.view(), slope.view())?
        };
        Ok(T::wrap(y))
    }
    with_host_tensor!(x, a => typed(version, a, slope))
}

//! `wgpu-act apply`: one operator on `.npy` files. Everything about the input (the operator, its
//! attributes, version and dtype, the files' shapes) is checked before a GPU is looked for, so bad
//! input exits 2 even on a machine without an adapter.

use std::path::Path;

use half::f16;
use wgpu_activations::ops::{AxisOp, PRELU, SWIGLU, UnaryOp, accepts, version_at};
use wgpu_activations::{Activation, DType, Error};

use super::npy::{Npy, NpyElement};
use super::{AdapterArgs, ApplyArgs, Failure, context, refuse_overwrite};

/// What `apply` runs, after the operator and its attributes have been checked.
enum Plan {
    /// A unary step, with the bounds written in decimals that their f32 rounds (Clip's 0.1),
    /// which an f64 X takes exactly (`Activation::set_f64`) and the other types as cast.
    Unary(Activation, Vec<(String, f64)>),
    /// PRelu, with a per-channel slope (PRelu-1 and -6) or not.
    Prelu(bool),
    /// An operator over an axis.
    Axis(&'static AxisOp),
    /// SwiGLU with its alpha.
    Gate(f32),
}

fn plan(args: &ApplyArgs) -> Result<Plan, Failure> {
    if args.op == PRELU.cli_name {
        if args.alpha.is_some() || !args.attributes.is_empty() {
            return Err(Failure::input("--alpha and --attr do not apply to --op prelu (its slope comes from --slope)"));
        }
        if args.slope.is_none() {
            return Err(Failure::input("--op prelu requires --slope SLOPE.npy"));
        }
        return Ok(Plan::Prelu(args.opset.is_some_and(|opset| opset < 7)));
    }
    if args.op == SWIGLU.cli_name {
        if !args.attributes.is_empty() || args.slope.is_some() || args.axis.is_some() {
            return Err(Failure::input("SwiGLU takes --gate-input B.npy and --alpha only"));
        }
        if args.gate_input.is_none() {
            return Err(Failure::input("--op swiglu requires --gate-input B.npy"));
        }
        return Ok(Plan::Gate(args.alpha.unwrap_or(1.0)));
    }
    if args.gate_input.is_some() {
        return Err(Failure::input("--gate-input applies only to --op swiglu"));
    }
    if let Some(op) = AxisOp::find(&args.op) {
        if args.alpha.is_some() || !args.attributes.is_empty() || args.slope.is_some() {
            return Err(Failure::input(format!("{} takes --axis only (no --alpha, --attr or --slope)", op.onnx_name)));
        }
        return Ok(Plan::Axis(op));
    }
    if args.axis.is_some() {
        return Err(Failure::input("--axis applies only to softmax, log-softmax and hardmax"));
    }
    let op: &'static UnaryOp =
        UnaryOp::find(&args.op).ok_or_else(|| Failure::input(format!("unknown operator {:?}", args.op)))?;
    if args.slope.is_some() {
        return Err(Failure::input("--slope applies only to --op prelu"));
    }
    let defaults = args
        .opset
        .and_then(|opset| version_at(op.versions, opset))
        .map_or(op.default_attributes(), |v| op.default_attributes_at(v.since));
    let mut step = Activation::with_attributes(op, &defaults[..op.attributes.len()]);
    let mut settings: Vec<(String, String)> =
        // Debug spells every f32 so that it reads back as itself (1e30, not Display's 31 digits,
        // which value_of takes for an integer no f32 is).
        args.alpha.map(|a| ("alpha".to_string(), format!("{a:?}"))).into_iter().collect();
    for spec in &args.attributes {
        let (name, value) =
            spec.split_once('=').ok_or_else(|| Failure::input(format!("--attr {spec:?} is not NAME=VALUE")))?;
        settings.push((name.to_string(), value.to_string()));
    }
    let mut f64_bounds = Vec::new();
    for (name, text) in settings {
        let names: Vec<&str> = op.attributes.iter().map(|a| a.name).collect();
        let attribute = op.attribute(&name).ok_or_else(|| {
            Failure::input(format!("{} has no attribute {name:?} (its attributes: {names:?})", op.onnx_name))
        })?;
        let Some(value) = attribute.value_of(&text) else {
            // Clip's bound of an integer X that no f32 holds (2147483647): its leading f32 and a
            // residual, or in full; refused later on a float X.
            let integer = text.parse::<i128>().ok();
            if let Some(exact) = integer.and_then(|integer| step.set_integer(&name, integer)) {
                step = exact;
                continue;
            }
            if integer.is_some() && op.attribute_inputs_since.is_some() {
                return Err(Failure::input(format!(
                    "{}'s attribute {name} {text} lies beyond the 64-bit integers (leave a bound out for none)",
                    op.onnx_name
                )));
            }
            return Err(Failure::input(format!(
                "{}'s attribute {name} must be {} (got {text:?})",
                op.onnx_name,
                attribute.accepted()
            )));
        };
        step = step
            .set(&name, value)
            .ok_or_else(|| Failure::input(format!("{}: {name} cannot be {text:?}", op.onnx_name)))?;
        let wide =
            text.parse::<f64>().ok().filter(|wide| !wide.is_nan() && f64::from(value).to_bits() != wide.to_bits());
        if let Some(wide) = wide.filter(|_| op.attribute_inputs_since.is_some()) {
            f64_bounds.push((name, wide));
        }
    }
    Ok(Plan::Unary(step, f64_bounds))
}

pub(crate) fn apply(adapter: &AdapterArgs, args: &ApplyArgs) -> Result<(), Failure> {
    let mut plan = plan(args)?;
    // Everything about the input is checked before a GPU is looked for, so bad input is
    // reported as such (exit 2) even on a machine without an adapter.
    let mut inputs: Vec<&Path> = vec![&args.input];
    inputs.extend(args.slope.as_deref());
    refuse_overwrite(&args.output, &inputs)?;
    let x = Npy::load(&args.input, "X")?;
    let slope = match &args.slope {
        Some(path) => {
            let slope = Npy::load(path, "slope")?;
            if slope.dtype != x.dtype {
                return Err(Failure::input(format!(
                    "slope has dtype {} but X has dtype {}; they must be equal",
                    slope.dtype.onnx_name(),
                    x.dtype.onnx_name()
                )));
            }
            if args.opset.is_some_and(|opset| opset < 7) {
                // PRelu-1 and -6: a 1-D slope applies per channel, along axis 1.
                wgpu_activations::per_channel_slope_shape(x.shape(), slope.shape())?;
            } else {
                wgpu_activations::unidirectional_slope_shape(x.shape(), slope.shape())?;
            }
            Some(slope)
        }
        None => None,
    };
    let versions = match &plan {
        Plan::Unary(step, _) => step.step().versions(),
        Plan::Prelu(_) => PRELU.versions,
        Plan::Axis(op) => op.versions,
        Plan::Gate(_) => SWIGLU.versions,
    };
    let op_name = match &plan {
        Plan::Unary(step, _) => step.onnx_name(),
        Plan::Prelu(_) => PRELU.onnx_name,
        Plan::Axis(op) => op.onnx_name,
        Plan::Gate(_) => SWIGLU.onnx_name,
    };
    match args.opset {
        Some(opset) => {
            let version = version_at(versions, opset)
                .ok_or_else(|| Failure::input(format!("{op_name} does not exist at opset {opset}")))?;
            if !version.dtypes.contains(&x.dtype) {
                return Err(Error::DTypeNotAllowed { op: op_name, dtype: x.dtype, version: Some(version.since) }.into());
            }
        }
        None if !accepts(versions, x.dtype) => {
            return Err(Error::DTypeNotAllowed { op: op_name, dtype: x.dtype, version: None }.into());
        }
        None => {}
    }
    if let Plan::Unary(step, f64_bounds) = &mut plan {
        for (name, bound) in f64_bounds.iter().filter(|_| x.dtype == DType::F64) {
            *step = step.set_f64(name, *bound).ok_or_else(|| {
                Failure::input(format!("{}'s attribute {name} is no bound of X's type", step.onnx_name()))
            })?;
        }
        step.check_dtype(x.dtype)?;
    }
    if let (Plan::Gate(alpha), Some(b_path)) = (&plan, &args.gate_input) {
        refuse_overwrite(&args.output, &[&args.input, b_path])?;
        let b = Npy::load(b_path, "B")?;
        if b.dtype != x.dtype || b.shape() != x.shape() {
            return Err(Failure::input(format!(
                "SwiGLU's B is {} of shape {:?} but A is {} of shape {:?}; they must be equal (no broadcasting)",
                b.dtype.onnx_name(),
                b.shape(),
                x.dtype.onnx_name(),
                x.shape()
            )));
        }
        let alpha = *alpha;
        return match x.dtype {
            DType::F16 => apply_gate_typed::<f16>(adapter, alpha, (x, b), &args.output),
            DType::F32 => apply_gate_typed::<f32>(adapter, alpha, (x, b), &args.output),
            DType::F64 => apply_gate_typed::<f64>(adapter, alpha, (x, b), &args.output),
            other => Err(Error::DTypeNotAllowed { op: SWIGLU.onnx_name, dtype: other, version: Some(28) }.into()),
        };
    }
    if let Plan::Axis(op) = plan {
        let version =
            args.opset.and_then(|opset| version_at(op.versions, opset)).map_or(op.newest_version(), |v| v.since);
        let axis = args.axis.unwrap_or(op.default_axis(version));
        wgpu_activations::AxisLayout::new(op, version, x.shape(), axis)?;
        let run = AxisRun { op, version, axis };
        return match x.dtype {
            DType::F16 => apply_axis_typed::<f16>(adapter, run, x, &args.output),
            DType::F32 => apply_axis_typed::<f32>(adapter, run, x, &args.output),
            DType::F64 => apply_axis_typed::<f64>(adapter, run, x, &args.output),
            other => Err(Error::DTypeNotAllowed { op: op.onnx_name, dtype: other, version: Some(version) }.into()),
        };
    }
    match x.dtype {
        DType::F16 => apply_typed::<f16>(adapter, &plan, x, slope, &args.output),
        DType::F32 => apply_typed::<f32>(adapter, &plan, x, slope, &args.output),
        DType::F64 => apply_typed::<f64>(adapter, &plan, x, slope, &args.output),
        DType::I8 => apply_typed::<i8>(adapter, &plan, x, slope, &args.output),
        DType::I16 => apply_typed::<i16>(adapter, &plan, x, slope, &args.output),
        DType::I32 => apply_typed::<i32>(adapter, &plan, x, slope, &args.output),
        DType::I64 => apply_typed::<i64>(adapter, &plan, x, slope, &args.output),
        DType::U8 => apply_typed::<u8>(adapter, &plan, x, slope, &args.output),
        DType::U16 => apply_typed::<u16>(adapter, &plan, x, slope, &args.output),
        DType::U32 => apply_typed::<u32>(adapter, &plan, x, slope, &args.output),
        DType::U64 => apply_typed::<u64>(adapter, &plan, x, slope, &args.output),
        other => Err(Failure::input(format!("X has dtype {}, which .npy cannot hold", other.onnx_name()))),
    }
}

/// The one generic path every dtype goes through: decode, run in place, write.
/// An operator over an axis, the version and axis it runs.
#[derive(Clone, Copy)]
struct AxisRun {
    op: &'static AxisOp,
    version: u32,
    axis: i64,
}

fn apply_axis_typed<T: NpyElement + wgpu_activations::FloatElement + wgpu_activations::Blocking>(
    adapter: &AdapterArgs,
    run: AxisRun,
    x: Npy,
    output: &Path,
) -> Result<(), Failure> {
    let values = T::decode(&x)?;
    let like = x.without_data();
    let ctx = context(adapter)?;
    let y = wgpu_activations::axis_op(&ctx, run.op, Some(run.version), values.view(), run.axis)?;
    T::encode(&y, &like, output)
}

fn apply_gate_typed<T: NpyElement + wgpu_activations::FloatElement + wgpu_activations::Blocking>(
    adapter: &AdapterArgs,
    alpha: f32,
    (a, b): (Npy, Npy),
    output: &Path,
) -> Result<(), Failure> {
    let (a_values, b_values) = (T::decode(&a)?, T::decode(&b)?);
    let like = a.without_data();
    let ctx = context(adapter)?;
    let y = wgpu_activations::swiglu(&ctx, a_values.view(), b_values.view(), alpha)?;
    T::encode(&y, &like, output)
}

fn apply_typed<T: NpyElement>(
    adapter: &AdapterArgs,
    plan: &Plan,
    x: Npy,
    slope: Option<Npy>,
    output: &Path,
) -> Result<(), Failure> {
    let mut values = T::decode(&x)?;
    let slope_values = slope.as_ref().map(T::decode).transpose()?;
    let like = x.without_data();
    drop(slope);
    let ctx = context(adapter)?;
    match (plan, slope_values) {
        (Plan::Unary(step, _), _) => {
            wgpu_activations::activations_in_place(&ctx, std::slice::from_ref(step), values.view_mut())?
        }
        (Plan::Prelu(per_channel), Some(s)) => {
            let shape = if *per_channel {
                wgpu_activations::per_channel_slope_shape(values.shape(), s.shape())?
            } else {
                s.shape().to_vec()
            };
            let s = s.into_shape_with_order(shape).map_err(|e| Failure::input(format!("slope: {e}")))?;
            wgpu_activations::prelu_in_place(&ctx, values.view_mut(), s.view())?
        }
        (Plan::Prelu(_), None) => return Err(Failure::input("--op prelu requires --slope SLOPE.npy")),
        (Plan::Axis(op), _) => return Err(Failure::input(format!("{} takes the axis path", op.onnx_name))),
        (Plan::Gate(_), _) => return Err(Failure::input("SwiGLU takes its own path")),
    }
    T::encode(&values, &like, output)
}

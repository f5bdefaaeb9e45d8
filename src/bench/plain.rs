//! The yardstick of a kernel's arithmetic: the operator's function body as the spec writes it
//! (its `expansion`, or `1 / (1 + exp(-X))` and `tanh(X)` for the two operators the spec
//! defines without one), evaluated in plain f32 WGSL with the hardware's `exp`, `log`, `tanh`,
//! `sqrt` and `/`, Erf by Abramowitz and Stegun's 7.1.26 (as ONNX Runtime's WebGPU provider and
//! cubecl evaluate it), no care for NaN, -0.0, subnormals or the tails: what a runtime that
//! runs the body as written computes. The bench runs it in a program with the engine's
//! dispatch shape and reports its speed against the same program's copy: the share of the copy
//! kernel's speed that the body's arithmetic alone leaves on this adapter.

use std::fmt::Write as _;

use crate::engine::{Context, GpuTensor, PlainKernel};
use crate::kernel::Tuning;
use crate::ops::expansion::{Pattern, bodies};
use crate::ops::{Attributes, UnaryOp};

/// Abramowitz and Stegun 7.1.26: absolute error 1.5e-7.
const ERF_WGSL: &str = "
fn erf_as(x: vec4<f32>) -> vec4<f32> {
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t;
    return sign(x) * (1.0 - poly * exp(-x * x));
}
";

/// The body of `op` with `attributes` (their values in the uniform `a`) as a WGSL expression of
/// the `vec4<f32>` named `x`; `None` where the body uses an op this does not translate.
pub(crate) fn body_wgsl(op: &UnaryOp, attributes: &Attributes) -> Option<String> {
    let named = op.attributes.iter().zip(["a.x", "a.y", "a.z", "a.w"]);
    let scope = Scope {
        input: "x".to_string(),
        attributes: named.map(|(a, slot)| (a.name, format!("vec4<f32>({slot})"))).collect(),
    };
    scope.body_of(op, attributes)
}

/// The body for the STRING attribute's choice in `attributes` (the only one where there is none).
fn chosen_body(op: &UnaryOp, attributes: &Attributes) -> Option<&'static str> {
    bodies(op.expansion)?.into_iter().find_map(|(settings, body)| {
        settings
            .iter()
            .all(|&(name, value)| {
                op.attribute_index(name).is_some_and(|i| op.attributes[i].value_of(value) == Some(attributes[i]))
            })
            .then_some(body)
    })
}

/// What the names of a body stand for: its input and its attributes, as WGSL expressions.
struct Scope {
    input: String,
    attributes: Vec<(&'static str, String)>,
}

impl Scope {
    /// `op`'s body in this scope, `values` choosing among its bodies.
    fn body_of(&self, op: &UnaryOp, values: &Attributes) -> Option<String> {
        if op.expansion.is_empty() {
            return primitive(op.onnx_name, std::slice::from_ref(&self.input));
        }
        self.emit(&Pattern::parse(chosen_body(op, values)?, &["X"])?)
    }

    fn emit(&self, pattern: &Pattern) -> Option<String> {
        Some(match pattern {
            Pattern::Input(_) => self.input.clone(),
            Pattern::Number(n) => literal(*n),
            Pattern::Attribute(name) => self.attributes.iter().find(|(n, _)| n == name)?.1.clone(),
            Pattern::Node { op, attributes, inputs } => {
                // Pow to a small whole power is repeated products (pow() is NaN for x < 0).
                if let ("Pow", [base, Pattern::Number(power)]) = (op.as_str(), inputs.as_slice()) {
                    if power.fract() == 0.0 && (1.0..=4.0).contains(power) {
                        let base = self.emit(base)?;
                        return Some(format!("({})", vec![base; *power as usize].join(" * ")));
                    }
                }
                let operands = inputs.iter().map(|p| self.emit(p)).collect::<Option<Vec<_>>>()?;
                match primitive(op, &operands) {
                    Some(wgsl) => wgsl,
                    None => Self::nested(op, attributes, operands.first()?)?,
                }
            }
        })
    }

    /// Another operator of the table inside a body (Celu's `Elu[alpha=1](...)`): its own body
    /// on `input`, its attributes the node's values or their defaults.
    fn nested(name: &str, given: &[(String, f64)], input: &str) -> Option<String> {
        let op = UnaryOp::find(name)?;
        let mut values = op.default_attributes();
        for (attribute, value) in given {
            values[op.attribute_index(attribute)?] = *value as f32;
        }
        let attributes = op.attributes.iter().zip(values).map(|(a, v)| (a.name, literal(f64::from(v)))).collect();
        Scope { input: format!("({input})"), attributes }.body_of(op, &values)
    }
}

/// The ONNX ops the bodies are made of, in WGSL; `None` for any other (or a wrong arity).
fn primitive(op: &str, operands: &[String]) -> Option<String> {
    Some(match (op, operands) {
        ("Where", [condition, then, otherwise]) => format!("select({otherwise}, {then}, {condition})"),
        ("Less", [a, b]) => format!("({a} < {b})"),
        ("Add" | "Sum", [a, b]) => format!("({a} + {b})"),
        ("Sub", [a, b]) => format!("({a} - {b})"),
        ("Mul", [a, b]) => format!("({a} * {b})"),
        ("Div", [a, b]) => format!("({a} / {b})"),
        ("Max", [a, b]) => format!("max({a}, {b})"),
        ("Min", [a, b]) => format!("min({a}, {b})"),
        ("Neg", [a]) => format!("(-{a})"),
        ("Abs", [a]) => format!("abs({a})"),
        ("Exp", [a]) => format!("exp({a})"),
        ("Log", [a]) => format!("log({a})"),
        ("Sqrt", [a]) => format!("sqrt({a})"),
        ("Tanh", [a]) => format!("tanh({a})"),
        ("Erf", [a]) => format!("erf_as({a})"),
        ("Sigmoid", [a]) => format!("(1.0 / (1.0 + exp(-{a})))"),
        ("Softplus", [a]) => format!("log(exp({a}) + 1.0)"),
        _ => return None,
    })
}

fn literal(n: f64) -> String {
    format!("vec4<f32>({:?})", n as f32)
}

/// The program: `body` from X into Y over whole Vectors, in the engine's dispatch shape
/// (`tuning`: invocations per workgroup, Vectors per invocation, consecutive or strided).
fn program_wgsl(body: &str, tuning: Tuning) -> String {
    let (size, vectors) = (tuning.workgroup_size, tuning.vectors_per_invocation);
    let (local_stride, vector_stride) = if tuning.contiguous { (vectors, 1) } else { (1, size) };
    let mut wgsl = String::from(
        "@group(0) @binding(0) var<uniform> a: vec4<f32>;\n\
         @group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;\n\
         @group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;\n",
    );
    wgsl.push_str(ERF_WGSL);
    let _ = write!(
        wgsl,
        "
@compute @workgroup_size({size})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>, @builtin(local_invocation_index) l: u32) {{
    _ = a;
    let first = (w.y * n.x + w.x) * {per_group}u + l * {local_stride}u;
    for (var k = 0u; k < {vectors}u; k++) {{
        let i = first + k * {vector_stride}u;
        if (i < arrayLength(&dst)) {{
            let x = src[i];
            dst[i] = {body};
        }}
    }}
}}
",
        per_group = size * vectors,
    );
    wgsl
}

/// A plain program over two tensors, ready to record.
pub(crate) struct PlainProgram {
    kernel: PlainKernel,
    group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl PlainProgram {
    /// `body` (an expression of `x`; `x` itself is the copy) from `x` into `y`, the attributes
    /// `attributes` in its uniform, in `ctx`'s dispatch shape and grid.
    pub(crate) fn new(
        ctx: &Context,
        label: &str,
        body: &str,
        (x, y): (&GpuTensor, &GpuTensor),
        attributes: &Attributes,
    ) -> Option<PlainProgram> {
        let (device, tuning) = (ctx.device(), ctx.inner.tuning);
        // One binding for each tensor: beyond the device's limit the yardstick is left out.
        let whole_vectors = x.size_bytes().min(y.size_bytes()) / 16;
        if whole_vectors * 16 > device.limits().max_storage_buffer_binding_size {
            return None;
        }
        let kernel = PlainKernel::new(device, label, &program_wgsl(body, tuning));
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(&attributes[..4]),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let size = std::num::NonZeroU64::new(whole_vectors * 16);
        let window = |buffer| wgpu::BindingResource::Buffer(wgpu::BufferBinding { buffer, offset: 0, size });
        let group = kernel.bind(device, &[uniform.as_entire_binding(), window(x.buffer()), window(y.buffer())]);
        let groups = ctx.grid(whole_vectors.div_ceil(tuning.vectors_per_workgroup()));
        Some(PlainProgram { kernel, group, groups })
    }

    /// One dispatch, writing timestamps `base` and `base + 1` of `timestamps` if given.
    pub(crate) fn encode(&self, encoder: &mut wgpu::CommandEncoder, timestamps: Option<(&wgpu::QuerySet, u32)>) {
        let writes = timestamps.map(|(set, base)| wgpu::ComputePassTimestampWrites {
            query_set: set,
            beginning_of_pass_write_index: Some(base),
            end_of_pass_write_index: Some(base + 1),
        });
        self.kernel.encode(encoder, &self.group, self.groups, writes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::UNARY_OPS;

    /// Every operator's body translates, and every program is valid WGSL (naga).
    #[test]
    fn every_body_translates_into_valid_wgsl() {
        for op in UNARY_OPS {
            for (_, attributes, choice) in op.kernel_variants() {
                let body = body_wgsl(op, &attributes).unwrap_or_else(|| panic!("{} {choice}: no body", op.onnx_name));
                let wgsl = program_wgsl(&body, Tuning::default());
                let module = naga::front::wgsl::parse_str(&wgsl)
                    .unwrap_or_else(|e| panic!("{} {choice}: {}\n{wgsl}", op.onnx_name, e.emit_to_string(&wgsl)));
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
                    .validate(&module)
                    .unwrap_or_else(|e| panic!("{} {choice}: {e:?}\n{wgsl}", op.onnx_name));
            }
        }
    }

    /// The bodies say what the spec says (a few read back whole).
    #[test]
    fn bodies_read_as_the_spec_writes_them() {
        let defaults = |op: &UnaryOp| op.default_attributes();
        let elu = &crate::ops::ELU;
        assert_eq!(
            body_wgsl(elu, &defaults(elu)).as_deref(),
            Some("select(x, (vec4<f32>(a.x) * (exp(x) - vec4<f32>(1.0))), (x < vec4<f32>(0.0)))")
        );
        let sigmoid = UnaryOp::find("Sigmoid").unwrap();
        assert_eq!(body_wgsl(sigmoid, &defaults(sigmoid)).as_deref(), Some("(1.0 / (1.0 + exp(-x)))"));
        let celu = UnaryOp::find("Celu").unwrap();
        let celu_body = body_wgsl(celu, &defaults(celu)).unwrap();
        assert!(
            celu_body.contains("exp(((x / vec4<f32>(a.x))))") && celu_body.starts_with("(vec4<f32>(a.x) * select("),
            "{celu_body}"
        );
        let gelu = UnaryOp::find("Gelu").unwrap();
        let forms: Vec<String> = gelu.kernel_variants().iter().map(|(_, a, _)| body_wgsl(gelu, a).unwrap()).collect();
        assert!(forms[0].contains("erf_as") && !forms[0].contains("tanh"), "{}", forms[0]);
        assert!(forms[1].contains("tanh") && forms[1].contains("(x * x * x)"), "{}", forms[1]);
    }
}

//! Writes an ONNX model of many distinct fused chains, and its inputs: every sequence of
//! LeakyRelu and Elu of length 1 to `--max-length` (510 chains at 8) on one input per dtype.
//! `wgpu-act run` plans each sequence as one fused kernel, so the model measures what preparing
//! a kernel costs on the host (WGSL, naga, the pipeline) and in the driver.
//! `cargo xtask host-cost` times it, cold and warm.
//!
//! ```text
//! cargo run --release --features onnx --example chain_model -- DIR [--dtypes f32,f16,bf16,f64] [--max-length 8] [--elements 4096]
//! wgpu-act run DIR/model.onnx --input X_f32=DIR/X_f32.pb ... --output DIR/out
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use prost::Message;
use wgpu_activations::DType;
use wgpu_activations::onnx::HostTensor;
use wgpu_activations::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto, ValueInfoProto,
    attribute_proto::AttributeType, tensor_shape_proto, type_proto,
};

/// The opset the model imports: the first where both operators take bf16.
const OPSET: i64 = 22;

struct Options {
    dir: PathBuf,
    dtypes: Vec<DType>,
    max_length: u32,
    elements: usize,
}

fn main() -> ExitCode {
    match parse(std::env::args().skip(1).collect()).and_then(|options| write(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chain_model: {error}");
            ExitCode::from(2)
        }
    }
}

fn parse(args: Vec<String>) -> Result<Options, String> {
    let mut options = Options { dir: PathBuf::new(), dtypes: vec![DType::F32], max_length: 8, elements: 4096 };
    let mut dir = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--dtypes" => {
                options.dtypes = value("--dtypes")?
                    .split(',')
                    .map(|name| match DType::ALL.into_iter().find(|d| d.name() == name) {
                        Some(d @ (DType::F32 | DType::F16 | DType::BF16 | DType::F64)) => Ok(d),
                        _ => Err(format!("--dtypes: {name:?} is not one of f32, f16, bf16, f64")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--max-length" => {
                options.max_length = value("--max-length")?
                    .parse()
                    .ok()
                    .filter(|n| (1..=16).contains(n))
                    .ok_or("--max-length: a number from 1 to 16")?;
            }
            "--elements" => {
                options.elements = value("--elements")?
                    .parse()
                    .ok()
                    .filter(|n| (1..=1 << 24).contains(n))
                    .ok_or("--elements: a number from 1 to 2^24")?;
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            path if dir.is_none() => dir = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument {extra:?}")),
        }
    }
    options.dir = dir.ok_or("usage: chain_model DIR [--dtypes LIST] [--max-length N] [--elements N]")?;
    Ok(options)
}

fn write(options: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&options.dir).map_err(|e| format!("{}: {e}", options.dir.display()))?;
    let mut graph = GraphProto { name: Some("distinct_chains".into()), ..Default::default() };
    let mut run_args = Vec::new();
    for &dtype in &options.dtypes {
        let input = format!("X_{dtype}");
        let tensor = sample(dtype, options.elements).to_proto(&input);
        let code = tensor.data_type.unwrap_or_default();
        graph.input.push(value_info(&input, code, options.elements));
        let file = options.dir.join(format!("{input}.pb"));
        std::fs::write(&file, tensor.encode_to_vec()).map_err(|e| format!("{}: {e}", file.display()))?;
        run_args.push(format!("--input {input}={}", file.display()));
        for length in 1..=options.max_length {
            for pattern in 0..1u32 << length {
                let name = |step: u32| format!("{dtype}_{length}_{pattern}_{step}");
                for step in 0..length {
                    let from = if step == 0 { input.clone() } else { name(step - 1) };
                    graph.node.push(if pattern >> step & 1 == 0 {
                        node("LeakyRelu", from, name(step), 0.01 + 0.001 * f64::from(step))
                    } else {
                        node("Elu", from, name(step), 1.0 - 0.05 * f64::from(step))
                    });
                }
                graph.output.push(value_info(&name(length - 1), code, options.elements));
            }
        }
    }
    let chains = graph.output.len();
    let model = ModelProto {
        ir_version: Some(10),
        producer_name: Some("wgpu-activations chain_model".into()),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(OPSET) }],
        graph: Some(graph),
        ..Default::default()
    };
    let path = options.dir.join("model.onnx");
    std::fs::write(&path, model.encode_to_vec()).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{chains} chains: {}", path.display());
    println!("wgpu-act run {} {} --output {}", path.display(), run_args.join(" "), options.dir.join("out").display());
    Ok(())
}

fn node(op: &str, input: String, output: String, alpha: f64) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(output.clone()),
        input: vec![input],
        output: vec![output],
        attribute: vec![AttributeProto {
            name: Some("alpha".into()),
            r#type: Some(AttributeType::Float as i32),
            f: Some(alpha as f32),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn value_info(name: &str, elem_type: i32, elements: usize) -> ValueInfoProto {
    let dim = |n: usize| tensor_shape_proto::Dimension {
        value: Some(tensor_shape_proto::dimension::Value::DimValue(n as i64)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem_type),
                shape: Some(TensorShapeProto { dim: vec![dim(1), dim(elements)] }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Values from -8 to 8, negative and positive alike, so that every branch of both operators runs.
fn sample(dtype: DType, elements: usize) -> HostTensor {
    fn array<T>(elements: usize, convert: impl Fn(f64) -> T) -> ArrayD<T> {
        let values = (0..elements).map(|i| convert(16.0 * (i as f64 + 0.5) / elements as f64 - 8.0)).collect();
        ArrayD::from_shape_vec(IxDyn(&[1, elements]), values).expect("the shape holds every value")
    }
    match dtype {
        DType::F16 => HostTensor::F16(array(elements, f16::from_f64)),
        DType::BF16 => HostTensor::BF16(array(elements, bf16::from_f64)),
        DType::F64 => HostTensor::F64(array(elements, |v| v)),
        _ => HostTensor::F32(array(elements, |v| v as f32)),
    }
}

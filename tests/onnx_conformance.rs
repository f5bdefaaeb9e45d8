//! ONNX conformance: every committed case under tests/data/onnx/*/* runs through the code path
//! of `wgpu-act onnx-test` and must pass; plus loader robustness and graph-runner behaviour.

mod common;
#[path = "common/onnx.rs"]
mod onnx_graphs;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use ndarray::{ArrayD, IxDyn};
use onnx_graphs::typed_value;
use prost::Message;
use wgpu_activations::DType;
use wgpu_activations::onnx::conformance::{Outcome, run_case};
use wgpu_activations::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, ValueInfoProto,
};
use wgpu_activations::onnx::{HostTensor, OnnxError, OnnxModel, allows, op_version};

fn case_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/onnx");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|suite| suite.path().is_dir())
        .flat_map(|suite| std::fs::read_dir(suite.path()).into_iter().flatten().flatten())
        .map(|case| case.path())
        .filter(|p| p.join("model.onnx").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_committed_case_passes() {
    let ctx = gpu_or_skip!();
    let dirs = case_dirs();
    assert!(dirs.len() >= 30, "expected the committed ONNX cases under tests/data/onnx, found {}", dirs.len());
    let mut table: BTreeMap<(String, u32, String), (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    // The cases on every core, each thread taking every n-th: on SwiftShader, which compiles a
    // kernel in up to 2 s, one thread took 97 s, the longest test of its step.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(dirs.len().max(1));
    let mut reports: Vec<Option<_>> = (0..dirs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let dirs = &dirs;
                scope.spawn(move || {
                    (first..dirs.len()).step_by(threads).map(|i| (i, run_case(ctx, &dirs[i], None))).collect::<Vec<_>>()
                })
            })
            .collect();
        for worker in workers {
            for (i, report) in worker.join().expect("a conformance thread panicked") {
                reports[i] = Some(report);
            }
        }
    });
    for report in reports.into_iter().map(|report| report.expect("every case ran")) {
        println!("{report}");
        let pass = report.outcome == Outcome::Pass;
        if !pass {
            failures.push(report.to_string());
        }
        let dtype = report.dtype.map_or("?".to_string(), |d| d.onnx_name().to_string());
        let mut ops: Vec<(&str, u32)> = report.operators.clone();
        ops.sort();
        ops.dedup();
        for (op, version) in ops {
            let entry = table.entry((op.to_string(), version, dtype.clone())).or_default();
            entry.0 += usize::from(pass);
            entry.1 += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {} cases did not pass:\n{}", failures.len(), dirs.len(), failures.join("\n"));
    common::check_generated_block("README.md", "conformance table", &conformance_table(&table));
}

/// README's conformance table: cases passed / cases, per operator version and dtype.
fn conformance_table(counts: &BTreeMap<(String, u32, String), (usize, usize)>) -> String {
    let mut table = String::from("| op | version |");
    for dtype in DType::ALL {
        table.push_str(&format!(" {} |", dtype.onnx_name()));
    }
    table.push_str(&format!("\n|---|---|{}", "---|".repeat(DType::ALL.len())));
    let mut versions: Vec<(&str, u32)> = counts.keys().map(|(op, version, _)| (op.as_str(), *version)).collect();
    versions.dedup();
    for (op, version) in versions {
        table.push_str(&format!("\n| {op} | {version} |"));
        for dtype in DType::ALL {
            let cell = counts.get(&(op.to_string(), version, dtype.onnx_name().to_string()));
            table.push_str(&cell.map_or(" - |".to_string(), |(pass, total)| format!(" {pass}/{total} |")));
        }
    }
    table
}

fn attribute_float(name: &str, value: f32) -> AttributeProto {
    AttributeProto { name: Some(name.into()), f: Some(value), r#type: Some(1), ..Default::default() }
}

fn node(op: &str, inputs: &[&str], output: &str, attributes: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: Some(format!("{op}_{output}")),
        attribute: attributes,
        ..Default::default()
    }
}

/// A graph value declared as a float tensor.
fn value(name: &str) -> ValueInfoProto {
    typed_value(name, 1)
}

/// A Constant node holding the float `value`.
fn constant(name: &str, value: f32) -> NodeProto {
    NodeProto {
        op_type: Some("Constant".into()),
        output: vec![name.into()],
        attribute: vec![attribute_float("value_float", value)],
        ..Default::default()
    }
}

/// LeakyRelu's function body, `Y = Where(Less(X, zero), Mul(factor, X), X)`, after the nodes
/// of `prelude` (which make `zero`, and `factor` unless it is X), as a model of `opset`.
fn where_expansion(opset: i64, mut prelude: Vec<NodeProto>, zero: &str, factor: &str) -> ModelProto {
    prelude.push(node("Less", &["X", zero], "L", vec![]));
    prelude.push(node("Mul", &[factor, "X"], "M", vec![]));
    prelude.push(node("Where", &["L", "M", "X"], "Y", vec![]));
    model(opset, prelude, &["X"], &["Y"], vec![])
}

fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: &[&str],
    outputs: &[&str],
    initializers: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(opset) }],
        graph: Some(GraphProto {
            node: nodes,
            input: inputs.iter().map(|n| value(n)).collect(),
            output: outputs.iter().map(|n| value(n)).collect(),
            initializer: initializers,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn f32_tensor(shape: &[usize], values: Vec<f32>) -> HostTensor {
    HostTensor::F32(ArrayD::from_shape_vec(IxDyn(shape), values).unwrap())
}

#[test]
fn operator_versions_and_type_constraints_follow_the_spec() {
    assert_eq!(op_version("LeakyRelu", 15), Some(6));
    assert_eq!(op_version("LeakyRelu", 16), Some(16));
    assert_eq!(op_version("Elu", 21), Some(6));
    assert_eq!(op_version("Elu", 22), Some(22));
    assert_eq!(op_version("PRelu", 8), Some(7));
    assert_eq!(op_version("PRelu", 0), None);
    assert!(!allows("LeakyRelu", 6, DType::BF16) && allows("LeakyRelu", 16, DType::BF16));
    assert!(!allows("Elu", 16, DType::BF16) && allows("Elu", 22, DType::BF16));
    assert!(!allows("PRelu", 7, DType::I32) && allows("PRelu", 9, DType::I64));
    assert!(!allows("PRelu", 9, DType::BF16) && allows("PRelu", 16, DType::BF16));
    assert!(!allows("Elu", 22, DType::I32));
}

#[test]
fn a_dag_runs_with_fused_chains_and_matches_the_reference() {
    let ctx = gpu_or_skip!();
    // X -> LeakyRelu -> A -> Elu -> B -> LeakyRelu -> C (fused: A has one consumer... no: two)
    //                  A -> PRelu(slope) -> D
    let nodes = vec![
        node("LeakyRelu", &["X"], "A", vec![attribute_float("alpha", 0.2)]),
        node("Elu", &["A"], "B", vec![]),
        node("LeakyRelu", &["B"], "C", vec![attribute_float("alpha", 3.0)]),
        node("PRelu", &["A", "S"], "D", vec![]),
    ];
    let slope = f32_tensor(&[3, 1], vec![0.5, -1.0, 2.0]).to_proto("S");
    let proto = model(16, nodes, &["X"], &["C", "D"], vec![slope]);
    let model = OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap();
    assert_eq!(model.step_count(), 3, "Elu and the LeakyRelu after it fuse into one step");
    let x: Vec<f32> = (0..3 * 7).map(|i| i as f32 * 0.37 - 4.0).collect();
    let feeds = HashMap::from([("X".to_string(), f32_tensor(&[3, 7], x))]);
    let gpu = model.run(ctx, &feeds).unwrap();
    let cpu = model.run_reference(&feeds).unwrap();
    assert_eq!(gpu.len(), 2);
    for ((name, g), (_, c)) in gpu.iter().zip(&cpu) {
        let (HostTensor::F32(g), HostTensor::F32(c)) = (g, c) else { panic!("dtype") };
        for (a, b) in g.iter().zip(c) {
            assert!(wgpu_activations::ulp::within_ulp(*a, *b, 2), "{name}: {a} vs {b}");
        }
    }
}

#[test]
fn refuses_other_operators_and_broken_graphs_with_errors() {
    let conv = model(13, vec![node("Conv", &["X", "W"], "Y", vec![])], &["X", "W"], &["Y"], vec![]);
    match OnnxModel::from_bytes(&conv.encode_to_vec()) {
        Err(OnnxError::UnsupportedOp { op, .. }) => assert_eq!(op, "Conv"),
        other => panic!("expected OnnxUnsupportedOp, got {other:?}"),
    }
    let cycle =
        model(16, vec![node("Elu", &["B"], "A", vec![]), node("Elu", &["A"], "B", vec![])], &["X"], &["B"], vec![]);
    assert!(matches!(OnnxModel::from_bytes(&cycle.encode_to_vec()), Err(OnnxError::Graph(_))));
    let missing = model(16, vec![node("Elu", &["Z"], "Y", vec![])], &["X"], &["Y"], vec![]);
    assert!(matches!(OnnxModel::from_bytes(&missing.encode_to_vec()), Err(OnnxError::Graph(_))));
    // bf16 LeakyRelu at opset 15 is refused naming op, version and dtype.
    let Some(ctx) = common::ctx() else { return };
    let mut proto = model(15, vec![node("LeakyRelu", &["X"], "Y", vec![])], &["X"], &["Y"], vec![]);
    if let Some(graph) = proto.graph.as_mut() {
        graph.input = vec![typed_value("X", 16)];
    }
    let leaky = OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap();
    let x = HostTensor::BF16(ArrayD::from_elem(IxDyn(&[2]), half::bf16::ONE));
    let message = leaky.run(ctx, &HashMap::from([("X".to_string(), x)])).unwrap_err().to_string();
    assert!(message.contains("LeakyRelu") && message.contains("opset 6") && message.contains("bf16"), "{message}");
}

#[test]
fn malformed_and_truncated_files_are_errors_not_panics() {
    let good = model(16, vec![node("Elu", &["X"], "Y", vec![])], &["X"], &["Y"], vec![]).encode_to_vec();
    for cut in [1, good.len() / 3, good.len() / 2, good.len() - 1] {
        let _ = OnnxModel::from_bytes(&good[..cut]); // an error or a smaller valid model; never a panic
    }
    assert!(OnnxModel::from_bytes(b"\xff\xff\xff\xff not protobuf").is_err());
    let tensor = f32_tensor(&[2, 3], vec![1.0; 6]).encode_pb("t");
    assert!(HostTensor::decode_pb(&tensor[..tensor.len() - 3]).is_err());
    // Dims that disagree with the data, negative dims and an overflowing element count.
    let mut proto = TensorProto::decode(tensor.as_slice()).unwrap();
    proto.dims = vec![4, 3];
    assert!(matches!(HostTensor::from_proto(&proto), Err(OnnxError::Malformed(_))));
    proto.dims = vec![-1, 6];
    assert!(matches!(HostTensor::from_proto(&proto), Err(OnnxError::Malformed(_))));
    proto.dims = vec![i64::MAX, i64::MAX];
    assert!(matches!(HostTensor::from_proto(&proto), Err(OnnxError::Malformed(_))));
    proto.data_type = Some(8); // STRING
    assert!(matches!(HostTensor::from_proto(&proto), Err(OnnxError::UnsupportedDataType { .. })));
}

#[test]
fn typed_storage_fields_decode_like_raw_data() {
    let bits = [0x3c00i32, 0xbc00, 0x7e00]; // f16 1.0, -1.0, NaN in int32_data
    let proto = TensorProto { data_type: Some(10), dims: vec![3], int32_data: bits.to_vec(), ..Default::default() };
    let HostTensor::F16(a) = HostTensor::from_proto(&proto).unwrap() else { panic!("dtype") };
    assert_eq!(a[[0]].to_f32(), 1.0);
    assert!(a[[2]].is_nan());
    let proto = TensorProto {
        data_type: Some(12),
        dims: vec![2],
        uint64_data: vec![7, u64::from(u32::MAX)],
        ..Default::default()
    };
    assert_eq!(
        HostTensor::from_proto(&proto).unwrap(),
        HostTensor::U32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![7, u32::MAX]).unwrap())
    );
    let proto = TensorProto { data_type: Some(12), dims: vec![1], uint64_data: vec![1 << 40], ..Default::default() };
    assert!(HostTensor::from_proto(&proto).is_err(), "a uint32 value out of range is refused");
    let round_trip = f32_tensor(&[2, 2], vec![1.0, -0.0, f32::INFINITY, 3.5]);
    assert_eq!(HostTensor::decode_pb(&round_trip.encode_pb("r")).unwrap(), round_trip);
}

#[test]
fn expected_data_from_the_literal_formula_is_judged_against_the_correctly_rounded_result() {
    let ctx = gpu_or_skip!();
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/onnx/node/test_elu");
    let dir = std::env::temp_dir().join(format!("wgpu-act-literal-elu-{}", std::process::id()));
    let case = dir.join("test_elu_literal");
    std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
    std::fs::copy(source.join("model.onnx"), case.join("model.onnx")).unwrap();
    // Inputs near 0, where exp(x) - 1 in float32 keeps few correct digits.
    let values: Vec<f32> = (0..60).map(|i| -(1e-4f64 * 1.15f64.powi(i)) as f32).collect();
    let x = ArrayD::from_shape_vec(IxDyn(&[3, 4, 5]), values).unwrap();
    std::fs::write(case.join("test_data_set_0/input_0.pb"), HostTensor::F32(x.clone()).encode_pb("x")).unwrap();
    let write_expected = |f: &dyn Fn(f32) -> f32| {
        let y = HostTensor::F32(x.mapv(|v| if v < 0.0 { f(v) } else { v }));
        std::fs::write(case.join("test_data_set_0/output_0.pb"), y.encode_pb("y")).unwrap();
    };
    // onnx <= 1.22 generated test_elu as (exp(x) - 1) * 2 in float32.
    write_expected(&|v| (v.exp() - 1.0) * 2.0);
    let report = run_case(ctx, &case, None);
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.inexact_expected > 0, "the literal formula is off for some of these inputs: {report}");
    assert!(report.max_ulp_vs_reference <= 2, "{report}");
    // An expected output 1% off is not a rounding artefact: FAIL.
    write_expected(&|v| v.exp_m1() * 2.0 * 1.01);
    let report = run_case(ctx, &case, None);
    assert!(matches!(report.outcome, Outcome::Fail(_)), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_expansions_are_refused_without_recursing_forever() {
    // A CastLike feeding itself, used as the zero of an expansion: a loop, not a constant.
    let looped = where_expansion(18, vec![node("CastLike", &["Zc", "X"], "Zc", vec![])], "Zc", "X");
    assert!(OnnxModel::from_bytes(&looped.encode_to_vec()).is_err());
    // A very long acyclic CastLike chain is walked only so far, then refused by name.
    let mut nodes = vec![constant("c0", 0.0)];
    for i in 0..100_000 {
        nodes.push(node("CastLike", &[&format!("c{i}"), "X"], &format!("c{}", i + 1), vec![]));
    }
    let long = where_expansion(18, nodes, "c100000", "X");
    assert!(matches!(OnnxModel::from_bytes(&long.encode_to_vec()), Err(OnnxError::UnsupportedOp { .. })));
    // 100k chained Elu nodes schedule in linear time and fuse into chains of at most 8.
    let mut chain = Vec::new();
    for i in 0..100_000 {
        chain.push(node("Elu", &[&format!("v{i}")], &format!("v{}", i + 1), vec![]));
    }
    let deep = model(22, chain, &["v0"], &["v100000"], vec![]);
    let planned = OnnxModel::from_bytes(&deep.encode_to_vec()).unwrap();
    assert_eq!(planned.step_count(), 100_000usize.div_ceil(8));
}

#[test]
fn legacy_prelu_takes_shared_and_per_channel_slopes() {
    let ctx = gpu_or_skip!();
    for slope_shape in [vec![1usize], vec![1, 1], vec![3], vec![3, 1, 1]] {
        let n: usize = slope_shape.iter().product();
        let slope = f32_tensor(&slope_shape, (0..n).map(|i| 0.5 + i as f32).collect()).to_proto("S");
        let proto = model(6, vec![node("PRelu", &["X", "S"], "Y", vec![])], &["X"], &["Y"], vec![slope]);
        let model = OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap();
        let feeds =
            HashMap::from([("X".to_string(), f32_tensor(&[2, 3, 4, 5], (0..120).map(|i| i as f32 - 60.0).collect()))]);
        let gpu = model.run(ctx, &feeds).unwrap();
        assert_eq!(gpu, model.run_reference(&feeds).unwrap(), "slope {slope_shape:?}");
    }
}

#[test]
fn models_onnx_runtime_refuses_are_refused() {
    let refused = |what: &str, proto: ModelProto| {
        let outcome = OnnxModel::from_bytes(&proto.encode_to_vec());
        assert!(outcome.is_err(), "{what} was accepted");
    };
    refused("a model with no outputs", model(16, vec![node("Elu", &["X"], "Y", vec![])], &["X"], &[], vec![]));
    refused(
        "a value with two producers",
        model(
            16,
            vec![node("Elu", &["X"], "Y", vec![]), node("LeakyRelu", &["X"], "Y", vec![])],
            &["X"],
            &["Y"],
            vec![],
        ),
    );
    let mut untyped = model(16, vec![node("Elu", &["X"], "Y", vec![])], &["X"], &["Y"], vec![]);
    if let Some(graph) = untyped.graph.as_mut() {
        graph.input = vec![ValueInfoProto { name: Some("X".into()), ..Default::default() }];
    }
    refused("an input without a declared dtype", untyped);
    let int_alpha = AttributeProto { name: Some("alpha".into()), i: Some(1), r#type: Some(2), ..Default::default() };
    refused("an INT alpha", model(16, vec![node("LeakyRelu", &["X"], "Y", vec![int_alpha])], &["X"], &["Y"], vec![]));
    // Gelu's approximate is a STRING among "none" and "tanh": anything else is refused, naming
    // the attribute and the values allowed.
    let gelu =
        |attribute: AttributeProto| model(20, vec![node("Gelu", &["X"], "Y", vec![attribute])], &["X"], &["Y"], vec![]);
    let string = |text: &str| AttributeProto {
        name: Some("approximate".into()),
        s: Some(text.as_bytes().to_vec()),
        r#type: Some(3),
        ..Default::default()
    };
    for (what, attribute) in [
        ("approximate = \"erf\"", string("erf")),
        ("approximate = \"Tanh\"", string("Tanh")),
        ("a FLOAT approximate", attribute_float("approximate", 1.0)),
    ] {
        match OnnxModel::from_bytes(&gelu(attribute).encode_to_vec()) {
            Err(error) => {
                let message = error.to_string();
                assert!(message.contains("approximate") && message.contains(r#"one of "none", "tanh""#), "{message}")
            }
            Ok(_) => panic!("{what} was accepted"),
        }
    }
    for choice in ["none", "tanh"] {
        assert!(OnnxModel::from_bytes(&gelu(string(choice)).encode_to_vec()).is_ok(), "approximate = {choice:?}");
    }
    // LeakyRelu's function body expanded (Less, Mul, Where): accepted from opset 9, where Where
    // exists, refused before it.
    let expansion =
        |opset| where_expansion(opset, vec![constant("zero", 0.0), constant("alpha", 0.1)], "zero", "alpha");
    assert!(OnnxModel::from_bytes(&expansion(9).encode_to_vec()).is_ok(), "the opset-9 expansion is refused");
    refused("a Where expansion at opset 8", expansion(8));
    // An opset newer than the runner knows may have changed any operator.
    let newer = wgpu_activations::onnx::NEWEST_OPSET + 1;
    match OnnxModel::from_bytes(
        &model(newer, vec![node("Elu", &["X"], "Y", vec![])], &["X"], &["Y"], vec![]).encode_to_vec(),
    ) {
        Err(error) => assert!(error.to_string().contains(&format!("opset {newer}")), "{error}"),
        Ok(_) => panic!("a model of opset {newer} was accepted"),
    }
}

/// Every dtype a version of an operator does not allow but another does (int8 Relu at opset 13,
/// bfloat16 HardSwish at 14, ...) is refused when the model runs, naming the operator, the
/// version and the dtype.
#[test]
fn each_version_refuses_the_dtypes_it_does_not_allow() {
    let Some(ctx) = common::ctx() else { return };
    let mut refused = 0;
    for op in wgpu_activations::ops::UNARY_OPS {
        for version in op.versions {
            for dtype in DType::ALL.into_iter().filter(|d| op.accepts(*d) && !version.dtypes.contains(d)) {
                let x = zeros(dtype);
                let code = x.to_proto("X").data_type.unwrap_or_default();
                let nodes = vec![node(op.onnx_name, &["X"], "Y", vec![])];
                let mut proto = model(i64::from(version.since), nodes, &["X"], &["Y"], vec![]);
                if let Some(graph) = proto.graph.as_mut() {
                    graph.input = vec![typed_value("X", code)];
                }
                let loaded = OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap();
                let message = loaded.run(ctx, &HashMap::from([("X".to_string(), x)])).unwrap_err().to_string();
                let wanted = [op.onnx_name.to_string(), format!("opset {}", version.since), dtype.to_string()];
                assert!(wanted.iter().all(|w| message.contains(w.as_str())), "{message}");
                refused += 1;
            }
        }
    }
    assert!(refused >= 10, "{refused} refusals checked");
}

/// Clip's bounds from opset 11 are scalars of X's type, and the kernels take them as f32, an
/// integer's with a residual: as an initializer and as a Constant, int64 2^31 - 1 and uint64
/// 2^64 - 2^20 run exactly, and so do the types' largest values as max (an exporter's "no
/// bound", which no f32 holds), and 2^53 + 1, which f64 would round to 2^53; bounds no two f32
/// sum to run in full, in the bound's words (int64 2^53 + 2^25 + 1, uint64 2^63 + 2^31 + 1); 2^53
/// itself runs, and so do a double 0.1 and a double 1e300 (in full too).
#[test]
fn clip_bounds_no_f32_holds_run_exactly_or_are_refused_not_rounded() {
    let Some(ctx) = common::ctx() else { return };
    let clip_model = |x_code: i32, bound: HostTensor, as_constant: bool| {
        let max = bound.to_proto("max");
        let (mut nodes, initializers) = (Vec::new(), if as_constant { vec![] } else { vec![max.clone()] });
        if as_constant {
            let value =
                AttributeProto { name: Some("value".into()), t: Some(max), r#type: Some(4), ..Default::default() };
            nodes.push(NodeProto {
                op_type: Some("Constant".into()),
                output: vec!["max".into()],
                attribute: vec![value],
                ..Default::default()
            });
        }
        nodes.push(node("Clip", &["X", "", "max"], "Y", vec![]));
        let mut proto = model(13, nodes, &["X"], &["Y"], initializers);
        if let Some(graph) = proto.graph.as_mut() {
            graph.input = vec![typed_value("X", x_code)];
        }
        proto.encode_to_vec()
    };
    let scalar_i64 = |v: i64| HostTensor::I64(ArrayD::from_elem(IxDyn(&[]), v));
    let x = ArrayD::from_shape_vec(IxDyn(&[3]), vec![(1i64 << 53) + 1, 5, -(1i64 << 60)]).unwrap();
    let feeds = HashMap::from([("X".to_string(), HostTensor::I64(x.clone()))]);
    let int64 = zeros(DType::I64).to_proto("X").data_type.unwrap_or_default();
    let refusal = |outcome: Result<_, OnnxError>, what: &str, wanted: &str| {
        let message = outcome.err().unwrap_or_else(|| panic!("{what} was accepted")).to_string();
        assert!(message.contains(wanted), "{what}: {message}");
    };
    let double = zeros(DType::F64).to_proto("X").data_type.unwrap_or_default();
    let clipped = |code: i32, bound: HostTensor, feeds: &HashMap<String, HostTensor>, as_constant: bool| {
        let loaded = OnnxModel::from_bytes(&clip_model(code, bound, as_constant)).unwrap();
        let outputs = loaded.run(ctx, feeds).unwrap();
        outputs.into_iter().find(|(name, _)| name == "Y").map(|(_, y)| y)
    };
    let near = |centre: i64| (-20..20).map(move |d| centre.saturating_add(d));
    let wide: Vec<i64> = near(1 << 31).chain(near(1 << 53)).chain(near(i64::MAX)).chain(near(i64::MIN)).collect();
    let wide = ArrayD::from_shape_vec(IxDyn(&[wide.len()]), wide).unwrap();
    let wide_feeds = HashMap::from([("X".to_string(), HostTensor::I64(wide.clone()))]);
    let uint64 = zeros(DType::U64).to_proto("X").data_type.unwrap_or_default();
    let words: Vec<u64> =
        (0..40).map(|d| (u64::MAX << 20) - 20 + d).chain(u64::MAX - 9..=u64::MAX).chain(0..10).collect();
    let words = ArrayD::from_shape_vec(IxDyn(&[words.len()]), words).unwrap();
    let word_feeds = HashMap::from([("X".to_string(), HostTensor::U64(words.clone()))]);
    let scalar_u64 = |v: u64| HostTensor::U64(ArrayD::from_elem(IxDyn(&[]), v));
    // A bound of another type than X's is refused, as an initializer and as a Constant (an int64
    // 1 for a float X, which ONNX's type inference refuses too).
    let float = zeros(DType::F32).to_proto("X").data_type.unwrap_or_default();
    let floats = HashMap::from([("X".to_string(), zeros(DType::F32))]);
    for as_constant in [false, true] {
        let loaded = OnnxModel::from_bytes(&clip_model(float, scalar_i64(1), as_constant)).unwrap();
        let what = format!("an int64 bound of a float X, as a Constant: {as_constant}");
        refusal(loaded.run(ctx, &floats).map(|_| ()), &what, "must be float like X, not int64");
    }
    let tenths: Vec<f64> = (-3i64..=3).map(|d| f64::from_bits(0.1f64.to_bits().wrapping_add_signed(d))).collect();
    let tenths = ArrayD::from_shape_vec(IxDyn(&[tenths.len()]), tenths).unwrap();
    let tenth_feeds = HashMap::from([("X".to_string(), HostTensor::F64(tenths.clone()))]);
    let beyond_f32 = [2e300, 1e300, -5.0, f64::MAX, f64::from_bits(1e300f64.to_bits() - 1)];
    let beyond_f32 = ArrayD::from_shape_vec(IxDyn(&[beyond_f32.len()]), beyond_f32.to_vec()).unwrap();
    let beyond_feeds = HashMap::from([("X".to_string(), HostTensor::F64(beyond_f32.clone()))]);
    for as_constant in [false, true] {
        let bound = HostTensor::F64(ArrayD::from_elem(IxDyn(&[]), 1e300));
        let y = clipped(double, bound, &beyond_feeds, as_constant);
        let expected = beyond_f32.mapv(|v| if 1e300 < v { 1e300 } else { v });
        assert_eq!(y, Some(HostTensor::F64(expected)), "a double 1e300: {as_constant}");
        let tenth = HostTensor::F64(ArrayD::from_elem(IxDyn(&[]), 0.1));
        let y = clipped(double, tenth, &tenth_feeds, as_constant);
        assert_eq!(
            y,
            Some(HostTensor::F64(tenths.mapv(|v| if 0.1 < v { 0.1 } else { v }))),
            "a double 0.1: {as_constant}"
        );
        let y = clipped(int64, scalar_i64(1 << 53), &feeds, as_constant);
        assert_eq!(y, Some(HostTensor::I64(x.mapv(|v| v.min(1 << 53)))), "as a Constant: {as_constant}");
        for max in [(1 << 31) - 1, (1 << 53) + 1, i64::MAX, (1 << 53) + (1 << 25) + 1, -(1 << 53) - (1 << 31) - 1] {
            let y = clipped(int64, scalar_i64(max), &wide_feeds, as_constant);
            assert_eq!(y, Some(HostTensor::I64(wide.mapv(|v| v.min(max)))), "max {max}, as a Constant: {as_constant}");
        }
        for max in [u64::MAX << 20, u64::MAX, (1 << 63) + (1 << 31) + 1] {
            let y = clipped(uint64, scalar_u64(max), &word_feeds, as_constant);
            assert_eq!(y, Some(HostTensor::U64(words.mapv(|v| v.min(max)))), "max {max}, as a Constant: {as_constant}");
        }
    }
}

/// Two zeros of `dtype`.
fn zeros(dtype: DType) -> HostTensor {
    let shape = IxDyn(&[2]);
    match dtype {
        DType::BF16 => HostTensor::BF16(ArrayD::from_elem(shape, half::bf16::ZERO)),
        DType::F16 => HostTensor::F16(ArrayD::from_elem(shape, half::f16::ZERO)),
        DType::F32 => HostTensor::F32(ArrayD::zeros(shape)),
        DType::F64 => HostTensor::F64(ArrayD::zeros(shape)),
        DType::I8 => HostTensor::I8(ArrayD::zeros(shape)),
        DType::I16 => HostTensor::I16(ArrayD::zeros(shape)),
        DType::I32 => HostTensor::I32(ArrayD::zeros(shape)),
        DType::I64 => HostTensor::I64(ArrayD::zeros(shape)),
        DType::U8 => HostTensor::U8(ArrayD::zeros(shape)),
        DType::U16 => HostTensor::U16(ArrayD::zeros(shape)),
        DType::U32 => HostTensor::U32(ArrayD::zeros(shape)),
        _ => HostTensor::U64(ArrayD::zeros(shape)),
    }
}

/// Softsign's function body as a converter writes it at opset 6, `Div(X, Add(Abs(X), 1))` with
/// Add's operands the other way round, is Softsign: one step, equal to the reference.
#[test]
fn an_opset_6_body_with_operands_swapped_is_recognised() {
    let nodes = vec![
        constant("one", 1.0),
        node("Abs", &["X"], "A", vec![]),
        node("Add", &["A", "one"], "D", vec![]),
        node("Div", &["X", "D"], "Y", vec![]),
    ];
    let proto = model(6, nodes, &["X"], &["Y"], vec![]);
    let loaded = OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap();
    assert_eq!(loaded.operators(), vec![("Softsign", 1)]);
    let Some(ctx) = common::ctx() else { return };
    let feeds = HashMap::from([("X".to_string(), f32_tensor(&[5], vec![-3.0, -0.5, 0.0, 2.0, 1e30]))]);
    assert_eq!(loaded.run(ctx, &feeds).unwrap(), loaded.run_reference(&feeds).unwrap());
}

/// SwiGLU fuses with the nodes around it into one chain (its A the value passed on, its B a
/// graph input), and the chain's results stay within the model's bound of the reference, in f32
/// and in f64.
#[test]
fn swiglu_fuses_into_chains() {
    let ctx = gpu_or_skip!();
    let graph = |elem_type: i32| {
        let nodes = vec![
            node("Elu", &["X"], "E", vec![attribute_float("alpha", 0.5)]),
            node("SwiGLU", &["E", "B"], "G", vec![attribute_float("alpha", 1.702)]),
            node("Relu", &["G"], "Y", vec![]),
        ];
        let mut proto = model(28, nodes, &["X", "B"], &["Y"], vec![]);
        let graph = proto.graph.as_mut().unwrap();
        for v in graph.input.iter_mut().chain(graph.output.iter_mut()) {
            *v = typed_value(v.name.as_deref().unwrap(), elem_type);
        }
        OnnxModel::from_bytes(&proto.encode_to_vec()).unwrap()
    };
    let model = graph(1);
    assert_eq!(model.step_count(), 1, "Elu, SwiGLU and Relu run as one chain");
    let x: Vec<f32> = (0..4 * 33).map(|i| i as f32 * 0.29 - 19.0).collect();
    let b: Vec<f32> = (0..4 * 33).map(|i| (i % 13) as f32 * 0.7 - 4.0).collect();
    let feeds = HashMap::from([
        ("X".to_string(), f32_tensor(&[4, 33], x.clone())),
        ("B".to_string(), f32_tensor(&[4, 33], b.clone())),
    ]);
    let (gpu, cpu) = (model.run(ctx, &feeds).unwrap(), model.run_reference(&feeds).unwrap());
    let (HostTensor::F32(g), HostTensor::F32(c)) = (&gpu[0].1, &cpu[0].1) else { panic!("dtype") };
    let bound = model.ulp_bound(DType::F32);
    assert!(g.iter().any(|&v| v > 0.0), "some results are positive");
    for (a, b) in g.iter().zip(c) {
        assert!(wgpu_activations::ulp::within_ulp(*a, *b, bound), "{a} vs {b} ({bound} ULP)");
    }
    let doubles = |v: &[f32]| {
        HostTensor::F64(ArrayD::from_shape_vec(IxDyn(&[4, 33]), v.iter().map(|&v| f64::from(v)).collect()).unwrap())
    };
    let feeds = HashMap::from([("X".to_string(), doubles(&x)), ("B".to_string(), doubles(&b))]);
    let model = graph(11);
    assert_eq!(model.step_count(), 1, "f64 too runs as one chain");
    let (gpu, cpu) = (model.run(ctx, &feeds).unwrap(), model.run_reference(&feeds).unwrap());
    let (HostTensor::F64(g), HostTensor::F64(c)) = (&gpu[0].1, &cpu[0].1) else { panic!("dtype") };
    let bound = model.ulp_bound(DType::F64);
    for (a, b) in g.iter().zip(c) {
        assert!(wgpu_activations::ulp::within_ulp(*a, *b, bound), "{a} vs {b} ({bound} ULP)");
    }
}

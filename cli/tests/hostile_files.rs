//! Hostile and careless input: a corpus of broken `.npy`, `.pb` and ONNX files, generated here
//! (the corpus script is [`write_corpus`]), fed to the loaders in process and to `wgpu-act
//! apply`, `run` and `onnx-test`: an error value or exit status 2 with one line, never a panic,
//! and a small peak memory whatever a file claims. Also the CLI regressions of the reliability
//! issue: `--save-outputs` never writes over a case, colliding output names are all written,
//! `--alpha -inf`, and shapes beyond the kernels' rank. Last, randomly damaged copies of the
//! conformance models and inputs, run on the GPU against the CPU reference.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/common/onnx.rs"]
mod onnx_graphs;
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ndarray::{ArrayD, IxDyn};
use ndarray_npy::{read_npy, write_npy};
use onnx_graphs::typed_value;
use prost::Message;
use rand::{Rng, SeedableRng, rngs::StdRng};
use support::{TempDir, assert_bad_input, npy_bytes, p, ran_on_gpu, stderr, wgpu_act};
use wgpu_activations::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, tensor_proto,
};
use wgpu_activations::onnx::{HostTensor, OnnxModel};
use wgpu_activations::reference;

/// Peak resident memory a rejected file may cost the CLI (a GPU context included).
const MAX_PEAK_MIB: u64 = 400;

fn node(op: &str, inputs: &[&str], output: &str) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: Some(format!("{op}_{output}")),
        ..Default::default()
    }
}

fn model(nodes: Vec<NodeProto>, outputs: &[&str], initializers: Vec<TensorProto>) -> ModelProto {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(16) }],
        graph: Some(GraphProto {
            node: nodes,
            input: vec![typed_value("X", 1)],
            output: outputs.iter().map(|n| typed_value(n, 1)).collect(),
            initializer: initializers,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn f32_proto(name: &str, dims: Vec<i64>, raw: Vec<u8>) -> TensorProto {
    TensorProto { name: Some(name.into()), dims, data_type: Some(1), raw_data: Some(raw), ..Default::default() }
}

/// What a corpus file is, which decides how it is fed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Npy,
    Tensor,
    Model,
}

/// The corpus script: writes every hostile file into `dir` and returns them with their kind.
/// Each is malformed, truncated, random, claims far more data than it has, overflows, points
/// outside itself, or builds a graph no runtime accepts.
fn write_corpus(dir: &Path) -> Vec<(PathBuf, Kind)> {
    let mut files = Vec::new();
    let mut put = |name: &str, kind: Kind, bytes: Vec<u8>| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write corpus file");
        files.push((path, kind));
    };
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                random as u8
            })
            .collect()
    };
    // .npy
    let good = npy_bytes("<f4", "(4,)", &[0; 16]);
    put("empty.npy", Kind::Npy, Vec::new());
    put("magic-only.npy", Kind::Npy, good[..6].to_vec());
    put("truncated-header.npy", Kind::Npy, good[..20].to_vec());
    put("truncated-data.npy", Kind::Npy, good[..good.len() - 3].to_vec());
    put("random.npy", Kind::Npy, noise(4096));
    put("huge-declared.npy", Kind::Npy, npy_bytes("<f4", "(1099511627776,)", &[0; 16]));
    put("overflowing-dims.npy", Kind::Npy, npy_bytes("<f4", "(18446744073709551615, 18446744073709551615)", &[]));
    put("zero-by-max.npy", Kind::Npy, npy_bytes("<f4", "(0, 18446744073709551615)", &[]));
    put("isize-overflow.npy", Kind::Npy, npy_bytes("<f4", "(0, 9223372036854775808)", &[]));
    put("negative-dim.npy", Kind::Npy, npy_bytes("<f4", "(-4,)", &[0; 16]));
    put("unclosed-shape.npy", Kind::Npy, npy_bytes("<f4", "(4,", &[0; 16]));
    put("string-dtype.npy", Kind::Npy, npy_bytes("<U4", "(4,)", &[0; 64]));
    put("object-dtype.npy", Kind::Npy, npy_bytes("|O", "(1,)", &[0; 8]));
    put("nested-header.npy", Kind::Npy, npy_bytes("<f4", &format!("{}4,{}", "(".repeat(500), ")".repeat(500)), &[]));
    let mut long_header = b"\x93NUMPY\x02\x00".to_vec();
    long_header.extend_from_slice(&u32::MAX.to_le_bytes());
    long_header.extend_from_slice(b"{'descr': '<f4'");
    put("header-length-past-end.npy", Kind::Npy, long_header);
    // TensorProto .pb
    let tensor = f32_proto("t", vec![2, 3], vec![0; 24]).encode_to_vec();
    put("truncated.pb", Kind::Tensor, tensor[..tensor.len() - 5].to_vec());
    put("random.pb", Kind::Tensor, noise(4096));
    put("huge-dims.pb", Kind::Tensor, f32_proto("t", vec![1 << 40], vec![0; 24]).encode_to_vec());
    put("overflowing-dims.pb", Kind::Tensor, f32_proto("t", vec![i64::MAX, i64::MAX], vec![]).encode_to_vec());
    put("negative-dims.pb", Kind::Tensor, f32_proto("t", vec![-1, 6], vec![0; 24]).encode_to_vec());
    put("raw-data-too-short.pb", Kind::Tensor, f32_proto("t", vec![2, 3], vec![0; 23]).encode_to_vec());
    put("raw-data-too-long.pb", Kind::Tensor, f32_proto("t", vec![2, 3], vec![0; 25]).encode_to_vec());
    let external = TensorProto {
        data_location: Some(tensor_proto::DataLocation::External as i32),
        external_data: vec![wgpu_activations::onnx::proto::StringStringEntryProto {
            key: Some("location".into()),
            value: Some("../../../../etc/passwd".into()),
        }],
        raw_data: None,
        ..f32_proto("t", vec![2, 3], Vec::new())
    };
    put("external-data.pb", Kind::Tensor, external.encode_to_vec());
    // A length prefix claiming 2 GiB for raw_data (field 9, wire type 2) with 4 bytes behind it.
    let mut claims = vec![0x08, 0x02, 0x4a, 0x80, 0x80, 0x80, 0x80, 0x08];
    claims.extend_from_slice(&[0; 4]);
    put("length-prefix-claims-2gib.pb", Kind::Tensor, claims);
    // ONNX models
    let leaky = model(vec![node("LeakyRelu", &["X"], "Y")], &["Y"], vec![]).encode_to_vec();
    put("truncated.onnx", Kind::Model, leaky[..leaky.len() / 2].to_vec());
    put("random.onnx", Kind::Model, noise(8192));
    let cycle = model(vec![node("Elu", &["B"], "A"), node("Elu", &["A"], "B")], &["B"], vec![]);
    put("cycle.onnx", Kind::Model, cycle.encode_to_vec());
    let self_loop = model(vec![node("Elu", &["X"], "A"), node("PRelu", &["A", "A2"], "A2")], &["A2"], vec![]);
    put("self-loop.onnx", Kind::Model, self_loop.encode_to_vec());
    let huge_slope = f32_proto("S", vec![1 << 40], vec![0; 16]);
    let huge_init = model(vec![node("PRelu", &["X", "S"], "Y")], &["Y"], vec![huge_slope]);
    put("huge-initializer.onnx", Kind::Model, huge_init.encode_to_vec());
    let short_slope = f32_proto("S", vec![4], vec![0; 15]);
    let short_init = model(vec![node("PRelu", &["X", "S"], "Y")], &["Y"], vec![short_slope]);
    put("wrong-raw-data-length.onnx", Kind::Model, short_init.encode_to_vec());
    let external_slope = TensorProto { raw_data: None, ..external };
    let external_init = model(
        vec![node("PRelu", &["X", "S"], "Y")],
        &["Y"],
        vec![TensorProto { name: Some("S".into()), ..external_slope }],
    );
    put("external-initializer.onnx", Kind::Model, external_init.encode_to_vec());
    let duplicate = model(vec![node("Elu", &["X"], "Y"), node("LeakyRelu", &["X"], "Y")], &["Y"], vec![]);
    put("duplicate-producer.onnx", Kind::Model, duplicate.encode_to_vec());
    put("no-outputs.onnx", Kind::Model, model(vec![node("Elu", &["X"], "Y")], &[], vec![]).encode_to_vec());
    let int_alpha = NodeProto {
        attribute: vec![AttributeProto {
            name: Some("alpha".into()),
            i: Some(2),
            r#type: Some(2),
            ..Default::default()
        }],
        ..node("LeakyRelu", &["X"], "Y")
    };
    put("int-alpha.onnx", Kind::Model, model(vec![int_alpha], &["Y"], vec![]).encode_to_vec());
    files
}

/// Runs `wgpu-act` reporting its peak memory; returns the output and that peak in MiB.
fn wgpu_act_measured(args: &[&str]) -> (Output, u64) {
    let output = Command::new(env!("CARGO_BIN_EXE_wgpu-act"))
        .args(args)
        .env("WGPU_ACT_REPORT_PEAK_MEMORY", "1")
        .output()
        .expect("run wgpu-act");
    let err = stderr(&output);
    let kib: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("wgpu-act: peak resident memory: "))
        .and_then(|v| v.trim_end_matches(" KiB").parse().ok())
        .expect("wgpu-act reports its peak memory");
    (output, kib / 1024)
}

/// Exit status 2, one error line, no panic, small peak memory.
fn assert_refused(what: &str, args: &[&str]) {
    let (output, peak_mib) = wgpu_act_measured(args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{what}: expected exit 2, got {:?}:\n{err}", output.status);
    assert!(!err.contains("panicked"), "{what}: panicked:\n{err}");
    let lines = err.lines().filter(|l| l.starts_with("wgpu-act: error: ")).count();
    assert_eq!(lines, 1, "{what}: expected one error line:\n{err}");
    support::assert_error_line_is_last(&err);
    assert!(peak_mib <= MAX_PEAK_MIB, "{what}: peak memory {peak_mib} MiB > {MAX_PEAK_MIB} MiB");
}

#[test]
fn the_loaders_return_errors_for_every_corpus_file() {
    let tmp = TempDir::new("corpus-loaders");
    for (path, kind) in write_corpus(&tmp.0) {
        let bytes = std::fs::read(&path).expect("read corpus file");
        let outcome = match kind {
            Kind::Model => OnnxModel::from_bytes(&bytes).map(|_| ()).map_err(|e| e.to_string()),
            Kind::Tensor => HostTensor::decode_pb(&bytes).map(|_| ()).map_err(|e| e.to_string()),
            Kind::Npy => continue, // the .npy reader is the CLI's: fed through `apply` below
        };
        let message = outcome.expect_err(&format!("{} was accepted", path.display()));
        assert!(!message.is_empty() && !message.contains('\n'), "{}: {message:?}", path.display());
    }
}

#[test]
fn the_cli_refuses_every_corpus_file_with_exit_2_and_little_memory() {
    let tmp = TempDir::new("corpus-cli");
    let corpus = write_corpus(&tmp.0);
    let x = ArrayD::from_shape_vec(IxDyn(&[4]), vec![-1.0f32, 0.5, -0.25, 2.0]).expect("shape");
    write_npy(tmp.path("x.npy"), &x).expect("write x");
    let out = tmp.path("out");
    for (path, kind) in &corpus {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        match kind {
            Kind::Npy => {
                assert_refused(name, &["apply", "--op", "leaky-relu", p(path), p(&tmp.path("y.npy"))]);
                assert_refused(
                    &format!("{name} as slope"),
                    &["apply", "--op", "prelu", "--slope", p(path), p(&tmp.path("x.npy")), p(&tmp.path("y.npy"))],
                );
            }
            Kind::Tensor => {
                let good = tmp.0.join("case-leaky");
                std::fs::create_dir_all(&out).expect("mkdir");
                let model = model(vec![node("LeakyRelu", &["X"], "Y")], &["Y"], vec![]);
                std::fs::create_dir_all(good.join("test_data_set_0")).expect("mkdir");
                std::fs::write(good.join("model.onnx"), model.encode_to_vec()).expect("write model");
                let input = std::fs::read(path).expect("read");
                std::fs::write(good.join("test_data_set_0/input_0.pb"), input).expect("write input");
                assert_refused(
                    name,
                    &["run", p(&good.join("model.onnx")), "--input", &format!("X={}", p(path)), "--output", p(&out)],
                );
            }
            Kind::Model => {
                let spec = format!("X={}", p(&tmp.path("x.npy")));
                assert_refused(name, &["run", p(path), "--input", &spec, "--output", p(&out)]);
                let case = tmp.0.join(format!("case-{name}"));
                std::fs::create_dir_all(case.join("test_data_set_0")).expect("mkdir");
                std::fs::copy(path, case.join("model.onnx")).expect("copy model");
                let output = wgpu_act(&["onnx-test", p(&case)]);
                assert!(!stderr(&output).contains("panicked"), "{name}: onnx-test panicked");
                assert_eq!(output.status.code(), Some(2), "{name}: onnx-test exit {:?}", output.status);
            }
        }
    }
    // Nothing was written for any refused file.
    assert!(!tmp.path("y.npy").exists());
    assert!(std::fs::read_dir(&out).map_or(true, |mut d| d.next().is_none()), "run wrote outputs");
}

#[test]
fn device_files_and_folders_are_refused_before_reading() {
    let tmp = TempDir::new("special-files");
    if Path::new("/dev/zero").exists() {
        assert_refused("/dev/zero", &["apply", "--op", "elu", "/dev/zero", p(&tmp.path("y.npy"))]);
    }
    assert_refused("a folder", &["apply", "--op", "elu", p(&tmp.0), p(&tmp.path("y.npy"))]);
}

#[test]
fn npy_of_zero_by_max_dims_is_bad_input() {
    let tmp = TempDir::new("npy-zero-max");
    let path = tmp.path("x.npy");
    std::fs::write(&path, npy_bytes("<f4", "(0, 18446744073709551615)", &[])).expect("write");
    let output = wgpu_act(&["apply", "--op", "leaky-relu", p(&path), p(&tmp.path("y.npy"))]);
    assert_bad_input(&output, "shape");
}

/// A committed ONNX case copied into `dir`, its expected output replaced with a wrong one.
fn wrong_case(dir: &Path) -> PathBuf {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/onnx/node/test_leakyrelu");
    let case = dir.join("test_leakyrelu");
    std::fs::create_dir_all(case.join("test_data_set_0")).expect("mkdir");
    std::fs::copy(committed.join("model.onnx"), case.join("model.onnx")).expect("copy");
    let input = committed.join("test_data_set_0/input_0.pb");
    std::fs::copy(&input, case.join("test_data_set_0/input_0.pb")).expect("copy");
    // The input as the expected output: same dtype and shape, wrong values.
    std::fs::copy(&input, case.join("test_data_set_0/output_0.pb")).expect("copy");
    case
}

#[test]
fn save_outputs_never_writes_over_a_case_or_outside_its_folder() {
    let tmp = TempDir::new("save-outputs");
    let case = wrong_case(&tmp.0);
    let expected = case.join("test_data_set_0/output_0.pb");
    let before = std::fs::read(&expected).expect("read");
    // Saving into the folder that holds the case: refused or failed, never a PASS, and the
    // expected data stays as it was.
    for save in [tmp.0.clone(), case.clone(), case.join("test_data_set_0")] {
        let output = wgpu_act(&["onnx-test", p(&case), "--save-outputs", p(&save)]);
        let out = String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(&output);
        assert!(!output.status.success(), "a wrong case passed with --save-outputs {}:\n{out}", save.display());
        assert!(!out.contains("panicked"), "{out}");
        assert_eq!(
            std::fs::read(&expected).expect("read"),
            before,
            "--save-outputs {} overwrote the case",
            save.display()
        );
    }
    // A correct case written to another folder lands inside it, under the case's own name,
    // even when the case is named through `..`.
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/onnx/node/test_leakyrelu");
    let through_dots = committed.join("test_data_set_0/..");
    let save = tmp.path("saved");
    let output = wgpu_act(&["onnx-test", p(&through_dots), "--save-outputs", p(&save)]);
    if !ran_on_gpu(&output) {
        return;
    }
    assert!(save.join("test_leakyrelu/test_data_set_0/output_0.pb").is_file());
    assert!(!tmp.path("test_data_set_0").exists() && !tmp.path("output_0.pb").exists());
}

#[test]
fn run_writes_every_output_even_when_cleaned_names_collide() {
    let tmp = TempDir::new("run-collisions");
    let names = ["a_b", "a/b", "a_b_2", "a:b"];
    let nodes = names.iter().map(|n| node("LeakyRelu", &["X"], n)).collect();
    let path = tmp.path("model.onnx");
    std::fs::write(&path, model(nodes, &names, vec![]).encode_to_vec()).expect("write model");
    let x = ArrayD::from_shape_vec(IxDyn(&[5]), vec![-3.0f32, -0.0, 1.5, -7.25, f32::NAN]).expect("shape");
    write_npy(tmp.path("x.npy"), &x).expect("write x");
    let out = tmp.path("out");
    let spec = format!("X={}", p(&tmp.path("x.npy")));
    let output = wgpu_act(&["run", p(&path), "--input", &spec, "--output", p(&out)]);
    if !ran_on_gpu(&output) {
        return;
    }
    let files: Vec<PathBuf> = std::fs::read_dir(&out).expect("outputs").map(|e| e.expect("entry").path()).collect();
    assert_eq!(files.len(), names.len(), "outputs {files:?}");
    let want = reference::leaky_relu(x.view(), 0.01);
    let mut seen = Vec::new();
    for file in &files {
        let tensor = HostTensor::decode_pb(&std::fs::read(file).expect("read")).expect("decode");
        let HostTensor::F32(y) = tensor else { panic!("{} is not f32", file.display()) };
        common::assert_same_bits("run output", &y, &want);
        let decoded = TensorProto::decode(std::fs::read(file).expect("read").as_slice()).expect("proto");
        seen.push(decoded.name.unwrap_or_default());
    }
    seen.sort();
    let mut expected: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(seen, expected, "each file keeps its output's name");
}

#[test]
fn alpha_takes_negative_infinity_without_an_equals_sign() {
    let tmp = TempDir::new("alpha-inf");
    let x = ArrayD::from_shape_vec(IxDyn(&[4]), vec![-2.0f32, 0.0, 3.0, -0.0]).expect("shape");
    write_npy(tmp.path("x.npy"), &x).expect("write");
    let output =
        wgpu_act(&["apply", "--op", "leaky-relu", "--alpha", "-inf", p(&tmp.path("x.npy")), p(&tmp.path("y.npy"))]);
    if !ran_on_gpu(&output) {
        return;
    }
    let y: ArrayD<f32> = read_npy(tmp.path("y.npy")).expect("read y");
    common::assert_same_bits("alpha -inf", &y, &reference::leaky_relu(x.view(), f32::NEG_INFINITY));
}

#[test]
fn prelu_beyond_the_kernels_rank_is_computed_or_refused_as_a_shape() {
    let tmp = TempDir::new("prelu-rank");
    // Rank 17 whose broadcast dims alternate, so no two dims merge: 2^17 elements.
    let x_shape = vec![2usize; 17];
    let slope_shape: Vec<usize> = (0..17).map(|d| if d % 2 == 0 { 2 } else { 1 }).collect();
    let x = common::to_dyn(common::random_f32(1 << 17, 5), &x_shape);
    let slope = common::to_dyn(common::random_f32(1 << 9, 6), &slope_shape);
    write_npy(tmp.path("x.npy"), &x).expect("write");
    write_npy(tmp.path("s.npy"), &slope).expect("write");
    let output = wgpu_act(&[
        "apply",
        "--op",
        "prelu",
        "--slope",
        p(&tmp.path("s.npy")),
        p(&tmp.path("x.npy")),
        p(&tmp.path("y.npy")),
    ]);
    if output.status.code() == Some(2) {
        assert_bad_input(&output, "slope [2, 1, 2");
        return;
    }
    if !ran_on_gpu(&output) {
        return;
    }
    let y: ArrayD<f32> = read_npy(tmp.path("y.npy")).expect("read y");
    common::assert_same_bits("rank-17 prelu", &y, &reference::prelu(x.view(), slope.view()).expect("broadcasts"));
}

/// Every model of the conformance data with its first inputs, as files hold them.
fn conformance_cases() -> Vec<(String, Vec<u8>, Vec<Vec<u8>>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/onnx");
    let mut cases = Vec::new();
    for suite in ["node", "own", "pytorch-converted"] {
        let mut dirs: Vec<PathBuf> =
            std::fs::read_dir(root.join(suite)).expect("suite").map(|e| e.expect("entry").path()).collect();
        dirs.sort();
        for dir in dirs {
            let data = dir.join("test_data_set_0");
            let mut inputs: Vec<PathBuf> = std::fs::read_dir(&data)
                .expect("data set")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("input")))
                .collect();
            inputs.sort();
            let inputs = inputs.iter().map(|p| std::fs::read(p).expect("input")).collect();
            cases.push((dir.display().to_string(), std::fs::read(dir.join("model.onnx")).expect("model"), inputs));
        }
    }
    cases
}

/// One to four byte edits: bit flips, boundary bytes, truncation, insertion, deletion.
fn mutate(rng: &mut StdRng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=out.len());
        match rng.random_range(0..5) {
            0 if at < out.len() => out[at] ^= 1 << rng.random_range(0..8),
            1 if at < out.len() => out[at] = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff][rng.random_range(0..6)],
            2 => out.truncate(at),
            3 => out.insert(at, rng.random()),
            _ if at < out.len() => {
                out.remove(at);
            }
            _ => {}
        }
    }
    out
}

fn same_results(gpu: &HostTensor, reference: &HostTensor, max_ulp: u64) -> bool {
    fn within<T: wgpu_activations::Element>(a: &ArrayD<T>, b: &ArrayD<T>, max_ulp: u64) -> bool {
        a.shape() == b.shape() && a.iter().zip(b).all(|(&a, &b)| wgpu_activations::ulp::within_ulp(a, b, max_ulp))
    }
    match (gpu, reference) {
        (HostTensor::BF16(a), HostTensor::BF16(b)) => within(a, b, max_ulp),
        (HostTensor::F16(a), HostTensor::F16(b)) => within(a, b, max_ulp),
        (HostTensor::F32(a), HostTensor::F32(b)) => within(a, b, max_ulp),
        (HostTensor::F64(a), HostTensor::F64(b)) => within(a, b, max_ulp),
        (a, b) => a == b,
    }
}

/// Randomly damaged models and input tensors (seeded): decoding, planning and the CPU reference
/// return values, never panic; whatever the reference computes, the GPU computes too (where an
/// adapter exists), and the two agree within the model's ULP bound. 40,000 damaged cases in two
/// tests of 20,000 with their own seeds, which run side by side: as one they were the longest
/// test of the Vulkan step's suites.
fn damaged_models_and_inputs(seed: u64) {
    let ctx = common::ctx();
    let cases = conformance_cases();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut loaded, mut compared) = (0, 0);
    for _ in 0..20_000 {
        let (name, model, inputs) = &cases[rng.random_range(0..cases.len())];
        let damage_model = rng.random_bool(0.5);
        let model = if damage_model { mutate(&mut rng, model) } else { model.clone() };
        let inputs: Vec<Vec<u8>> = inputs
            .iter()
            .map(|b| if !damage_model || rng.random_bool(0.3) { mutate(&mut rng, b) } else { b.clone() })
            .collect();
        let Ok(parsed) = OnnxModel::from_bytes(&model) else { continue };
        loaded += 1;
        let feeds: std::collections::HashMap<String, HostTensor> = parsed
            .input_names()
            .iter()
            .zip(&inputs)
            .filter_map(|(n, b)| Some((n.clone(), HostTensor::decode_pb(b).ok()?)))
            .collect();
        let Ok(expected) = parsed.run_reference(&feeds) else { continue };
        let Some(ctx) = ctx else { continue };
        let actual = parsed.run(ctx, &feeds).unwrap_or_else(|e| panic!("{name}: the reference ran, the GPU: {e}"));
        assert_eq!(actual.len(), expected.len(), "{name}: outputs");
        for ((an, a), (en, e)) in actual.iter().zip(&expected) {
            assert_eq!(an, en, "{name}: output names");
            assert!(same_results(a, e, parsed.ulp_bound(e.dtype())), "{name}: output {an} differs from the reference");
        }
        compared += 1;
    }
    println!("loaded {loaded}, compared {compared}");
    // The damage must leave enough models loadable and runnable to mean something.
    assert!(loaded > 5_000 && (ctx.is_none() || compared > 1_000), "loaded {loaded}, compared {compared}");
}

#[test]
fn damaged_models_and_inputs_never_panic_and_the_gpu_agrees_with_the_reference() {
    damaged_models_and_inputs(7);
}

#[test]
fn more_damaged_models_and_inputs_never_panic_and_the_gpu_agrees_with_the_reference() {
    damaged_models_and_inputs(8);
}

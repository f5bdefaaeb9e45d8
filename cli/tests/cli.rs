//! The `wgpu-act` binary end to end: `info`, `apply` round trips checked against the CPU
//! reference, and the exit status and message of each kind of bad input.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::path::{Path, PathBuf};

use support::{TempDir, assert_bad_input, npy_bytes, p, ran_if_supported, ran_on_gpu, stderr, wgpu_act};

use half::f16;
use ndarray::{ArrayD, IxDyn};
use ndarray_npy::npy::header::Header;
use ndarray_npy::{read_npy, write_npy};
use wgpu_activations::{Activation, ELU_DEFAULT_ALPHA, Element, LEAKY_RELU_DEFAULT_ALPHA, ops, reference, ulp};

/// X of shape [4, 8, 16]: the f32 specials, then deterministic random values.
fn test_x() -> ArrayD<f32> {
    let mut values = common::f32_specials();
    values.extend(common::random_f32(4 * 8 * 16 - values.len(), 7));
    common::to_dyn(values, &[4, 8, 16])
}

fn assert_matches<T: Element>(what: &str, actual: &ArrayD<T>, expected: &ArrayD<T>, max_ulp: u64) {
    assert_eq!(actual.shape(), expected.shape(), "{what}: shape");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            ulp::within_ulp(*a, *e, max_ulp),
            "{what}: element {i}: wgpu-act {a:?}, reference {e:?} (> {max_ulp} ULP)"
        );
    }
}

#[test]
fn info_names_an_adapter() {
    let output = wgpu_act(&["info"]);
    if !ran_on_gpu(&output) {
        return;
    }
    let out = String::from_utf8_lossy(&output.stdout);
    let adapter = out.lines().find_map(|l| l.strip_prefix("adapter:")).map(str::trim);
    assert!(adapter.is_some_and(|name| !name.is_empty()), "no adapter line in:\n{out}");
    assert!(out.contains("backend:"), "{out}");
}

/// The `dtype paths:` lines of `wgpu-act info`, by dtype name.
fn info_paths(args: &[&str]) -> Option<(String, std::collections::HashMap<String, String>)> {
    let output = wgpu_act(args);
    if !ran_on_gpu(&output) {
        return None;
    }
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    let section = out.split_once("dtype paths:").map_or("", |(_, paths)| paths);
    let paths = section
        .lines()
        .filter_map(|l| l.trim().split_once(' '))
        .map(|(dtype, path)| (dtype.to_string(), path.trim().to_string()))
        .collect();
    Some((out, paths))
}

#[test]
fn native_and_emulated_paths_can_be_forced_from_the_command_line() {
    let Some((out, emulated)) = info_paths(&["--emulated", "f16,i64,u64", "info"]) else {
        return;
    };
    for dtype in ["f16", "i64", "u64"] {
        assert!(emulated[dtype].starts_with("emulated"), "--emulated {dtype}: {}", emulated[dtype]);
    }
    let Some((_, native)) = info_paths(&["--native", "f16", "info"]) else {
        return;
    };
    let has_f16 = out.lines().any(|l| l.starts_with("features:") && l.contains("SHADER_F16"));
    assert_eq!(
        native["f16"].starts_with("native"),
        has_f16,
        "--native f16 with SHADER_F16 {has_f16}: {}",
        native["f16"]
    );
    let both = wgpu_act(&["--native", "f16", "--emulated", "i64,f16", "info"]);
    assert_bad_input(&both, "f16");
}

#[test]
fn bench_json_reports_paths_and_the_share_of_a_nominal_bandwidth() {
    let args = ["bench", "--ops", "leaky-relu", "--dtypes", "f32,f16", "--elems", "4096", "--iterations", "1"];
    let output = wgpu_act(&[&args[..], &["--json", "--nominal-gbps", "1000"]].concat());
    if !ran_on_gpu(&output) {
        return;
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("bench --json prints JSON");
    let paths = &report["dtype_paths"];
    assert_eq!(paths["f32"], "native", "{paths}");
    assert!(paths["f16"].is_string() && paths.get("u64").is_none(), "{paths}");
    let leaky_f32 = report["kernels"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["op"] == "LeakyRelu" && r["dtype"] == "f32"))
        .expect("a LeakyRelu f32 row");
    let nominal = &report["nominal_bandwidth"];
    assert_eq!(nominal["gbps"], 1000.0);
    let share = nominal["leaky_relu_f32_share"].as_f64().expect("a share");
    let gbps = leaky_f32["gbps"].as_f64().expect("GB/s");
    assert!(share > 0.0 && (share - gbps / 1000.0).abs() <= 1e-12 * share.max(1.0), "{nominal} against {gbps} GB/s");
    assert_eq!(nominal["met"], share >= 0.85);
    let without = wgpu_act(&[&args[..], &["--json"]].concat());
    assert!(ran_on_gpu(&without));
    let report: serde_json::Value = serde_json::from_slice(&without.stdout).expect("bench --json prints JSON");
    assert!(report["nominal_bandwidth"].is_null(), "no --nominal-gbps, no share: {}", report["nominal_bandwidth"]);
}

/// `--json-file` writes the report beside the tables (what `cargo xtask bench`'s guard reads),
/// each kernel row with the quartiles of its pairs' ratios around the median.
#[test]
fn bench_json_file_holds_the_report_with_each_rows_spread() {
    let dir = TempDir::new("bench-json-file");
    let file = dir.path("report.json");
    let file_arg = file.display().to_string();
    let args = ["bench", "--ops", "leaky-relu", "--dtypes", "f32", "--elems", "4096", "--iterations", "5"];
    let output = wgpu_act(&[&args[..], &["--json-file", &file_arg]].concat());
    if !ran_on_gpu(&output) {
        return;
    }
    let tables = String::from_utf8_lossy(&output.stdout);
    assert!(tables.contains("| LeakyRelu f32 |"), "the tables still print: {tables}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("the JSON file")).expect("JSON in the file");
    let row = &report["kernels"][0];
    let (ratio, q1, q3) =
        (row["ratio_to_copy"].as_f64(), row["ratio_quartiles"][0].as_f64(), row["ratio_quartiles"][1].as_f64());
    let (Some(ratio), Some(q1), Some(q3)) = (ratio, q1, q3) else { panic!("no ratio and quartiles in {row}") };
    assert!(0.0 < q1 && q1 <= q3, "{row}");
    assert!(ratio.is_finite() && ratio > 0.0, "{row}");
    assert_eq!(report["iterations"], 5);
}

/// Every f32 unary row, and every f32 Softmax row, carries the spec's body in plain f32 against
/// its program's copy (both Gelu forms: the body follows the STRING attribute), and no other row
/// does (Hardmax's body is its kernel's own).
#[test]
fn bench_measures_the_specs_body_in_plain_f32_beside_each_f32_kernel() {
    let ops = "gelu,leaky-relu,prelu,softmax,hardmax";
    let args = ["bench", "--ops", ops, "--dtypes", "f16,f32", "--elems", "4096", "--iterations", "3"];
    let output = wgpu_act(&[&args[..], &["--json"]].concat());
    if !ran_on_gpu(&output) {
        return;
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("bench --json prints JSON");
    let rows = report["kernels"].as_array().expect("kernel rows");
    let with_plain_body = |r: &&serde_json::Value| r["dtype"] == "f32" && r["op"] != "PRelu" && r["op"] != "Hardmax";
    let plain_f32: Vec<_> = rows.iter().filter(with_plain_body).collect();
    let unary = plain_f32.iter().filter(|r| r["op"] != "Softmax").count();
    assert_eq!(unary, 3, "LeakyRelu and both Gelu forms: {rows:?}");
    assert!(plain_f32.iter().any(|r| r["op"] == "Softmax"), "a Softmax f32 row: {rows:?}");
    for row in plain_f32 {
        let ratio = row["plain_body_ratio_to_copy"].as_f64();
        assert!(ratio.is_some_and(|r| r.is_finite() && r > 0.0), "{row}");
    }
    assert!(rows.iter().any(|r| r["op"] == "Hardmax"), "a Hardmax row: {rows:?}");
    for row in rows.iter().filter(|r| !with_plain_body(r)) {
        assert!(row["plain_body_ratio_to_copy"].is_null(), "{row}");
    }
}

#[test]
fn command_line_mistakes_are_one_line_and_exit_2() {
    for (args, needle) in [
        (&["apply", "--op", "hardmax", "--alpha", "2", "x.npy", "y.npy"][..], "Hardmax"),
        (&["apply", "--op", "elu", "--axis", "1", "x.npy", "y.npy"][..], "--axis"),
        (&["apply", "--op", "swish-glu", "x.npy", "y.npy"][..], "swish-glu"),
        (&["apply", "--op", "swiglu", "x.npy", "y.npy"][..], "--gate-input"),
        (&["apply", "--op", "elu"][..], "INPUT"),
        (&["bench", "--elems", "many"][..], "--elems"),
        (&["bench", "--nominal-gbps=-3"][..], "positive"),
        (&["--emulated", "f17", "info"][..], "f17"),
        (&["frobnicate"][..], "frobnicate"),
    ] {
        let output = wgpu_act(args);
        assert_bad_input(&output, needle);
        let err = stderr(&output);
        assert_eq!(err.lines().filter(|l| !l.trim().is_empty()).count(), 1, "{args:?}:\n{err}");
    }
}

fn unary_round_trip(op: &str, alpha: Option<&str>, expected: impl Fn(&ArrayD<f32>) -> ArrayD<f32>, max_ulp: u64) {
    let dir = TempDir::new(op);
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x = test_x();
    write_npy(&x_path, &x).unwrap();
    let mut args = vec!["apply", "--op", op];
    if let Some(alpha) = alpha {
        args.extend(["--alpha", alpha]);
    }
    args.extend([p(&x_path), p(&y_path)]);
    if !ran_on_gpu(&wgpu_act(&args)) {
        return;
    }
    let y: ArrayD<f32> = read_npy(&y_path).unwrap();
    assert_matches(&format!("{op} {alpha:?}"), &y, &expected(&x), max_ulp);
}

#[test]
fn apply_leaky_relu_default_alpha_matches_reference_exactly() {
    unary_round_trip("leaky-relu", None, |x| reference::leaky_relu(x.view(), LEAKY_RELU_DEFAULT_ALPHA), 0);
}

#[test]
fn apply_leaky_relu_negative_alpha_matches_reference_exactly() {
    unary_round_trip("leaky-relu", Some("-0.25"), |x| reference::leaky_relu(x.view(), -0.25), 0);
}

#[test]
fn apply_elu_matches_reference_within_2_ulp() {
    unary_round_trip("elu", None, |x| reference::elu(x.view(), ELU_DEFAULT_ALPHA), 2);
    unary_round_trip("elu", Some("2.5"), |x| reference::elu(x.view(), 2.5), 2);
}

/// Softmax over each axis of a 2-D X through `apply`, against the reference; an axis out of
/// range exits 2 naming the operator and the axis.
#[test]
fn apply_softmax_over_an_axis_matches_the_reference() {
    let dir = TempDir::new("softmax");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x = test_x().into_shape_with_order(IxDyn(&[test_x().len() / 2, 2])).unwrap();
    write_npy(&x_path, &x).unwrap();
    for axis in ["0", "1", "-1"] {
        if !ran_on_gpu(&wgpu_act(&["apply", "--op", "softmax", "--axis", axis, p(&x_path), p(&y_path)])) {
            return;
        }
        let y: ArrayD<f32> = read_npy(&y_path).unwrap();
        let expected = reference::axis_op(&ops::SOFTMAX, None, x.view(), axis.parse().unwrap()).unwrap();
        assert_matches(&format!("softmax axis {axis}"), &y, &expected, ops::SOFTMAX.max_ulp.f32);
        std::fs::remove_file(&y_path).unwrap();
    }
    let output = wgpu_act(&["apply", "--op", "log-softmax", "--axis", "2", p(&x_path), p(&y_path)]);
    assert_bad_input(&output, "axis");
    assert!(stderr(&output).contains("LogSoftmax"), "{}", stderr(&output));
}

/// Every operator of the table, at its defaults, through `apply`: within its f32 bound.
/// A STRING attribute from the command line: Gelu's tanh form, against the reference of it.
#[test]
fn apply_gelu_tanh_form_matches_the_reference() {
    let dir = TempDir::new("gelu");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x = test_x();
    write_npy(&x_path, &x).unwrap();
    if !ran_on_gpu(&wgpu_act(&["apply", "--op", "gelu", "--attr", "approximate=tanh", p(&x_path), p(&y_path)])) {
        return;
    }
    let y: ArrayD<f32> = read_npy(&y_path).unwrap();
    let tanh = Activation::with_defaults(&ops::GELU).set_choice("approximate", "tanh").unwrap();
    let attributes = ops::attributes_from(&[tanh.attribute("approximate").unwrap()]);
    assert_eq!(attributes[0], 1.0);
    let erf = reference::unary(&ops::GELU, &ops::GELU.default_attributes(), x.view());
    assert_ne!(erf, reference::unary(&ops::GELU, &attributes, x.view()), "the two forms differ on X");
    assert_matches("gelu tanh", &y, &reference::unary(&ops::GELU, &attributes, x.view()), ops::GELU.max_ulp.f32);
}

#[test]
fn apply_runs_every_operator_of_the_table() {
    for op in wgpu_activations::ops::UNARY_OPS {
        let attributes = op.default_attributes();
        unary_round_trip(op.cli_name, None, |x| reference::unary(op, &attributes, x.view()), op.max_ulp.f32);
    }
}

/// int8 through `.npy` (`|i1`), Relu at opset 14: exact, every value.
#[test]
fn apply_relu_on_every_int8_value_is_exact() {
    let dir = TempDir::new("relu-int8");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x = common::to_dyn((i8::MIN..=i8::MAX).collect(), &[16, 16]);
    write_npy(&x_path, &x).unwrap();
    if !ran_on_gpu(&wgpu_act(&["apply", "--op", "relu", "--opset", "14", p(&x_path), p(&y_path)])) {
        return;
    }
    let y: ArrayD<i8> = read_npy(&y_path).unwrap();
    assert_eq!(y, x.mapv(|v| v.max(0)));
}

/// uint8 and uint16 through `.npy` (`|u1`, `<u2`), every value: Clip to [3, 200] exactly, and
/// Shrink (lambd 10, bias 20) wrapping below 20 as the body's Sub does.
#[test]
fn apply_clip_and_shrink_on_every_uint8_and_uint16_value_is_exact() {
    let dir = TempDir::new("unsigned");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let bytes = common::to_dyn((u8::MIN..=u8::MAX).collect(), &[16, 16]);
    write_npy(&x_path, &bytes).unwrap();
    let clip = ["apply", "--op", "clip", "--attr", "min=3", "--attr", "max=200", p(&x_path), p(&y_path)];
    if !ran_on_gpu(&wgpu_act(&clip)) {
        return;
    }
    assert_eq!(read_npy::<_, ArrayD<u8>>(&y_path).unwrap(), bytes.mapv(|v| v.clamp(3, 200)));
    let halves = common::to_dyn((u16::MIN..=u16::MAX).collect(), &[256, 256]);
    write_npy(&x_path, &halves).unwrap();
    let shrink = ["apply", "--op", "shrink", "--attr", "lambd=10", "--attr", "bias=20", p(&x_path), p(&y_path)];
    assert!(ran_on_gpu(&wgpu_act(&shrink)));
    let shrunk = halves.mapv(|v| if v > 10 { v.wrapping_sub(20) } else { 0 });
    assert_eq!(read_npy::<_, ArrayD<u16>>(&y_path).unwrap(), shrunk);
}

/// Clip's integer bounds that no f32 holds (2^31 - 1 and -2^31 - 1 on int64, 2^32 - 1 on uint32)
/// run exactly, as the f32 of their leading bits plus a residual.
#[test]
fn clip_takes_integer_bounds_no_float32_holds() {
    let dir = TempDir::new("wide-bounds");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let near = |centre: i64| (-40..40).map(move |d| centre + d);
    let x: Vec<i64> = near(1 << 31).chain(near(-(1 << 31))).chain([i64::MIN, i64::MAX, 0]).collect();
    let x = common::to_dyn(x, &[163]);
    write_npy(&x_path, &x).unwrap();
    let (min, max) = (-(1i64 << 31) - 1, (1i64 << 31) - 1);
    let clip = |bounds: [&str; 2]| {
        let [min, max] = bounds.map(|b| b.to_string());
        wgpu_act(&["apply", "--op", "clip", "--attr", &min, "--attr", &max, p(&x_path), p(&y_path)])
    };
    if !ran_on_gpu(&clip([&format!("min={min}"), &format!("max={max}")])) {
        return;
    }
    assert_eq!(read_npy::<_, ArrayD<i64>>(&y_path).unwrap(), x.mapv(|v| v.clamp(min, max)));
    // No two float32 sum to these: they run in full.
    let (min, max) = (-(1i64 << 31) - (1 << 55) - 1, (1i64 << 53) + (1 << 25) + 1);
    let x: Vec<i64> = near(min).chain(near(max)).chain([i64::MIN, i64::MAX, 0]).collect();
    let x = common::to_dyn(x, &[163]);
    write_npy(&x_path, &x).unwrap();
    assert!(ran_on_gpu(&clip([&format!("min={min}"), &format!("max={max}")])));
    assert_eq!(read_npy::<_, ArrayD<i64>>(&y_path).unwrap(), x.mapv(|v| v.clamp(min, max)));
    let words = common::to_dyn((0..64).map(|d| u32::MAX - d * 3).collect(), &[64]);
    write_npy(&x_path, &words).unwrap();
    assert!(ran_on_gpu(&clip(["min=4294967197", "max=4294967294"])));
    assert_eq!(read_npy::<_, ArrayD<u32>>(&y_path).unwrap(), words.mapv(|v| v.clamp(4294967197, 4294967294)));
}

/// Clip's decimal bounds that no f32 holds (0.1, 0.9) run exactly on a float64 X, and as cast
/// like X on a float32 X; so do bounds beyond float32's range (1e300) on a float64 X.
#[test]
fn clip_takes_float64_bounds_no_float32_holds() {
    let dir = TempDir::new("f64-bounds");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let near = |centre: f64| (-5i64..=5).map(move |d| f64::from_bits(centre.to_bits().wrapping_add_signed(d)));
    let x = common::to_dyn(near(0.1).chain(near(0.9)).chain([-1.0, 0.5, 2.0]).collect(), &[25]);
    write_npy(&x_path, &x).unwrap();
    let clip =
        |max: &str| wgpu_act(&["apply", "--op", "clip", "--attr", "min=0.1", "--attr", max, p(&x_path), p(&y_path)]);
    if !ran_on_gpu(&clip("max=0.9")) {
        return;
    }
    assert_eq!(read_npy::<_, ArrayD<f64>>(&y_path).unwrap(), x.mapv(|v| v.clamp(0.1, 0.9)));
    assert!(ran_on_gpu(&clip("max=1e300")));
    assert_eq!(read_npy::<_, ArrayD<f64>>(&y_path).unwrap(), x.mapv(|v| v.clamp(0.1, 1e300)));
    let floats = x.mapv(|v| v as f32);
    write_npy(&x_path, &floats).unwrap();
    assert!(ran_on_gpu(&clip("max=0.9")));
    assert_eq!(read_npy::<_, ArrayD<f32>>(&y_path).unwrap(), floats.mapv(|v| v.clamp(0.1, 0.9)));
}

#[test]
fn apply_prelu_per_channel_slope_matches_reference_exactly() {
    // Shape [8, 1]: one slope per channel of the middle axis.
    let slope = common::to_dyn((0..8).map(|i| i as f32 * 0.375 - 1.0).collect(), &[8, 1]);
    prelu_round_trip("prelu", test_x(), slope);
}

/// float16 files are decoded by wgpu-act itself (ndarray-npy has no f16). The file must be
/// accepted as input; the library either runs it (then the values must match) or reports that
/// the device cannot (exit 1), never a bad-input error.
#[test]
fn apply_reads_and_writes_float16() {
    let dir = TempDir::new("f16");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x: Vec<f16> = [-2.0f32, -0.5, -0.0, 0.0, 1.5, 65504.0].iter().map(|&v| f16::from_f32(v)).collect();
    let data: Vec<u8> = x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
    std::fs::write(&x_path, npy_bytes("<f2", "(2, 3)", &data)).unwrap();
    let output = wgpu_act(&["apply", "--op", "leaky-relu", "--alpha", "0.5", p(&x_path), p(&y_path)]);
    if !ran_if_supported(&output) {
        return;
    }
    let written = std::fs::read(&y_path).unwrap();
    let mut reader = written.as_slice();
    let header = Header::from_reader(&mut reader).expect("y.npy has a valid header");
    assert_eq!(header.type_descriptor.as_string().map(String::as_str), Some("<f2"));
    assert_eq!(header.shape, [2, 3]);
    assert!(!header.layout.is_fortran());
    let x = ArrayD::from_shape_vec(IxDyn(&[2, 3]), x).unwrap();
    let expected = reference::leaky_relu(x.view(), 0.5);
    let expected_data: Vec<u8> = expected.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
    assert_eq!(reader, expected_data.as_slice(), "y.npy data for float16 leaky-relu");
}

/// PRelu on `x` with a per-row slope through the CLI, compared exactly with the reference.
fn prelu_round_trip<T>(name: &str, x: ArrayD<T>, slope: ArrayD<T>)
where
    T: Element + ndarray_npy::WritableElement + ndarray_npy::ReadableElement,
{
    let dir = TempDir::new(name);
    let (x_path, s_path, y_path) = (dir.path("x.npy"), dir.path("slope.npy"), dir.path("y.npy"));
    write_npy(&x_path, &x).unwrap();
    write_npy(&s_path, &slope).unwrap();
    let output = wgpu_act(&["apply", "--op", "prelu", "--slope", p(&s_path), p(&x_path), p(&y_path)]);
    if !ran_if_supported(&output) {
        return;
    }
    let y: ArrayD<T> = read_npy(&y_path).unwrap();
    assert_matches(name, &y, &reference::prelu(x.view(), slope.view()).unwrap(), 0);
}

/// Every dtype the CLI reads goes through the same generic path; each either runs and matches
/// the reference or is reported by the library as not supported on this device.
#[test]
fn apply_prelu_on_every_npy_dtype() {
    let shape = [2, 3];
    prelu_round_trip(
        "f64",
        common::to_dyn(vec![-2.5f64, -0.0, 1e-300, -1e300, f64::NAN, 7.0], &shape),
        common::to_dyn(vec![0.5f64, -3.0], &[2, 1]),
    );
    prelu_round_trip(
        "i32",
        common::to_dyn(vec![i32::MIN, -3, 0, 5, -7, i32::MAX], &shape),
        common::to_dyn(vec![-1i32, 3], &[2, 1]),
    );
    prelu_round_trip(
        "i64",
        common::to_dyn(vec![i64::MIN, -3, 0, 5, -7 << 40, i64::MAX], &shape),
        common::to_dyn(vec![-1i64, 3], &[2, 1]),
    );
    prelu_round_trip(
        "u32",
        common::to_dyn(vec![0u32, 1, 2, u32::MAX, 5, 6], &shape),
        common::to_dyn(vec![0u32, 9], &[2, 1]),
    );
    prelu_round_trip(
        "u64",
        common::to_dyn(vec![0u64, 1, 2, u64::MAX, 5, 6], &shape),
        common::to_dyn(vec![0u64, 9], &[2, 1]),
    );
}

#[test]
fn missing_input_file_is_bad_input() {
    let dir = TempDir::new("missing");
    let y_path = dir.path("y.npy");
    let line = assert_bad_input(
        &wgpu_act(&["apply", "--op", "elu", p(&dir.path("does-not-exist.npy")), p(&y_path)]),
        "cannot read X",
    );
    assert!(line.contains("does-not-exist.npy"), "{line}");
    assert!(!y_path.exists());
}

#[test]
fn garbage_and_truncated_files_are_bad_input() {
    let dir = TempDir::new("malformed");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let run = |bytes: &[u8], needle: &str| {
        std::fs::write(&x_path, bytes).unwrap();
        assert_bad_input(&wgpu_act(&["apply", "--op", "leaky-relu", p(&x_path), p(&y_path)]), needle);
        assert!(!y_path.exists());
    };
    let valid = npy_bytes("<f4", "(4,)", &[0; 16]);
    run(b"this is not a numpy file at all", "not a .npy file");
    run(b"", "empty");
    run(&valid[..4], "truncated");
    run(&valid[..20], "truncated");
    run(&valid[..valid.len() - 3], "truncated");
    run(&npy_bytes("<f4", "(4,)", &[0; 17]), "bytes after the data");
    // A header promising 2^40 elements must not make wgpu-act allocate them.
    run(&npy_bytes("<f4", "(1099511627776,)", &[0; 16]), "truncated");
    run(&npy_bytes("<f4", "(4294967296, 4294967296, 4294967296)", &[]), "overflows");
    run(&npy_bytes("<f4", "'four'", &[0; 16]), "malformed .npy header");
    run(&npy_bytes("<f4", &format!("{}4{}", "(".repeat(5000), ",)".repeat(5000)), &[]), "malformed .npy header");
    let mut bad_version = valid.clone();
    bad_version[6] = 9;
    run(&bad_version, "version 9.0");
    run(&npy_bytes("<c8", "(4,)", &[0; 32]), "complex64");
    run(&npy_bytes("<i2", "(4,)", &[0; 8]), "LeakyRelu does not accept element type i16");
    run(&npy_bytes("<u2", "(4,)", &[0; 8]), "LeakyRelu does not accept element type u16");
}

#[test]
fn apply_refuses_what_does_not_fit_the_operator_and_writes_nothing() {
    let dir = TempDir::new("refusals");
    let paths = ["x.npy", "int_slope.npy", "slope3.npy", "int_x.npy", "y.npy", "int8_x.npy"].map(|name| dir.path(name));
    let [x_path, int_slope_path, slope3_path, int_x_path, y_path, int8_path] = &paths;
    write_npy(x_path, &test_x()).unwrap();
    write_npy(int_slope_path, &common::to_dyn(vec![1i32], &[1])).unwrap();
    write_npy(slope3_path, &common::to_dyn(vec![0.5f32; 3], &[3])).unwrap();
    write_npy(int_x_path, &common::to_dyn(vec![-3i32, 0, 5], &[3])).unwrap();
    write_npy(int8_path, &common::to_dyn(vec![-3i8, 0, 5], &[3])).unwrap();
    let [x, int_slope, slope3, int_x, y, int8_x] =
        [x_path, int_slope_path, slope3_path, int_x_path, y_path, int8_path].map(|path| p(path));
    let refusals: [(&[&str], &str); 15] = [
        (
            &["--op", "gelu", "--attr", "approximate=erf", x, y],
            r#"attribute approximate must be one of "none", "tanh""#,
        ),
        (&["--op", "elu", "--attr", "alpha=tanh", x, y], "attribute alpha must be a number"),
        (&["--op", "prelu", x, y], "requires --slope"),
        (&["--op", "prelu", "--slope", slope3, x, y], "does not broadcast"),
        (&["--op", "elu", int_x, y], "Elu does not accept element type i32"),
        // Relu takes int8 from its version 14: at opset 13 it runs version 13, which does not.
        (&["--op", "relu", "--opset", "13", int8_x, y], "Relu does not accept element type i8 in opset 13"),
        (&["--op", "hard-swish", "--opset", "13", x, y], "HardSwish does not exist at opset 13"),
        (&["--op", "sigmoid", int8_x, y], "Sigmoid does not accept element type i8"),
        (&["--op", "prelu", "--alpha", "0.5", "--slope", int_slope, x, y], "--alpha"),
        (&["--op", "elu", "--slope", int_slope, x, y], "--slope"),
        (&["--op", "prelu", "--slope", int_slope, x, y], "slope has dtype int32 but X has dtype float"),
        // A bound no float32 is exactly is refused on a float X, not rounded to 16777216 (an
        // integer X takes it exactly: clip_takes_integer_bounds_no_float32_holds).
        (&["--op", "clip", "--attr", "max=16777217", x, y], "an integer bound no float32 holds applies to integer X"),
        (&["--op", "clip", "--attr", "max=9007199288295425", int_x, y], "applies to an int64 or uint64 X"),
        (&["--op", "clip", "--attr", "max=1180591621816922931201", int_x, y], "beyond the 64-bit integers"),
        (&["--op", "elu", "--attr", "alpha=16777217", x, y], "an integer written out: one a float32 is exactly"),
    ];
    for (args, expected) in refusals {
        assert_bad_input(&wgpu_act(&[&["apply"], args].concat()), expected);
        assert!(!y_path.exists(), "{args:?} wrote its output");
    }
    // Usage errors are clap's, also exit status 2.
    let output = wgpu_act(&["apply", "--op", "no-such-op", x, y]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(!y_path.exists());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy file");
        }
    }
}

fn committed_case(suite: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/onnx").join(suite).join(name)
}

#[test]
fn onnx_test_prints_one_line_per_case_and_exits_by_the_worst_outcome() {
    let tmp = TempDir::new("onnx_test");
    let good = committed_case("node", "test_elu");
    let output = wgpu_act(&["onnx-test", "--save-outputs", p(&tmp.path("saved")), p(&good)]);
    if !ran_on_gpu(&output) {
        return;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.lines().next().is_some_and(|l| l.starts_with("PASS test_elu (max ")), "{stdout}");
    // --save-outputs wrote what was computed, readable as a TensorProto of the expected shape.
    let saved = std::fs::read(tmp.path("saved/test_elu/test_data_set_0/output_0.pb")).expect("saved output");
    let expected = std::fs::read(good.join("test_data_set_0/output_0.pb")).expect("expected output");
    let (saved, expected) = (
        wgpu_activations::onnx::HostTensor::decode_pb(&saved).expect("decodes"),
        wgpu_activations::onnx::HostTensor::decode_pb(&expected).expect("decodes"),
    );
    assert_eq!((saved.dtype(), saved.shape()), (expected.dtype(), expected.shape()));

    // A case whose expected output is wrong fails (exit 1), naming the element.
    let wrong = tmp.path("wrong_case");
    copy_dir(&committed_case("node", "test_leakyrelu"), &wrong);
    let input = std::fs::read(wrong.join("test_data_set_0/input_0.pb")).expect("input");
    std::fs::write(wrong.join("test_data_set_0/output_0.pb"), &input).expect("overwrite expected");
    let output = wgpu_act(&["onnx-test", "--save-outputs", p(&tmp.path("saved")), p(&good), p(&wrong)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("FAIL wrong_case: output"), "{stdout}");
    // The failing case is the one to look at: what was computed is saved for it too, and it
    // is LeakyRelu of the input, not the (wrong) expected data.
    let saved = std::fs::read(tmp.path("saved/wrong_case/test_data_set_0/output_0.pb")).expect("saved failing output");
    let decoded = wgpu_activations::onnx::HostTensor::decode_pb(&saved).expect("decodes");
    let x = wgpu_activations::onnx::HostTensor::decode_pb(&input).expect("decodes");
    assert_eq!(decoded.shape(), x.shape());
    assert_ne!(saved, input, "the saved output is the input, not what was computed");

    // A truncated model is an ERROR line and exit 2, never a panic.
    let broken = tmp.path("broken_case");
    copy_dir(&committed_case("node", "test_leakyrelu"), &broken);
    let model = std::fs::read(broken.join("model.onnx")).expect("model");
    std::fs::write(broken.join("model.onnx"), &model[..model.len() / 2]).expect("truncate");
    let output = wgpu_act(&["onnx-test", p(&good), p(&wrong), p(&broken)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("PASS") || l.starts_with("FAIL") || l.starts_with("ERROR")).count(),
        3
    );
    assert!(stdout.contains("ERROR broken_case: "), "{stdout}");
}

#[test]
fn run_executes_a_model_on_pb_and_npy_inputs() {
    let tmp = TempDir::new("run");
    let case = committed_case("node", "test_prelu_broadcast");
    let model = case.join("model.onnx");
    let parsed = wgpu_activations::onnx::OnnxModel::from_bytes(&std::fs::read(&model).expect("model")).expect("parses");
    let names = parsed.input_names().to_vec();
    let mut args: Vec<String> = vec!["run".into(), p(&model).into(), "--output".into(), p(&tmp.path("out")).into()];
    for (k, name) in names.iter().enumerate() {
        args.push("--input".into());
        args.push(format!("{name}={}", p(&case.join(format!("test_data_set_0/input_{k}.pb")))));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = wgpu_act(&refs);
    if !ran_on_gpu(&output) {
        return;
    }
    let out_name = parsed.output_names()[0].to_string();
    let written = std::fs::read(tmp.path(&format!("out/{out_name}.pb"))).expect("output written");
    let expected = std::fs::read(case.join("test_data_set_0/output_0.pb")).expect("expected");
    assert_eq!(
        wgpu_activations::onnx::HostTensor::decode_pb(&written).expect("decodes"),
        wgpu_activations::onnx::HostTensor::decode_pb(&expected).expect("decodes")
    );
    // A missing input is bad input: exit 2 naming it.
    let output = wgpu_act(&["run", p(&model), "--output", p(&tmp.path("out2"))]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains(&names[0]), "{}", stderr(&output));
    // .npy inputs work too.
    let x: ArrayD<f32> = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![-1.0, 2.0, -3.0, 4.0]).expect("shape");
    let leaky = committed_case("node", "test_leakyrelu");
    let leaky_model = leaky.join("model.onnx");
    let parsed =
        wgpu_activations::onnx::OnnxModel::from_bytes(&std::fs::read(&leaky_model).expect("model")).expect("parses");
    write_npy(tmp.path("x.npy"), &x).expect("write npy");
    let spec = format!("{}={}", parsed.input_names()[0], p(&tmp.path("x.npy")));
    let output = wgpu_act(&["run", p(&leaky_model), "--input", &spec, "--output", p(&tmp.path("out3"))]);
    assert!(output.status.success(), "{}", stderr(&output));
}

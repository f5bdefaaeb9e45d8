//! Runs ONNX backend-test cases (`model.onnx` plus `test_data_set_N/{input,output}_K.pb`) and
//! judges them: the code path of `wgpu-act onnx-test` and of the test suite.

use std::collections::HashMap;
use std::fmt;
#[cfg(not(target_arch = "wasm32"))]
use std::path::{Path, PathBuf};

use super::error::OnnxError;
#[cfg(not(target_arch = "wasm32"))]
use super::error::OnnxResult;
use super::load::{HostElement, HostTensor};
#[cfg(not(target_arch = "wasm32"))]
use super::load::{MAX_FILE_BYTES, read_file};
use super::plan::OnnxModel;
use crate::dtype::{DType, Element};
use crate::engine::Context;
use crate::ulp;
use crate::with_host_tensor;

/// How one case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every output within its bound.
    Pass,
    /// Some output outside its bound (or of the wrong dtype/shape).
    Fail(String),
    /// The case could not be read, or the model was refused (names what and why).
    Error(String),
}

/// The verdict on one case directory.
#[derive(Debug, Clone)]
pub struct CaseReport {
    /// The case directory's name.
    pub name: String,
    /// The verdict.
    pub outcome: Outcome,
    /// Largest ULP distance from the expected outputs (floats), over all data sets.
    pub max_ulp_vs_expected: u64,
    /// Largest ULP distance from our correctly rounded CPU reference.
    pub max_ulp_vs_reference: u64,
    /// Elements where the expected data itself is off the correctly rounded result by more
    /// than the bound (the spec's literal `exp(x) - 1` in float32 does this near 0).
    pub inexact_expected: usize,
    /// The model's default-domain opset and the operators it runs (for the conformance table).
    pub opset: i64,
    /// `(op, version)` pairs of the model.
    pub operators: Vec<(&'static str, u32)>,
    /// Element type of the first output.
    pub dtype: Option<DType>,
}

impl fmt::Display for CaseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Pass => {
                write!(f, "PASS {} (max {} ULP", self.name, self.max_ulp_vs_expected)?;
                if self.inexact_expected > 0 {
                    write!(
                        f,
                        " vs expected; {} expected values are off the correctly rounded result, ours is within {} ULP of it",
                        self.inexact_expected, self.max_ulp_vs_reference
                    )?;
                }
                write!(f, ")")
            }
            Outcome::Fail(reason) => write!(f, "FAIL {}: {reason}", self.name),
            Outcome::Error(reason) => write!(f, "ERROR {}: {reason}", self.name),
        }
    }
}

/// ONNX's own backend-test tolerance, used only to accept that an expected value is the
/// literal formula's inexact rendering of the correctly rounded result.
fn onnx_tolerance(expected: f64, reference: f64) -> bool {
    (expected - reference).abs() <= 1e-7 + 1e-3 * reference.abs()
}

#[cfg(not(target_arch = "wasm32"))]
fn numbered(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let index = name.strip_prefix(prefix)?.trim_end_matches(".pb").parse().ok()?;
            Some((index, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

#[cfg(not(target_arch = "wasm32"))]
fn read(path: &Path) -> OnnxResult<Vec<u8>> {
    read_file(path, MAX_FILE_BYTES)
}

#[cfg(not(target_arch = "wasm32"))]
/// The case's name: the last component of its canonical path, so that `.` and `..` name the
/// folder they stand for and never lead outside a save folder.
fn case_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

/// Runs one case directory; with `save`, writes what was computed to
/// `save/<case>/test_data_set_N/output_K.pb`, for failing data sets too. Nothing is written
/// inside a case folder (where it could replace the expected data) or outside `save`. Data
/// sets are read one at a time, each file within [`MAX_FILE_BYTES`].
#[cfg(not(target_arch = "wasm32"))]
pub fn run_case(ctx: &Context, dir: &Path, save: Option<&Path>) -> CaseReport {
    let name = case_name(dir);
    let refuse = |e: OnnxError| Outcome::Error(e.to_string());
    let mut run = match read(&dir.join("model.onnx")).map_err(refuse) {
        Ok(bytes) => match CaseRun::start(name, &bytes) {
            Ok(run) => run,
            Err(report) => return report,
        },
        Err(outcome) => return CaseReport { outcome, ..CaseReport::new(name) },
    };
    let sets = numbered(dir, "test_data_set_");
    if sets.is_empty() {
        return run.fail(Outcome::Error(format!("no test_data_set_N directory in {}", dir.display())));
    }
    for set in sets {
        let files = |prefix: &str| -> Result<Vec<Vec<u8>>, Outcome> {
            numbered(&set, prefix).iter().map(|path| read(path).map_err(refuse)).collect()
        };
        let (inputs, expected) = match (files("input_"), files("output_")) {
            (Ok(inputs), Ok(expected)) => (inputs, expected),
            (Err(outcome), _) | (_, Err(outcome)) => return run.fail(outcome),
        };
        let computed = pollster::block_on(run.data_set(ctx, &set.display().to_string(), &inputs, &expected));
        let set_name = set.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let (Some(save), Some(outputs)) = (save, computed) {
            if let Err(outcome) = save_outputs(dir, save, &run.report.name, &set_name, &outputs) {
                return run.fail(outcome);
            }
        }
        if run.report.outcome != Outcome::Pass {
            break;
        }
    }
    run.report
}

/// One case judged data set by data set, from bytes: [`run_case`] reads them from a folder,
/// a browser page is sent them.
pub struct CaseRun {
    model: OnnxModel,
    /// The verdict so far: [`Outcome::Pass`] until a data set fails.
    pub report: CaseReport,
}

impl CaseReport {
    fn new(name: String) -> Self {
        CaseReport {
            name,
            outcome: Outcome::Pass,
            max_ulp_vs_expected: 0,
            max_ulp_vs_reference: 0,
            inexact_expected: 0,
            opset: 0,
            operators: Vec::new(),
            dtype: None,
        }
    }
}

/// A judged data set's outcome, with what the GPU computed when the model ran.
type Judged = Result<Vec<(String, HostTensor)>, (Outcome, Option<Vec<(String, HostTensor)>>)>;

impl CaseRun {
    /// Decodes and plans the case's model; a model that is refused is the case's report.
    pub fn start(name: impl Into<String>, model: &[u8]) -> Result<CaseRun, CaseReport> {
        let mut report = CaseReport::new(name.into());
        match OnnxModel::from_bytes(model) {
            Ok(model) => {
                report.opset = model.opset();
                report.operators = model.operators();
                Ok(CaseRun { model, report })
            }
            Err(e) => {
                report.outcome = Outcome::Error(e.to_string());
                Err(report)
            }
        }
    }

    /// The report with `outcome`, unless an earlier data set already failed.
    pub fn fail(mut self, outcome: Outcome) -> CaseReport {
        if self.report.outcome == Outcome::Pass {
            self.report.outcome = outcome;
        }
        self.report
    }

    /// Runs one data set (serialized `TensorProto`s: the inputs in the model's order, the
    /// expected outputs; `set` names it in messages) on `ctx` and on the CPU reference, and
    /// judges it into [`CaseRun::report`]. Returns what the GPU computed whenever the model
    /// ran, also when it is judged wrong: the failing case is the one to look at.
    pub async fn data_set(
        &mut self,
        ctx: &Context,
        set: &str,
        inputs: &[Vec<u8>],
        expected: &[Vec<u8>],
    ) -> Option<Vec<(String, HostTensor)>> {
        match self.judge(ctx, set, inputs, expected).await {
            Ok(outputs) => Some(outputs),
            Err((outcome, outputs)) => {
                if self.report.outcome == Outcome::Pass {
                    self.report.outcome = outcome;
                }
                outputs
            }
        }
    }

    async fn judge(&mut self, ctx: &Context, set: &str, inputs: &[Vec<u8>], expected: &[Vec<u8>]) -> Judged {
        let refuse = |e: OnnxError| (Outcome::Error(e.to_string()), None);
        let takes = self.model.input_names().len();
        if inputs.len() != takes {
            let message = format!("{set} has {} inputs, the model takes {takes}", inputs.len());
            return Err((Outcome::Error(message), None));
        }
        let mut feeds = HashMap::new();
        for (k, (name, bytes)) in self.model.input_names().iter().zip(inputs).enumerate() {
            let tensor =
                HostTensor::decode_pb(bytes).map_err(|e| (Outcome::Error(format!("{set}/input_{k}.pb: {e}")), None))?;
            feeds.insert(name.clone(), tensor);
        }
        let actual = self.model.run_async(ctx, &feeds).await.map_err(refuse)?;
        let reference = self.model.run_reference(&feeds).map_err(refuse)?;
        match self.compare_outputs(set, &actual, &reference, expected) {
            Ok(()) => Ok(actual),
            Err(outcome) => Err((outcome, Some(actual))),
        }
    }

    fn compare_outputs(
        &mut self,
        set: &str,
        actual: &[(String, HostTensor)],
        reference: &[(String, HostTensor)],
        expected: &[Vec<u8>],
    ) -> Result<(), Outcome> {
        if expected.len() != actual.len() {
            return Err(Outcome::Error(format!("{set} has {} outputs, the model {}", expected.len(), actual.len())));
        }
        for (((name, ours), (_, exact)), bytes) in actual.iter().zip(reference).zip(expected) {
            let want = HostTensor::decode_pb(bytes).map_err(|e| Outcome::Error(format!("{set}: {name:?}: {e}")))?;
            let report = &mut self.report;
            report.dtype.get_or_insert(ours.dtype());
            if want.dtype() != ours.dtype() || want.shape() != ours.shape() {
                return Err(Outcome::Fail(format!(
                    "output {name:?}: got {} {:?}, expected {} {:?}",
                    ours.dtype(),
                    ours.shape(),
                    want.dtype(),
                    want.shape()
                )));
            }
            let bound = self.model.ulp_bound(ours.dtype());
            with_host_tensor!(ours, a => compare(name, a, &want, exact, bound, report))?;
        }
        Ok(())
    }
}

/// Writes `outputs` to `save/<case>/<set>/output_K.pb`, refusing a place inside the case folder.
#[cfg(not(target_arch = "wasm32"))]
fn save_outputs(
    case: &Path,
    save: &Path,
    name: &str,
    set: &str,
    outputs: &[(String, HostTensor)],
) -> Result<(), Outcome> {
    let fail = |path: &Path, e: &dyn std::fmt::Display| Outcome::Error(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(save).map_err(|e| fail(save, &e))?;
    let (case, save) = match (std::fs::canonicalize(case), std::fs::canonicalize(save)) {
        (Ok(case), Ok(save)) => (case, save),
        (Err(e), _) | (_, Err(e)) => return Err(fail(save, &e)),
    };
    // `name` and the set's name are single components (a canonical path's last one, and a
    // directory entry), so the target stays inside `save`.
    let out_dir = save.join(name).join(set);
    if out_dir.starts_with(&case) {
        return Err(Outcome::Error(format!(
            "--save-outputs would write into the case folder {} (over its expected data); choose another folder",
            case.display()
        )));
    }
    std::fs::create_dir_all(&out_dir).map_err(|e| fail(&out_dir, &e))?;
    for (k, (output, tensor)) in outputs.iter().enumerate() {
        let path = out_dir.join(format!("output_{k}.pb"));
        std::fs::write(&path, tensor.encode_pb(output)).map_err(|e| fail(&path, &e))?;
    }
    Ok(())
}

fn compare<T: HostElement>(
    name: &str,
    ours: &ndarray::ArrayD<T>,
    expected: &HostTensor,
    exact: &HostTensor,
    bound: u64,
    report: &mut CaseReport,
) -> Result<(), Outcome> {
    let (Some(expected), Some(exact)) = (T::unwrap_ref(expected), T::unwrap_ref(exact)) else {
        return Err(Outcome::Fail(format!("output {name:?}: dtype differs")));
    };
    // Distance that counts: 0 where `within_ulp(.., 0)` holds (equal with the same sign, or both
    // NaN), else the ULP distance (u64::MAX for NaN against a number).
    let distance = |a: T, b: T| if ulp::within_ulp(a, b, 0) { 0 } else { ulp::ulp_distance(a, b).unwrap_or(u64::MAX) };
    for (index, ((&o, &e), &r)) in ours.iter().zip(expected).zip(exact).enumerate() {
        let (vs_expected, vs_reference) = (distance(o, e), distance(o, r));
        report.max_ulp_vs_reference = report.max_ulp_vs_reference.max(vs_reference);
        if vs_expected > bound {
            // Acceptable only when ours is within the bound of the correctly rounded result
            // and the expected value is merely a less accurate formula's rounding of it
            // (within ONNX's own backend-test tolerance).
            if vs_reference > bound || !onnx_tolerance(as_f64(e), as_f64(r)) {
                let shown =
                    if vs_expected == u64::MAX { "NaN mismatch".to_string() } else { format!("{vs_expected} ULP") };
                return Err(Outcome::Fail(format!(
                    "output {name:?} element {index}: got {o:?}, expected {e:?} ({shown} > {bound}; correctly rounded {r:?})"
                )));
            }
            report.inexact_expected += 1;
        }
        report.max_ulp_vs_expected = report.max_ulp_vs_expected.max(vs_expected);
    }
    Ok(())
}

fn as_f64<T: Element>(v: T) -> f64 {
    // The value itself (for the tolerance check); decoded per dtype since T is any Element.
    let bytes = bytemuck::bytes_of(&v);
    match T::DTYPE {
        DType::BF16 => half::bf16::from_le_bytes([bytes[0], bytes[1]]).to_f64(),
        DType::F16 => half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f64(),
        DType::F32 => f64::from(f32::from_le_bytes(bytes.try_into().unwrap_or_default())),
        DType::F64 => f64::from_le_bytes(bytes.try_into().unwrap_or_default()),
        _ => f64::NAN, // integers are compared exactly: never "inexact"
    }
}

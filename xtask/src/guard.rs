//! `cargo xtask bench`'s guard: the kernels' ratios to the copy kernel, as a run measured them,
//! against the ratios recorded in BENCHMARKS.md for the same adapter and size. A kernel that fell
//! by more than the noise is named and the command fails, so that a loss cannot land silently.
//!
//! Ratios, not times: each is a kernel's time against the copy kernel measured alternately with
//! it in the same process, so a machine that is slower today moves both sides. The noise allowed
//! for a row is the larger of the fall recorded for it (the spread of the recorded runs' medians)
//! and twice the standard error of this run's median, estimated from the interquartile range of
//! its alternating pairs' ratios (for a normal spread, sigma = IQR / 1.349 and the median's
//! standard error 1.2533 sigma / sqrt(n)).

use std::ffi::OsString;
use std::process::ExitCode;

use serde_json::Value;

use crate::{Error, Result, cargo, workspace_root};

/// The line that opens the reference in BENCHMARKS.md, followed by the adapter's name (a
/// substring) and the elements per kernel, e.g. `<!-- bench guard: adapter "llvmpipe",
/// elements 16777216 -->`.
const MARKER: &str = "<!-- bench guard:";
/// The reference table's header cell.
const HEADER: &str = "| guarded kernel |";

/// The ratios recorded in BENCHMARKS.md.
#[derive(Debug, PartialEq)]
pub(crate) struct Reference {
    adapter: String,
    elements: u64,
    rows: Vec<Recorded>,
}

#[derive(Debug, PartialEq)]
struct Recorded {
    kernel: String,
    ratio: f64,
    allowed_fall: f64,
}

/// One kernel of a run, compared.
#[derive(Debug, PartialEq)]
pub(crate) struct Compared {
    kernel: String,
    recorded: f64,
    measured: f64,
    noise: f64,
}

impl Compared {
    fn fell(&self) -> bool {
        self.recorded - self.measured > self.noise
    }

    fn rose(&self) -> bool {
        self.measured - self.recorded > self.noise
    }
}

/// What comparing a run with the reference found.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// The run is not comparable (another adapter or size), and why.
    NotCompared(String),
    Compared(Vec<Compared>),
}

/// `cargo xtask bench [args]`: `wgpu-act bench [args]`, then the guard. A fall is confirmed by
/// a second run of the same bench (a kernel fails only where both runs fell), so that one noisy
/// median does not fail it.
pub(crate) fn bench(rest: &[OsString]) -> Result<ExitCode> {
    let text = std::fs::read_to_string(workspace_root().join("BENCHMARKS.md"))
        .map_err(|e| Error(format!("BENCHMARKS.md: {e}")))?;
    let reference = Reference::parse(&text)?;
    let (code, report) = run_bench(rest)?;
    let Some(report) = report else { return Ok(code) };
    let rows = match reference.compare(&report) {
        Verdict::NotCompared(why) => {
            println!("\nxtask: the guard compared nothing: {why}");
            return Ok(ExitCode::SUCCESS);
        }
        Verdict::Compared(rows) => rows,
    };
    println!("\n{}", table(&rows));
    let mut fallen: Vec<String> = rows.iter().filter(|r| r.fell()).map(|r| r.kernel.clone()).collect();
    if !fallen.is_empty() {
        println!("xtask: {} fell by more than the noise; running the bench again to confirm", fallen.join(", "));
        let (code, again) = run_bench(rest)?;
        let Some(again) = again else { return Ok(code) };
        if let Verdict::Compared(rows) = reference.compare(&again) {
            println!("\n{}", table(&rows));
            fallen.retain(|kernel| rows.iter().any(|r| r.fell() && r.kernel == *kernel));
        }
    }
    if fallen.is_empty() {
        println!("xtask: no kernel fell below its recorded ratio by more than the noise");
        return Ok(ExitCode::SUCCESS);
    }
    Err(Error(format!(
        "{} fell below the ratio recorded in BENCHMARKS.md by more than the noise, in two runs",
        fallen.join(", ")
    )))
}

/// `wgpu-act bench [args]` with its JSON report, where it wrote one (not for `--help`).
fn run_bench(rest: &[OsString]) -> Result<(ExitCode, Option<Value>)> {
    let dir = workspace_root().join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| Error(format!("{}: {e}", dir.display())))?;
    let report_file = dir.join("last-run.json");
    let _ = std::fs::remove_file(&report_file);
    let file_arg = report_file.display().to_string();
    let code = cargo(&["run", "--release", "-p", "wgpu-act", "--", "bench", "--json-file", &file_arg], rest, &[])?;
    if code != ExitCode::SUCCESS || !report_file.exists() {
        return Ok((code, None));
    }
    let bytes = std::fs::read(&report_file).map_err(|e| Error(format!("{}: {e}", report_file.display())))?;
    let report = serde_json::from_slice(&bytes).map_err(|e| Error(format!("{}: {e}", report_file.display())))?;
    Ok((code, Some(report)))
}

/// The comparison as a Markdown table.
fn table(rows: &[Compared]) -> String {
    let mut out = String::from(
        "| guarded kernel | recorded ratio | this run | change | noise allowed | verdict |\n|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let verdict = if row.fell() {
            "FELL"
        } else if row.rose() {
            "rose (record it?)"
        } else {
            "within noise"
        };
        out.push_str(&format!(
            "| {} | {:.2} | {:.2} | {:+.2} | {:.2} | {verdict} |\n",
            row.kernel,
            row.recorded,
            row.measured,
            row.measured - row.recorded,
            row.noise
        ));
    }
    out
}

impl Reference {
    pub(crate) fn parse(text: &str) -> Result<Reference> {
        let missing = |what: &str| Error(format!("BENCHMARKS.md: the bench guard's reference has no {what}"));
        let (_, after) = text.split_once(MARKER).ok_or_else(|| missing(&format!("line starting {MARKER:?}")))?;
        let (line, after) = after.split_once("-->").ok_or_else(|| missing("end of its marker"))?;
        let adapter = line
            .split_once("adapter \"")
            .and_then(|(_, a)| a.split_once('"'))
            .map(|(a, _)| a.to_string())
            .ok_or_else(|| missing("adapter \"NAME\""))?;
        let elements = line
            .split_once("elements ")
            .and_then(|(_, e)| e.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|e| e.parse().ok())
            .ok_or_else(|| missing("elements N"))?;
        let (_, table) = after.split_once(HEADER).ok_or_else(|| missing(&format!("table headed {HEADER:?}")))?;
        let mut rows = Vec::new();
        // The header's own line, then its separator, then rows until the first line that is no row.
        for line in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let number = |i: usize| -> Result<f64> {
                cells.get(i).and_then(|c| c.parse().ok()).ok_or_else(|| {
                    Error(format!("BENCHMARKS.md: the bench guard's row {line:?} has no number in column {}", i + 1))
                })
            };
            rows.push(Recorded { kernel: cells[0].to_string(), ratio: number(1)?, allowed_fall: number(2)? });
        }
        if rows.is_empty() {
            return Err(missing("rows"));
        }
        Ok(Reference { adapter, elements, rows })
    }

    /// The run's kernels (`wgpu-act bench --json`'s report) against the recorded rows; rows the
    /// run did not measure (`--ops`, `--dtypes`) are left out.
    pub(crate) fn compare(&self, report: &Value) -> Verdict {
        let adapter = report["adapter"].as_str().unwrap_or("?");
        if !adapter.contains(&self.adapter) {
            return Verdict::NotCompared(format!(
                "BENCHMARKS.md records ratios on {:?}; this run's adapter is {adapter:?}",
                self.adapter
            ));
        }
        if report["elements"].as_u64() != Some(self.elements) {
            return Verdict::NotCompared(format!(
                "BENCHMARKS.md records ratios at {} elements; this run measured {}",
                self.elements, report["elements"]
            ));
        }
        let pairs = report["iterations"].as_u64().unwrap_or(1).max(1) as f64;
        let mut compared = Vec::new();
        for row in report["kernels"].as_array().into_iter().flatten() {
            let name = kernel_name(row);
            let Some(recorded) = self.rows.iter().find(|r| r.kernel == name) else { continue };
            let (Some(measured), Some(q1), Some(q3)) =
                (row["ratio_to_copy"].as_f64(), row["ratio_quartiles"][0].as_f64(), row["ratio_quartiles"][1].as_f64())
            else {
                continue;
            };
            compared.push(Compared {
                kernel: name,
                recorded: recorded.ratio,
                measured,
                noise: recorded.allowed_fall.max(2.0 * 1.2533 * (q3 - q1) / 1.349 / pairs.sqrt()),
            });
        }
        if compared.is_empty() {
            return Verdict::NotCompared("the run measured none of the guarded kernels".into());
        }
        Verdict::Compared(compared)
    }
}

/// A kernel's name as the bench's table writes it: `LeakyRelu f32`, `PRelu f32 scalar`.
fn kernel_name(row: &Value) -> String {
    let parts = [&row["op"], &row["dtype"], &row["pattern"]];
    parts.iter().filter_map(|p| p.as_str()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(adapter: &str, elements: u64, kernels: Value) -> Value {
        json!({"adapter": adapter, "elements": elements, "iterations": 11, "kernels": kernels})
    }

    fn kernel(op: &str, dtype: &str, pattern: &str, ratio: f64, quartiles: (f64, f64)) -> Value {
        json!({"op": op, "dtype": dtype, "pattern": pattern, "ratio_to_copy": ratio,
               "ratio_quartiles": [quartiles.0, quartiles.1]})
    }

    const SAMPLE: &str = "text\n<!-- bench guard: adapter \"llvmpipe\", elements 1024 -->\n\n\
        | guarded kernel | recorded ratio | allowed fall |\n|---|---|---|\n\
        | LeakyRelu f32 | 0.90 | 0.03 |\n| PRelu f32 scalar | 0.88 | 0.05 |\n\nafter\n| other | 1 | 2 |\n";

    #[test]
    fn the_reference_is_read_from_its_marker_and_table() {
        let reference = Reference::parse(SAMPLE).unwrap();
        assert_eq!(reference.adapter, "llvmpipe");
        assert_eq!(reference.elements, 1024);
        assert_eq!(
            reference.rows,
            vec![
                Recorded { kernel: "LeakyRelu f32".into(), ratio: 0.90, allowed_fall: 0.03 },
                Recorded { kernel: "PRelu f32 scalar".into(), ratio: 0.88, allowed_fall: 0.05 },
            ]
        );
        assert!(Reference::parse("no marker").is_err());
        assert!(Reference::parse(&SAMPLE.replace("0.03", "x")).is_err());
    }

    #[test]
    fn a_fall_beyond_the_noise_is_named_and_one_within_it_is_not() {
        let reference = Reference::parse(SAMPLE).unwrap();
        let report = run(
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            1024,
            json!([
                // 0.06 below its record, with a run spread of 0.02: beyond the recorded 0.03.
                kernel("LeakyRelu", "f32", "", 0.84, (0.83, 0.85)),
                // 0.06 below, but this run's pairs spread so wide (IQR 0.3 over 11 pairs: the
                // median's standard error 0.084) that twice that is 0.168.
                kernel("PRelu", "f32", "scalar", 0.82, (0.70, 1.00)),
                kernel("Elu", "f32", "", 0.10, (0.1, 0.1)),
            ]),
        );
        let Verdict::Compared(rows) = reference.compare(&report) else { panic!("not compared") };
        assert_eq!(rows.len(), 2, "Elu f32 has no record");
        assert!(rows[0].fell(), "{rows:?}");
        assert!(!rows[1].fell(), "{rows:?}");
        assert!((rows[1].noise - 0.168).abs() < 1e-3, "{rows:?}");
        assert!(table(&rows).contains("| LeakyRelu f32 | 0.90 | 0.84 | -0.06 | 0.03 | FELL |"));
    }

    #[test]
    fn another_adapter_or_size_is_not_compared() {
        let reference = Reference::parse(SAMPLE).unwrap();
        let rows = json!([kernel("LeakyRelu", "f32", "", 0.5, (0.5, 0.5))]);
        assert!(matches!(reference.compare(&run("SwiftShader", 1024, rows.clone())), Verdict::NotCompared(_)));
        assert!(matches!(reference.compare(&run("llvmpipe", 4096, rows)), Verdict::NotCompared(_)));
    }

    #[test]
    fn the_committed_reference_parses_into_kernel_names_as_the_bench_writes_them() {
        let text = std::fs::read_to_string(workspace_root().join("BENCHMARKS.md")).unwrap();
        let reference = Reference::parse(&text).unwrap();
        assert!(reference.rows.len() >= 4, "{reference:?}");
        for row in &reference.rows {
            let words: Vec<&str> = row.kernel.split(' ').collect();
            let dtypes = ["bf16", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u32", "u64"];
            assert!(words.len() >= 2 && dtypes.contains(&words[1]), "{:?} is no `OP DTYPE [PATTERN]`", row.kernel);
            assert!(row.ratio > 0.0 && row.allowed_fall >= 0.0, "{row:?}");
        }
    }
}

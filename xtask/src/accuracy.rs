//! `cargo xtask accuracy`: this library, ONNX Runtime's CPU provider and ONNX Runtime Web's
//! WebGPU provider on the same inputs, in ULPs against the correctly rounded result, as a
//! Markdown table. `tests/accuracy/compare.py` prepares the cases (with ONNX Runtime's Python
//! package and `wgpu-act apply`) and writes the table; `tests/accuracy/page.html` runs ONNX
//! Runtime Web (the `onnxruntime-web` npm package) on them in headless Chromium.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::browser::{Browser, CHROMEDRIVER, CHROMIUM, Server};
use crate::drivers::apt_install;
use crate::{Error, Result, cargo_checked, run, workspace_root};

/// The `onnxruntime-web` version compared with.
const ORT_WEB: &str = "onnxruntime-web@1.30.0";
/// The page's whole run, every case, on a software adapter.
const PAGE_LIMIT: Duration = Duration::from_secs(1200);

pub(crate) fn accuracy() -> Result<()> {
    let root = workspace_root();
    let work = root.join("target/accuracy");
    std::fs::create_dir_all(&work).map_err(|e| Error(format!("{}: {e}", work.display())))?;
    let python = ensure_python(&work, &root.join("tests/accuracy/requirements.txt"))?;
    let ort = ensure_ort_web()?;
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        apt_install(&["chromium", "chromium-driver"])?;
    }
    cargo_checked("wgpu-act for the comparison", &["build", "--release", "-p", "wgpu-act"])?;
    let cases = work.join("cases");
    let wgpu_act = root.join("target/release/wgpu-act");
    let compare = root.join("tests/accuracy/compare.py");
    let prepared = run(Command::new(&python).arg(&compare).arg("prepare").arg(&cases).env("WGPU_ACT", &wgpu_act))?;
    if !prepared.success() {
        return Err(Error("tests/accuracy/compare.py prepare failed".into()));
    }
    run_page(&root.join("tests/accuracy"), &cases, &ort)?;
    let reported = run(Command::new(&python).arg(&compare).arg("report").arg(&cases).env("WGPU_ACT", &wgpu_act))?;
    if !reported.success() {
        return Err(Error("tests/accuracy/compare.py report failed".into()));
    }
    Ok(())
}

/// ONNX Runtime Web's `dist/` folder (the `onnxruntime-web` npm package, installed into
/// `target/accuracy` when missing).
pub(crate) fn ensure_ort_web() -> Result<std::path::PathBuf> {
    let work = workspace_root().join("target/accuracy");
    let ort = work.join("node_modules/onnxruntime-web/dist");
    if !ort.join("ort.webgpu.min.js").exists() {
        println!("xtask: installing {ORT_WEB} into {}", work.display());
        let installed =
            run(Command::new("npm").args(["install", "--no-audit", "--no-fund", "--prefix"]).arg(&work).arg(ORT_WEB))?;
        if !installed.success() {
            return Err(Error(format!("npm could not install {ORT_WEB}")));
        }
    }
    Ok(ort)
}

/// A virtual environment in `work` with the pinned packages of `requirements`; its python.
fn ensure_python(work: &Path, requirements: &Path) -> Result<std::path::PathBuf> {
    let venv = work.join("venv");
    let python = venv.join("bin/python");
    let stamp = venv.join("requirements.txt");
    let wanted =
        std::fs::read_to_string(requirements).map_err(|e| Error(format!("{}: {e}", requirements.display())))?;
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|have| have == wanted) {
        return Ok(python);
    }
    println!("xtask: making {} with {}", venv.display(), requirements.display());
    if !run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?.success() {
        return Err(Error("python3 -m venv failed (Debian: apt-get install python3-venv)".into()));
    }
    if !run(Command::new(&python).args(["-m", "pip", "install", "-q", "-r"]).arg(requirements))?.success() {
        return Err(Error(format!("pip could not install {}", requirements.display())));
    }
    std::fs::write(&stamp, wanted).map_err(|e| Error(format!("{}: {e}", stamp.display())))?;
    Ok(python)
}

/// Serves the page with the cases and ONNX Runtime Web, runs it in headless Chromium, and
/// writes each case's output to `cases/web/<case>.ort_web.bin`.
fn run_page(page: &Path, cases: &Path, ort: &Path) -> Result<()> {
    let mounts = vec![
        ("/".into(), page.to_path_buf()),
        ("/data/".into(), cases.to_path_buf()),
        ("/ort/".into(), ort.to_path_buf()),
    ];
    let server = Server::start(mounts, 0)?;
    let browser = Browser::open()?;
    browser.navigate(&server.url("page.html"))?;
    let started = Instant::now();
    while browser.eval("return window.accuracy ? window.accuracy.done : false;")? != Value::Bool(true) {
        if started.elapsed() > PAGE_LIMIT {
            return Err(Error("the ONNX Runtime Web page did not finish within 20 minutes".into()));
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    let web = cases.join("web");
    std::fs::create_dir_all(&web).map_err(|e| Error(format!("{}: {e}", web.display())))?;
    let listing: Value = serde_json::from_slice(
        &std::fs::read(cases.join("cases.json")).map_err(|e| Error(format!("cases.json: {e}")))?,
    )
    .map_err(|e| Error(format!("cases.json: {e}")))?;
    for case in listing.as_array().into_iter().flatten() {
        let name = case["name"].as_str().unwrap_or_default();
        let script = format!("return window.accuracy.results[{name:?}] || window.accuracy.errors[{name:?}] || null;");
        match browser.eval(&script)? {
            Value::String(text) if !text.contains(' ') => {
                use base64::Engine;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| Error(format!("{name}: the page's output is not base64: {e}")))?;
                let file = web.join(format!("{name}.ort_web.bin"));
                std::fs::write(&file, bytes).map_err(|e| Error(format!("{}: {e}", file.display())))?;
            }
            Value::String(error) => {
                println!("xtask: ONNX Runtime Web refused {name}: {error}");
                let file = web.join(format!("{name}.ort_web.error"));
                std::fs::write(&file, error).map_err(|e| Error(format!("{}: {e}", file.display())))?;
            }
            _ => {}
        }
    }
    Ok(())
}

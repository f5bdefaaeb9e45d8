//! Running the `wgpu-act` binary from tests: temporary folders, exit statuses, error lines.
#![allow(dead_code, unreachable_pub, reason = "each test binary uses a different subset of these helpers")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(test: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("wgpu-act-cli-{}-{n}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        Self(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn wgpu_act(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wgpu-act")).args(args).output().expect("run wgpu-act")
}

pub fn p(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// True when the command ran on a GPU. False (test skipped) when it exited 1 for lack of an
/// adapter and no GPU is required; any other failure fails the test.
pub fn ran_on_gpu(output: &Output) -> bool {
    let err = stderr(output);
    if output.status.code() == Some(1) && err.contains("no GPU adapter found") && !super::common::gpu_required() {
        eprintln!("SKIPPED: no GPU adapter; set WGPU_ACTIVATIONS_REQUIRE_GPU=1 to make this a failure\n{err}");
        return false;
    }
    assert!(output.status.success(), "wgpu-act failed ({:?}):\n{err}", output.status);
    true
}

/// Like [`ran_on_gpu`], but also false (test skipped) when the library reports that it cannot
/// run this (operator, dtype) on this device (exit 1): the file was read and its dtype accepted.
pub fn ran_if_supported(output: &Output) -> bool {
    let err = stderr(output);
    if output.status.code() == Some(1) && err.contains("not supported on this device") {
        eprintln!("SKIPPED: the library cannot run this on this device:\n{err}");
        return false;
    }
    ran_on_gpu(output)
}

/// Asserts exit status 2 and exactly one `wgpu-act: error:` line containing `needle`, and no
/// panic. Returns that line.
pub fn assert_bad_input(output: &Output, needle: &str) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "expected exit status 2, got {:?}:\n{err}", output.status);
    assert!(!err.contains("panicked"), "wgpu-act panicked:\n{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("wgpu-act: error: ")).collect();
    assert_eq!(lines.len(), 1, "expected one error line:\n{err}");
    assert_error_line_is_last(&err);
    assert!(lines[0].contains(needle), "error line lacks {needle:?}: {}", lines[0]);
    lines[0].to_owned()
}

/// A version 1.0 `.npy` file with the given descriptor, shape literal and raw data.
pub fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

/// The error line ends what `wgpu-act` prints: a message does not run on over more lines.
pub fn assert_error_line_is_last(err: &str) {
    let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(last.starts_with("wgpu-act: error: "), "the error line is not the last line:\n{err}");
}

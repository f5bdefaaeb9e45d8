//! `cargo xtask gpu-bundle`: what `tools/gpu-run.sh` needs on a machine with a real GPU and no
//! Rust: release builds of `wgpu-act`, of the burn example and of the GPU suites (the test step's build, gzipped into
//! `.gpu/`, with the path they were built at, which the suites find their data through), and
//! the Vulkan loader's Debian packages in `.gl/` (such a machine may have NVIDIA's driver
//! without the loader). Both folders are ignored by git; the device tool carries them.

use std::ffi::OsString;
use std::fs;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use crate::{BURN_EXAMPLE, Error, GPU_SUITES, Result, TEST_BUILD, clippy_while_building, run, workspace_root};

/// The Debian packages of the Vulkan loader (and GL's, for what else may need them).
const LOADER_PACKAGES: &[&str] = &["libvulkan1", "libegl1", "libglvnd0", "libopengl0", "libgl1", "libglx0", "libgles2"];

pub(crate) fn gpu_bundle() -> Result<ExitCode> {
    let root = workspace_root();
    let bundle = root.join(".gpu");
    fs::create_dir_all(&bundle).map_err(|e| Error(format!("cannot make {}: {e}", bundle.display())))?;
    println!("xtask: == the test step's release build");
    // One build, its messages for the executables' names (its progress and errors on stderr).
    let listing = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
        .args(TEST_BUILD)
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .envs(clippy_while_building()?)
        .current_dir(&root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error(format!("cannot run the test build: {e}")))?;
    if !listing.status.success() {
        return Ok(ExitCode::FAILURE);
    }
    let mut packed = 0;
    for line in String::from_utf8_lossy(&listing.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(name), Some(executable)) = (message["target"]["name"].as_str(), message["executable"].as_str())
        else {
            continue;
        };
        let kind = &message["target"]["kind"][0];
        let is_suite = GPU_SUITES.contains(&name) && kind == "test";
        let is_binary =
            (name == "wgpu-act" || name == BURN_EXAMPLE) && kind == "bin" && message["profile"]["test"] == false;
        if is_suite || is_binary {
            gzip(Path::new(executable), &bundle.join(format!("{name}.gz")))?;
            packed += 1;
        }
    }
    if packed != GPU_SUITES.len() + 2 {
        return Err(Error(format!(
            "packed {packed} executables, expected the CLI, the burn example and {} suites",
            GPU_SUITES.len()
        )));
    }
    fs::write(bundle.join("built-at"), root.display().to_string())
        .map_err(|e| Error(format!("cannot write {}: {e}", bundle.display())))?;
    let loaders = root.join(".gl");
    let has_debs =
        fs::read_dir(&loaders).is_ok_and(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "deb")));
    if !has_debs {
        fs::create_dir_all(&loaders).map_err(|e| Error(format!("cannot make {}: {e}", loaders.display())))?;
        let mut download = Command::new("apt-get");
        download.arg("download").args(LOADER_PACKAGES).current_dir(&loaders);
        if !run(&mut download)?.success() {
            println!("xtask: apt-get download failed: bring the Vulkan loader's packages into .gl/ yourself");
        }
    }
    println!(
        "xtask: .gpu/ and .gl/ are ready: on the GPU machine, from the repository's root, `bash tools/gpu-run.sh` \
         (device tool: carry .gpu and .gl)"
    );
    Ok(ExitCode::SUCCESS)
}

/// `source` gzipped into `target`.
fn gzip(source: &Path, target: &Path) -> Result<()> {
    let out = fs::File::create(target).map_err(|e| Error(format!("cannot write {}: {e}", target.display())))?;
    let status = Command::new("gzip")
        .arg("-c")
        .arg(source)
        .stdout(out)
        .status()
        .map_err(|e| Error(format!("cannot run gzip: {e}")))?;
    if !status.success() {
        return Err(Error(format!("gzip {} failed", source.display())));
    }
    println!("xtask: {} -> {}", source.display(), target.display());
    Ok(())
}

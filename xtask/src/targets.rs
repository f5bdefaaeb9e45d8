//! What the suite needs beyond lavapipe and EGL: rustup targets of the platforms it can only
//! compile for here, Chromium's SwiftShader Vulkan driver (a second Vulkan implementation, one
//! that flushes subnormals), and the independent shader validators that check naga's output.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::drivers::apt_install;
use crate::{Error, Result, run};

/// Targets the kernel library is linted for without running there: Metal on macOS, DX12 on
/// Windows, Vulkan and GL on Android, and the browser's WebGPU.
pub(crate) const OTHER_TARGETS: [&str; 4] =
    ["aarch64-apple-darwin", "x86_64-pc-windows-msvc", "aarch64-linux-android", "wasm32-unknown-unknown"];

/// What each of [`OTHER_TARGETS`] stands for.
pub(crate) const TARGET_PLATFORMS: [&str; 4] = ["Metal", "DX12", "Android", "the browser"];

/// Adds the rustup targets in `targets` that are missing.
pub(crate) fn ensure_rust_targets(targets: &[&str]) -> Result<()> {
    let installed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    let installed = installed.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let missing: Vec<&str> = targets.iter().copied().filter(|t| !installed.lines().any(|l| l.trim() == *t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    println!("xtask: adding the rustup targets {}", missing.join(", "));
    if !run(Command::new("rustup").arg("target").arg("add").args(&missing))?.success() {
        return Err(Error(format!("`rustup target add {}` failed", missing.join(" "))));
    }
    Ok(())
}

/// Where Debian's chromium package (chromium-common) puts SwiftShader's Vulkan ICD manifest.
const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// The manifest of SwiftShader's Vulkan driver, installing Debian's chromium when it is missing
/// (the suite needs the browser anyway). Pointing `VK_ICD_FILENAMES` at it gives wgpu that
/// driver alone.
pub(crate) fn swiftshader_icd() -> Result<PathBuf> {
    if !Path::new(SWIFTSHADER_ICD).exists() {
        if !Path::new("/etc/debian_version").exists() {
            return Err(Error(format!(
                "SwiftShader's Vulkan driver is expected at {SWIFTSHADER_ICD} (Debian's chromium)"
            )));
        }
        println!("xtask: installing Debian's chromium for SwiftShader's Vulkan driver");
        apt_install(&["chromium"])?;
    }
    if Path::new(SWIFTSHADER_ICD).exists() {
        Ok(PathBuf::from(SWIFTSHADER_ICD))
    } else {
        Err(Error(format!("chromium is installed but {SWIFTSHADER_ICD} is not there")))
    }
}

/// `spirv-val` (spirv-tools) and `glslangValidator` (glslang-tools), which the backend
/// translation test runs on naga's SPIR-V and GLSL, installed when missing.
pub(crate) fn ensure_shader_validators() -> Result<()> {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if have("spirv-val") && have("glslangValidator") {
        return Ok(());
    }
    if !Path::new("/etc/debian_version").exists() {
        return Err(Error("the translation test needs spirv-val and glslangValidator on PATH".into()));
    }
    println!("xtask: installing spirv-tools and glslang-tools (spirv-val, glslangValidator)");
    apt_install(&["spirv-tools", "glslang-tools"])
}

/// The `rust-version` a package's manifest declares.
fn declared_rust_version(manifest: &Path) -> Result<String> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Error(format!("{}: {e}", manifest.display())))?;
    text.lines()
        .find_map(|l| l.strip_prefix("rust-version = \"").and_then(|rest| rest.strip_suffix('"')))
        .map(str::to_string)
        .ok_or_else(|| Error(format!("{} declares no rust-version", manifest.display())))
}

/// Checks that the library builds with the toolchain its `rust-version` names (installed with
/// rustup when missing), all features on, in `target/msrv`: the declared version is the one
/// the dependencies need, not a guess (metadata alone misses crates that use newer syntax
/// without declaring it). `wgpu-act`'s (1.88, for ndarray-npy's dependencies) was found the
/// same way; checking it on every run would cost CI two more minutes of compiling.
pub(crate) fn check_rust_version(root: &Path) -> Result<()> {
    let package = "wgpu-activations";
    let version = declared_rust_version(&root.join("Cargo.toml"))?;
    println!("xtask: == {package} with Rust {version}, its declared rust-version");
    ensure_toolchain(&version)?;
    let status = run(Command::new("rustup")
        .args(["run", &version, "cargo", "check", "--locked", "-p", package, "--all-features"])
        .env("CARGO_TARGET_DIR", root.join("target/msrv"))
        .env_remove("RUSTUP_TOOLCHAIN")
        .current_dir(root))?;
    if !status.success() {
        return Err(Error(format!("{package} does not build with Rust {version}, its declared rust-version")));
    }
    Ok(())
}

/// Installs the rustup toolchain `name` (minimal profile) unless it is there.
pub(crate) fn ensure_toolchain(name: &str) -> Result<()> {
    let have = Command::new("rustup").args(["run", name, "rustc", "--version"]).output();
    if have.is_ok_and(|o| o.status.success())
        || run(Command::new("rustup").args(["toolchain", "install", name, "--profile", "minimal"]))?.success()
    {
        Ok(())
    } else {
        Err(Error(format!("could not install the {name} toolchain with rustup")))
    }
}

//! The GPU drivers the suites need, installed where missing: a Vulkan driver (Mesa's lavapipe
//! on Debian/Ubuntu) and, on Linux, the EGL pieces of the GL backend (llvmpipe); and the
//! folders the children's drivers keep their caches and runtime files in.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Result, run, workspace_root};

/// Standard locations where the Vulkan loader looks for ICD (driver) manifests on Linux.
const ICD_DIRS: &[&str] =
    &["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/etc/xdg/vulkan/icd.d"];

/// Environment variables with which a user points the Vulkan loader at specific drivers.
const ICD_ENV_VARS: &[&str] = &["VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"];

/// The Debian/Ubuntu package that ships lavapipe (a CPU Vulkan implementation) and the
/// hardware Mesa Vulkan drivers.
const DEBIAN_PACKAGE: &str = "mesa-vulkan-drivers";

/// Makes sure wgpu will find its adapters: a Vulkan driver, and on Linux the EGL pieces of the
/// GL backend.
pub(crate) fn ensure_gpu_driver() -> Result<()> {
    ensure_vulkan_driver()?;
    ensure_gl_driver()
}

/// The shared libraries the GL backend loads through EGL on Linux, and the Debian packages that
/// ship them (with Mesa's llvmpipe, a CPU GL driver).
const GL_LIBRARIES: &[&str] = &["libEGL.so.1", "libEGL_mesa.so.0", "libGLESv2.so.2"];
const GL_PACKAGES: &[&str] = &["libegl1", "libegl-mesa0", "libgles2", "libgl1-mesa-dri"];

/// Installs the GL backend's pieces on Debian/Ubuntu when a library is missing.
fn ensure_gl_driver() -> Result<()> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    let missing: Vec<&str> = GL_LIBRARIES.iter().copied().filter(|lib| !library_present(lib)).collect();
    if missing.is_empty() {
        println!("xtask: EGL/GL libraries found: {}", GL_LIBRARIES.join(", "));
        return Ok(());
    }
    if !Path::new("/etc/debian_version").exists() {
        println!(
            "xtask: warning: missing {} (EGL/GL); install Mesa's EGL and GLES libraries; the GL run will fail",
            missing.join(", ")
        );
        return Ok(());
    }
    println!("xtask: missing {}; installing {}", missing.join(", "), GL_PACKAGES.join(" "));
    apt_install(GL_PACKAGES)
}

/// True when the dynamic linker's cache or a standard directory holds `name`.
fn library_present(name: &str) -> bool {
    let cached =
        Command::new("ldconfig").arg("-p").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(name));
    cached
        || ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .iter()
            .any(|dir| Path::new(dir).join(name).exists())
}

/// Makes sure wgpu will find a Vulkan adapter, installing a software Vulkan driver when that is
/// both necessary and possible. Other platforms and explicit non-Vulkan backends are trusted,
/// since their drivers ship with the OS or were chosen deliberately by the user.
fn ensure_vulkan_driver() -> Result<()> {
    if let Some(backend) = non_vulkan_backend() {
        println!("xtask: WGPU_BACKEND={backend} selects a non-Vulkan backend; skipping the Vulkan driver check");
        return Ok(());
    }
    if cfg!(target_os = "macos") {
        println!("xtask: macOS: using Metal, no driver set-up needed");
        return Ok(());
    }
    if cfg!(windows) {
        println!("xtask: Windows: using DX12/Vulkan from the system drivers, no set-up needed");
        return Ok(());
    }

    let found = find_vulkan_icds();
    if !found.is_empty() {
        println!("xtask: Vulkan driver found: {}", join_paths(&found));
        return Ok(());
    }

    if Path::new("/etc/debian_version").exists() {
        install_lavapipe_debian()?;
        let found = find_vulkan_icds();
        if found.is_empty() {
            return Err(Error(format!(
                "installed {DEBIAN_PACKAGE} but still no Vulkan ICD manifest in {}",
                ICD_DIRS.join(", ")
            )));
        }
        println!("xtask: Vulkan driver installed: {}", join_paths(&found));
        return Ok(());
    }

    // Not Debian: we do not guess another package manager's behaviour; say what to install and
    // carry on, so GPU-less local runs still work (tests skip unless CI requires a GPU).
    println!("xtask: warning: no Vulkan driver (ICD) found and this is not Debian/Ubuntu.");
    println!("xtask: install Mesa's lavapipe software driver, e.g.:");
    println!("xtask:   Fedora:  dnf install mesa-vulkan-drivers");
    println!("xtask:   Arch:    pacman -S vulkan-swrast");
    println!("xtask:   Alpine:  apk add mesa-vulkan-swrast");
    println!("xtask: continuing; GPU tests will be skipped, or fail when CI requires a GPU");
    Ok(())
}

/// Returns the value of `WGPU_BACKEND` when it names only backends other than Vulkan, in which
/// case a missing Vulkan driver is irrelevant. `primary` and `all` include Vulkan on Linux.
fn non_vulkan_backend() -> Option<String> {
    let value = env::var("WGPU_BACKEND").ok()?;
    let names: Vec<String> =
        value.split(',').map(|s| s.trim().to_ascii_lowercase()).filter(|s| !s.is_empty()).collect();
    let wants_vulkan = names.iter().any(|n| matches!(n.as_str(), "vulkan" | "vk" | "primary" | "all"));
    (!names.is_empty() && !wants_vulkan).then_some(value)
}

/// Lists Vulkan ICD manifests the loader would see: files or directories named by the loader's
/// override variables, then `*.json` in the standard search directories.
fn find_vulkan_icds() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for var in ICD_ENV_VARS {
        if let Some(list) = env::var_os(var) {
            for path in env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()) {
                if path.is_file() {
                    found.push(path);
                } else if path.is_dir() {
                    found.extend(json_files_in(&path));
                }
            }
        }
    }
    let mut dirs: Vec<PathBuf> = ICD_DIRS.iter().map(PathBuf::from).collect();
    if let Some(data_dirs) = env::var_os("XDG_DATA_DIRS") {
        dirs.extend(env::split_paths(&data_dirs).map(|d| d.join("vulkan/icd.d")));
    }
    if let Some(home) = env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".local/share/vulkan/icd.d"));
    }
    for dir in dirs {
        for file in json_files_in(&dir) {
            if !found.contains(&file) {
                found.push(file);
            }
        }
    }
    found
}

/// The `*.json` files directly inside `dir`, sorted; empty if it is missing or unreadable
/// (a missing directory simply means no drivers there).
fn json_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

/// Formats found manifests for one status line.
fn join_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Installs `mesa-vulkan-drivers` with apt so that lavapipe provides a CPU Vulkan adapter.
fn install_lavapipe_debian() -> Result<()> {
    println!("xtask: no Vulkan driver found; installing Mesa's lavapipe ({DEBIAN_PACKAGE})");
    apt_install(&[DEBIAN_PACKAGE])
}

/// `apt-get install` of `packages`, through sudo when not root. `apt-get update` runs first
/// because fresh containers ship with empty package lists; its failure (e.g. one broken
/// third-party repository) is only a warning, the install decides.
pub(crate) fn apt_install(packages: &[&str]) -> Result<()> {
    let sudo = needs_sudo()?;
    let apt = |args: &[&str]| -> Result<bool> {
        let mut cmd = if sudo {
            // sudo resets the environment, so pass the variable on its command line.
            let mut c = Command::new("sudo");
            c.arg("DEBIAN_FRONTEND=noninteractive").arg("apt-get");
            c
        } else {
            let mut c = Command::new("apt-get");
            c.env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        cmd.args(args);
        Ok(run(&mut cmd)?.success())
    };

    if !apt(&["update"])? {
        println!("xtask: warning: `apt-get update` failed; trying the install anyway");
    }
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(packages);
    if !apt(&install)? {
        let list = packages.join(" ");
        return Err(Error(format!(
            "could not install {list}; install them by hand (`apt-get install {list}`) or set WGPU_BACKEND to another backend"
        )));
    }
    Ok(())
}

/// Whether package installation must go through `sudo`: true unless `id -u` says we are root.
/// Fails early with a clear message when sudo would be needed but is not installed.
fn needs_sudo() -> Result<bool> {
    let output = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| Error(format!("could not run `id -u` to check for root: {e}")))?;
    let uid = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() && uid == "0" {
        return Ok(false);
    }
    let have_sudo =
        env::var_os("PATH").is_some_and(|path| env::split_paths(&path).any(|dir| dir.join("sudo").is_file()));
    if !have_sudo {
        return Err(Error(format!(
            "not running as root (uid {uid}) and `sudo` is not installed; \
             install {DEBIAN_PACKAGE} as root, then rerun"
        )));
    }
    Ok(true)
}

/// The empty folder that this run's drivers keep their shader caches in, once
/// [`cold_driver_caches`] made it.
static DRIVER_CACHES: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Empties `target/driver-caches` and points every later child at it (Mesa's lavapipe and
/// llvmpipe through `MESA_SHADER_CACHE_DIR` and `XDG_CACHE_HOME`, Chromium's disk caches through
/// `XDG_CACHE_HOME`), so that a run compiles each kernel cold, as on a new machine: a test that
/// passes only with a warm cache fails here every time (a fresh machine's first run once timed
/// out in a readback that a developer's warm cache never saw). The run's own steps share it, as
/// they would on that machine.
pub(crate) fn cold_driver_caches() -> Result<PathBuf> {
    let dir = workspace_root().join("target").join("driver-caches");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| Error(format!("could not empty {}: {e}", dir.display())))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error(format!("could not create {}: {e}", dir.display())))?;
    Ok(DRIVER_CACHES.get_or_init(|| dir).clone())
}

/// Points `cmd`'s driver caches at the run's empty folder, when [`cold_driver_caches`] made one.
pub(crate) fn with_driver_caches(cmd: &mut Command) {
    if let Some(dir) = DRIVER_CACHES.get() {
        cmd.env("XDG_CACHE_HOME", dir).env("MESA_SHADER_CACHE_DIR", dir).env_remove("MESA_GLSL_CACHE_DIR");
    }
}

/// `target/xdg-runtime` (mode 0700) when `XDG_RUNTIME_DIR` is unset or not a directory.
pub(crate) fn private_runtime_dir() -> Result<Option<PathBuf>> {
    if env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).is_dir()) {
        return Ok(None);
    }
    let dir = workspace_root().join("target").join("xdg-runtime");
    std::fs::create_dir_all(&dir).map_err(|e| Error(format!("could not create {}: {e}", dir.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error(format!("could not restrict {}: {e}", dir.display())))?;
    }
    Ok(Some(dir))
}

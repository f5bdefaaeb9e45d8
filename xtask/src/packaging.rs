//! What the packages hold: `cargo package`'s crates checked from their own files, and the
//! kernel library's dependency tree without the optional layers.

use std::env;
use std::ffi::OsString;
use std::process::Command;

use crate::{CLI, Error, OPTIONAL_CRATES, Result, cargo_checked, run, workspace_root};

/// The packages as crates.io would get them: `cargo package` of the library and the CLI, each
/// unpacked and checked from its own files (the CLI against the unpacked library). A check, not
/// `cargo publish --dry-run`'s debug build in a target folder of its own: that rebuilt the
/// whole dependency stack on every run (3 min 12 s here), where the check takes the
/// dependencies the lint and documentation steps checked (50 s). What it guards against is the
/// same: a file the code needs (a shader, a .proto) missing from the package.
pub(crate) fn packaging() -> Result<()> {
    let root = workspace_root();
    let packages = root.join("target/package");
    let _ = std::fs::remove_dir_all(&packages);
    cargo_checked(
        "packaging: cargo package of the library and the CLI",
        &["package", "-p", "wgpu-activations", "-p", CLI, "--no-verify", "--allow-dirty"],
    )?;
    let unpacked = packages.join("unpacked");
    std::fs::create_dir_all(&unpacked).map_err(|e| Error(format!("could not create {}: {e}", unpacked.display())))?;
    let (mut library, mut cli) = (None, None);
    for entry in
        std::fs::read_dir(&packages).map_err(|e| Error(format!("could not list {}: {e}", packages.display())))?
    {
        let path = entry.map_err(|e| Error(format!("could not list {}: {e}", packages.display())))?.path();
        let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".crate")) else {
            continue;
        };
        if !run(Command::new("tar").arg("xzf").arg(&path).arg("-C").arg(&unpacked))?.success() {
            return Err(Error(format!("could not unpack {}", path.display())));
        }
        if stem.starts_with("wgpu-activations-") {
            library = Some(unpacked.join(stem));
        } else if stem.starts_with(&format!("{CLI}-")) {
            cli = Some(unpacked.join(stem));
        }
    }
    let (Some(library), Some(cli)) = (library, cli) else {
        return Err(Error(format!("cargo package left no library or no CLI in {}", packages.display())));
    };
    let library_manifest = library.join("Cargo.toml").display().to_string();
    cargo_checked(
        "packaging: the library checked from its package's files",
        &["check", "--manifest-path", &library_manifest, "--locked", "--target-dir", "target"],
    )?;
    let patch = format!("patch.crates-io.wgpu-activations.path={:?}", library.display().to_string());
    let cli_manifest = cli.join("Cargo.toml").display().to_string();
    cargo_checked(
        "packaging: the CLI checked from its package's files, against the packaged library",
        &["check", "--manifest-path", &cli_manifest, "--target-dir", "target", "--config", &patch],
    )
}

/// Fails when the kernel library alone depends on a crate that belongs behind a feature.
pub(crate) fn check_dependency_tree() -> Result<()> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let output = Command::new(cargo)
        .args(["tree", "-e", "normal", "-p", "wgpu-activations", "--prefix", "none"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| Error(format!("could not run cargo tree: {e}")))?;
    let tree = String::from_utf8_lossy(&output.stdout);
    let found: Vec<&str> = OPTIONAL_CRATES
        .iter()
        .copied()
        .filter(|c| tree.lines().any(|l| l.split_whitespace().next() == Some(c)))
        .collect();
    if !output.status.success() || !found.is_empty() {
        return Err(Error(format!(
            "the kernel library with default features depends on {found:?} (cargo tree -e normal -p wgpu-activations)"
        )));
    }
    println!("xtask: the library with its default features depends on none of {}", OPTIONAL_CRATES.join(", "));
    Ok(())
}

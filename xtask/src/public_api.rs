//! The library's public API as a sorted listing of item paths (`public-api.txt`), read from
//! rustdoc's JSON output (`--output-format json`, every feature on). `cargo xtask
//! test` fails when the code's listing differs from the committed one, so that the public
//! surface changes only on purpose: `cargo xtask public-api --bless` rewrites the file.

use std::collections::BTreeSet;
use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

use crate::{Error, Result, run, workspace_root};

/// The committed listing, at the workspace root.
const LISTING: &str = "public-api.txt";

/// Builds the listing from the code and compares it with the committed one (or writes it).
pub(crate) fn check(bless: bool) -> Result<()> {
    let root = workspace_root();
    let listing = listing(&root)?;
    let path = root.join(LISTING);
    if bless {
        std::fs::write(&path, &listing).map_err(|e| Error(format!("{}: {e}", path.display())))?;
        println!("xtask: wrote {} ({} items)", path.display(), listing.lines().count());
        return Ok(());
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == listing {
        println!("xtask: the public API is the committed one ({} items in {LISTING})", listing.lines().count());
        return Ok(());
    }
    let (old, new): (BTreeSet<&str>, BTreeSet<&str>) = (committed.lines().collect(), listing.lines().collect());
    for gone in old.difference(&new) {
        println!("xtask: public API lost:   {gone}");
    }
    for added in new.difference(&old) {
        println!("xtask: public API gained: {added}");
    }
    Err(Error(format!(
        "the public API differs from {LISTING}; if that is intended, run `cargo xtask public-api --bless` and commit it"
    )))
}

/// Set on the cargo that builds the listing: its value is the rustdoc to run, and xtask, as
/// cargo's `RUSTDOC`, runs it with unstable options allowed ([`run_as_rustdoc`]).
pub(crate) const AS_RUSTDOC: &str = "WGPU_ACTIVATIONS_XTASK_AS_RUSTDOC";

/// rustdoc's JSON of the library with every feature, from the toolchain the other steps use
/// and in their target folder: only rustdoc sees `RUSTC_BOOTSTRAP` (which JSON output needs),
/// so the dependencies are the documentation step's, where a nightly toolchain checked them all
/// again (102 s on a fresh clone, after installing nightly).
fn listing(root: &Path) -> Result<String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let rustdoc = env::var_os("RUSTDOC").unwrap_or_else(|| OsString::from("rustdoc"));
    let xtask = env::current_exe().map_err(|e| Error(format!("cannot find xtask's own binary: {e}")))?;
    let status = run(Command::new(cargo)
        .args(["rustdoc", "--locked", "-p", "wgpu-activations", "--lib", "--all-features"])
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .env("RUSTDOC", xtask)
        .env(AS_RUSTDOC, rustdoc)
        .current_dir(root))?;
    if !status.success() {
        return Err(Error("rustdoc's JSON output failed".into()));
    }
    let target = env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let json = target.join("doc/wgpu_activations.json");
    let text = std::fs::read_to_string(&json).map_err(|e| Error(format!("{}: {e}", json.display())))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| Error(format!("{}: {e}", json.display())))?;
    let mut lines = BTreeSet::new();
    let mut walker = Walker { index: &doc["index"], lines: &mut lines, visited: BTreeSet::new() };
    walker.item(&doc["root"], "");
    Ok(lines.into_iter().map(|l| l + "\n").collect())
}

/// xtask as cargo's `RUSTDOC` for [`listing`]: runs the rustdoc named by [`AS_RUSTDOC`] with
/// cargo's arguments and `RUSTC_BOOTSTRAP=1`, and exits with its status.
pub(crate) fn run_as_rustdoc(rustdoc: OsString) -> ExitCode {
    match Command::new(&rustdoc).args(env::args_os().skip(1)).env("RUSTC_BOOTSTRAP", "1").status() {
        Ok(status) => ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        Err(e) => {
            eprintln!("xtask: could not run {}: {e}", rustdoc.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

struct Walker<'a> {
    index: &'a Value,
    lines: &'a mut BTreeSet<String>,
    /// (item, path) pairs already listed: a re-export walks its target again under its name.
    visited: BTreeSet<(String, String)>,
}

impl Walker<'_> {
    fn get(&self, id: &Value) -> Option<&Value> {
        let key = match id {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return None,
        };
        self.index.get(key)
    }

    /// Lists the item `id` as `parent::name` (`name` from the item unless `renamed`).
    fn item(&mut self, id: &Value, parent: &str) {
        self.named(id, parent, None);
    }

    fn named(&mut self, id: &Value, parent: &str, renamed: Option<&str>) {
        let Some(item) = self.get(id).cloned() else { return };
        if item["visibility"] != "public" && item["visibility"] != "default" {
            return;
        }
        let name = renamed.or(item["name"].as_str()).unwrap_or("_");
        let path = if parent.is_empty() { name.to_string() } else { format!("{parent}::{name}") };
        if !self.visited.insert((id.to_string(), path.clone())) {
            return;
        }
        let Some((kind, inner)) = item["inner"].as_object().and_then(|o| o.iter().next()) else { return };
        match kind.as_str() {
            "module" => {
                self.lines.insert(format!("mod {path}"));
                for child in inner["items"].as_array().into_iter().flatten() {
                    self.item(child, &path);
                }
            }
            "use" => {
                let target = &inner["id"];
                let name = inner["name"].as_str().unwrap_or("_");
                if inner["is_glob"] == true {
                    self.lines.insert(format!("use {parent}::* = {}", inner["source"].as_str().unwrap_or("?")));
                } else if self.get(target).is_some() {
                    self.named(target, parent, Some(name));
                } else {
                    // An item of another crate (wgpu itself, for one): listed, not walked.
                    self.lines.insert(format!("use {parent}::{name} = {}", inner["source"].as_str().unwrap_or("?")));
                }
            }
            "struct" | "enum" | "union" | "trait" => {
                self.lines.insert(format!("{kind} {path}"));
                let fields = inner["kind"]["plain"]["fields"].as_array().into_iter().flatten();
                let tuple = inner["kind"]["tuple"].as_array().into_iter().flatten();
                let variants = inner["variants"].as_array().into_iter().flatten();
                let members = inner["items"].as_array().into_iter().flatten();
                let children: Vec<Value> = fields.chain(tuple).chain(variants).chain(members).cloned().collect();
                for child in &children {
                    self.member(child, &path);
                }
                for id in inner["impls"].as_array().into_iter().flatten() {
                    self.implementation(id, &path);
                }
            }
            other => {
                self.lines.insert(format!("{} {path}", other.replace('_', " ")));
            }
        }
    }

    /// A field, variant or trait item of the type at `path`.
    fn member(&mut self, id: &Value, path: &str) {
        let Some(item) = self.get(id).cloned() else { return };
        let Some(kind) = item["inner"].as_object().and_then(|o| o.keys().next()).cloned() else { return };
        if kind == "struct_field" && item["visibility"] != "public" {
            return;
        }
        let name = item["name"].as_str().unwrap_or("_");
        self.lines.insert(format!("{} {path}::{name}", kind.replace('_', " ")));
        for field in item["inner"]["variant"]["kind"]["struct"]["fields"].as_array().into_iter().flatten() {
            if let Some(field) = self.get(field).cloned() {
                self.lines.insert(format!("variant field {path}::{name}::{}", field["name"].as_str().unwrap_or("_")));
            }
        }
    }

    /// An impl block of the type at `path`: its public items when inherent, the trait's name
    /// when a trait impl written here (not auto traits, not blanket impls).
    fn implementation(&mut self, id: &Value, path: &str) {
        let Some(item) = self.get(id).cloned() else { return };
        let inner = &item["inner"]["impl"];
        if inner["is_synthetic"] == true || !inner["blanket_impl"].is_null() {
            return;
        }
        match inner["trait"]["path"].as_str() {
            Some(name) => {
                self.lines.insert(format!("impl {name} for {path}"));
            }
            None => {
                for member in inner["items"].as_array().into_iter().flatten() {
                    let Some(method) = self.get(member).cloned() else { continue };
                    if method["visibility"] != "public" {
                        continue;
                    }
                    let kind = method["inner"].as_object().and_then(|o| o.keys().next()).cloned().unwrap_or_default();
                    self.lines.insert(format!(
                        "{} {path}::{}",
                        kind.replace('_', " "),
                        method["name"].as_str().unwrap_or("_")
                    ));
                }
            }
        }
    }
}

//! The versions that must match: burn and cubecl resolve to the wgpu this library builds on, one
//! wgpu in the whole tree. A drift fails here, loudly (and the example would not compile: it hands
//! our `wgpu::Device` to burn's `WgpuSetup`).

/// Each version of package `name` in the workspace's Cargo.lock.
fn locked_versions(lock: &str, name: &str) -> Vec<String> {
    let mut versions = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            if let Some(version) = lines.next().and_then(|l| l.trim().strip_prefix("version = ")) {
                versions.push(version.trim_matches('"').to_string());
            }
        }
    }
    versions
}

#[test]
fn burn_cubecl_and_this_library_share_one_wgpu() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    let lock = std::fs::read_to_string(path).expect("the workspace's Cargo.lock");
    for name in ["wgpu", "wgpu-core", "wgpu-hal", "wgpu-types", "naga"] {
        let versions = locked_versions(&lock, name);
        assert_eq!(versions.len(), 1, "{name}: one version in the tree, not {versions:?}");
        assert!(versions[0].starts_with("30."), "{name} {}: wgpu 30 is what burn 0.22 and we share", versions[0]);
    }
    for (name, pinned) in [("burn-wgpu", "0.22.1"), ("burn-tensor", "0.22.1"), ("cubecl-wgpu", "0.11.3")] {
        assert_eq!(locked_versions(&lock, name), [pinned], "{name} is pinned to {pinned}");
    }
}

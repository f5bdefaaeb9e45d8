//! Every kernel variant through the translation each backend makes of it: naga's SPIR-V
//! (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES (GL) writers, with the options wgpu gives
//! them, for every entry point. The SPIR-V is checked by `spirv-val` and the GLSL by
//! `glslangValidator` (`cargo xtask test` installs both; with `CI` set a missing one fails).
//! A representation whose feature a backend never offers (f64 in MSL, anything optional in GLSL
//! ES) must not be chosen there: the test proves the context maps it to the emulated path.

use std::path::PathBuf;
use std::process::Command;

use naga::back::{glsl, hlsl, msl, spv};
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};

use super::tests::{all_variants, parse_and_validate};
use super::{KernelKey, Pass};
use crate::repr::{PathPreference, Repr};

/// A backend, and the features of ours its wgpu adapters can offer at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Vulkan,
    Metal,
    Dx12,
    Gl,
}

impl Backend {
    const ALL: [Backend; 4] = [Backend::Vulkan, Backend::Metal, Backend::Dx12, Backend::Gl];

    /// wgpu-hal: Metal has no f64 in MSL; its GLES backend offers none of the three.
    fn features(self) -> wgpu::Features {
        let all = wgpu::Features::SHADER_F16 | wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64;
        match self {
            Backend::Vulkan | Backend::Dx12 => all,
            Backend::Metal => all - wgpu::Features::SHADER_F64,
            Backend::Gl => wgpu::Features::empty(),
        }
    }
}

fn policies() -> BoundsCheckPolicies {
    BoundsCheckPolicies {
        index: BoundsCheckPolicy::Restrict,
        buffer: BoundsCheckPolicy::Restrict,
        image_load: BoundsCheckPolicy::Restrict,
        binding_array: BoundsCheckPolicy::Unchecked,
    }
}

/// SPIR-V 1.0, what a Vulkan 1.0 device gets: the strictest.
fn spirv_options() -> spv::Options<'static> {
    spv::Options { lang_version: (1, 0), bounds_check_policies: policies(), ..Default::default() }
}

/// The source of one entry point for `backend`, or naga's error.
fn translate(
    backend: Backend,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    key: &KernelKey,
    pass: Pass,
) -> Result<Output, String> {
    let entry = pass.entry_point().to_string();
    match backend {
        Backend::Vulkan => {
            let options = spirv_options();
            let pipeline = spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: entry };
            spv::write_vec(module, info, &options, Some(&pipeline)).map(Output::Spirv).map_err(|e| format!("{e:?}"))
        }
        Backend::Metal => {
            // Buffers in their binding's slot, the sizes of runtime arrays after them, as
            // wgpu-hal's Metal device lays them out; MSL 2.4 (macOS 12, iOS 15).
            let mut resources = msl::BindingMap::default();
            for binding in key.bindings(pass) {
                resources.insert(
                    naga::ResourceBinding { group: 0, binding },
                    msl::BindTarget { buffer: Some(binding as u8), mutable: true, ..Default::default() },
                );
            }
            let map = msl::EntryPointResources { resources, immediates_buffer: None, sizes_buffer: Some(30) };
            let options = msl::Options {
                lang_version: (2, 4),
                per_entry_point_map: [(entry.clone(), map)].into(),
                fake_missing_bindings: false,
                bounds_check_policies: policies(),
                ..Default::default()
            };
            let pipeline =
                msl::PipelineOptions { entry_point: Some((naga::ShaderStage::Compute, entry)), ..Default::default() };
            msl::write_string(module, info, &options, &pipeline)
                .map(|(s, _)| Output::Text(s))
                .map_err(|e| format!("{e:?}"))
        }
        Backend::Dx12 => {
            // Shader model 6.2, the first with 16-bit types; registers from the bindings.
            let mut binding_map = hlsl::BindingMap::default();
            for binding in key.bindings(pass) {
                binding_map.insert(
                    naga::ResourceBinding { group: 0, binding },
                    hlsl::BindTarget { space: 0, register: binding, ..Default::default() },
                );
            }
            let options = hlsl::Options {
                shader_model: hlsl::ShaderModel::V6_2,
                binding_map,
                fake_missing_bindings: false,
                ..Default::default()
            };
            let pipeline = hlsl::PipelineOptions { entry_point: Some((naga::ShaderStage::Compute, entry)) };
            let mut source = String::new();
            hlsl::Writer::new(&mut source, &options, &pipeline)
                .write(module, info, None)
                .map(|_| Output::Text(source))
                .map_err(|e| format!("{e:?}"))
        }
        Backend::Gl => {
            // GLSL ES 3.10, the first with compute shaders: what the GL backend targets.
            let options = glsl::Options {
                version: glsl::Version::new_gles(310),
                writer_flags: glsl::WriterFlags::empty(),
                ..Default::default()
            };
            let pipeline =
                glsl::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: entry, multiview: None };
            let mut source = String::new();
            glsl::Writer::new(&mut source, module, info, &options, &pipeline, policies())
                .and_then(|mut w| w.write())
                .map(|_| Output::Glsl(source))
                .map_err(|e| format!("{e:?}"))
        }
    }
}

enum Output {
    Spirv(Vec<u32>),
    Text(String),
    Glsl(String),
}

/// Whether an independent validator is here; with `CI` set, a missing one fails.
fn tool(name: &str) -> bool {
    let present = Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    let required = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(present || !required, "{name} is missing (cargo xtask test installs it)");
    present
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wgpu-activations-translation-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir.join(name)
}

/// GLSL sources a worker validates in one `glslangValidator` run: a run per entry point spent
/// most of the test's time starting processes.
const GLSL_BATCH: usize = 128;

/// `glslangValidator` on every source of `batch` (label, GLSL) in one run, each alone again
/// only where the run refuses one of them, to name it.
fn check_glsl_batch(batch: &[(String, String)], failures: &mut Vec<String>) {
    if batch.is_empty() {
        return;
    }
    static NEXT_BATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let number = NEXT_BATCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let files: Vec<PathBuf> = (0..batch.len()).map(|i| scratch(&format!("batch{number}-{i}.comp"))).collect();
    let written = batch.iter().zip(&files).all(|((_, source), file)| std::fs::write(file, source).is_ok());
    let accepted =
        written && Command::new("glslangValidator").args(&files).output().is_ok_and(|output| output.status.success());
    files.iter().for_each(|file| drop(std::fs::remove_file(file)));
    if !accepted {
        for (label, source) in batch {
            failures.extend(independent_check(&Output::Glsl(source.clone()), label));
        }
    }
}

/// `spirv-val` or `glslangValidator` on one output: `None` when it accepts it.
fn independent_check(output: &Output, label: &str) -> Option<String> {
    let (program, args, file, bytes): (&str, Vec<&str>, PathBuf, Vec<u8>) = match output {
        Output::Spirv(words) => (
            "spirv-val",
            vec!["--target-env", "vulkan1.0"],
            scratch(&format!("{label}.spv")),
            bytemuck::cast_slice(words).to_vec(),
        ),
        Output::Glsl(source) => {
            ("glslangValidator", vec![], scratch(&format!("{label}.comp")), source.as_bytes().to_vec())
        }
        // No validator for MSL and HLSL here (they need Apple's and Microsoft's compilers):
        // at least the entry point must be in the text.
        Output::Text(source) => {
            let entry = label.rsplit('.').nth(1).unwrap_or_default();
            return (!source.contains(entry)).then(|| format!("{label}: no `{entry}` in:\n{source}"));
        }
    };
    if let Err(e) = std::fs::write(&file, bytes) {
        return Some(format!("{label}: writing {}: {e}", file.display()));
    }
    let result = Command::new(program).args(&args).arg(&file).output();
    let _ = std::fs::remove_file(&file);
    match result {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "{label}: {program} refused it:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Some(format!("{label}: {program}: {e}")),
    }
}

#[test]
fn every_kernel_variant_translates_for_every_backend() {
    let tools = (tool("spirv-val"), tool("glslangValidator"));
    let keys = all_variants();
    // Each key alone, on every core: one thread took four minutes of the suite's Vulkan step,
    // most of it waiting for spirv-val and glslangValidator.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = keys.len().div_ceil(threads).max(1);
    let mut failures = Vec::new();
    let mut translated = [0usize; 4];
    std::thread::scope(|scope| {
        let workers: Vec<_> = keys
            .chunks(chunk)
            .map(|keys| {
                scope.spawn(move || {
                    let (mut failures, mut counts, mut glsl) = (Vec::new(), [0usize; 4], Vec::new());
                    for key in keys {
                        translate_key(key, tools, &mut failures, &mut counts, &mut glsl);
                        if glsl.len() >= GLSL_BATCH {
                            check_glsl_batch(&glsl, &mut failures);
                            glsl.clear();
                        }
                    }
                    check_glsl_batch(&glsl, &mut failures);
                    (failures, counts)
                })
            })
            .collect();
        for worker in workers {
            let (found, counts) = worker.join().expect("a translation thread panicked");
            failures.extend(found);
            translated.iter_mut().zip(counts).for_each(|(total, count)| *total += count);
        }
    });
    for (backend, count) in Backend::ALL.iter().zip(translated) {
        println!("{backend:?}: {count} entry points translated");
        assert!(count >= 200, "{backend:?}: only {count} entry points");
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

/// Translates every pass of `key` for every backend that may run it, checking SPIR-V with
/// spirv-val where `tools` says it is present, and adding GLSL to `glsl` for glslangValidator
/// (`check_glsl_batch`) where it is.
fn translate_key(
    key: &KernelKey,
    (spirv_val, glslang): (bool, bool),
    failures: &mut Vec<String>,
    translated: &mut [usize; 4],
    glsl: &mut Vec<(String, String)>,
) {
    let module = match parse_and_validate(key) {
        Ok(module) => module,
        Err(e) => {
            failures.push(e);
            return;
        }
    };
    let caps = naga::valid::Capabilities::all();
    let info = match naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps).validate(&module) {
        Ok(info) => info,
        Err(e) => {
            failures.push(format!("{}: {e:?}", key.label()));
            return;
        }
    };
    let feature = key.repr.spec().feature;
    for (b, backend) in Backend::ALL.into_iter().enumerate() {
        if !backend.features().contains(feature) {
            continue; // never chosen there: the mapping test below
        }
        for pass in key.passes().into_iter().filter(|pass| *pass != Pass::Listed) {
            let label = format!("{}.{}.{backend:?}", key.label(), pass.entry_point());
            match translate(backend, &module, &info, key, pass) {
                Ok(Output::Glsl(source)) => {
                    if glslang {
                        glsl.push((label, source));
                    }
                    translated[b] += 1;
                }
                // The SPIR-V of every entry point at once, below.
                Ok(Output::Spirv(_)) => translated[b] += 1,
                Ok(output) => {
                    if let Some(problem) = independent_check(&output, &label) {
                        failures.push(problem);
                    }
                    translated[b] += 1;
                }
                Err(e) => failures.push(format!("{label}: {e}")),
            }
        }
    }
    // spirv-val once a kernel, on one module holding all its entry points (the same functions
    // as each entry point's module, which naga writes with only those it reaches): a run per
    // entry point spent half the test's time starting spirv-val.
    if spirv_val {
        let label = format!("{}.Vulkan", key.label());
        match spv::write_vec(&module, &info, &spirv_options(), None) {
            Ok(words) => failures.extend(independent_check(&Output::Spirv(words), &label)),
            Err(e) => failures.push(format!("{label}: {e:?}")),
        }
    }
}

/// A representation needing a feature a backend never offers is never chosen there: the
/// context falls back to the dtype's emulated path, which that backend does translate.
#[test]
fn what_a_backend_cannot_take_maps_to_the_emulated_path() {
    for backend in Backend::ALL {
        for dtype in crate::DType::ALL {
            let repr = Repr::choose(dtype, backend.features(), PathPreference::Default, false)
                .unwrap_or_else(|| panic!("{backend:?} has no path for {dtype}"));
            assert!(backend.features().contains(repr.spec().feature), "{backend:?} {dtype}: {repr:?}");
        }
    }
    // And the mapping is needed: MSL has no f64, GLSL ES no f16, f64 or 64-bit integers.
    let key = |repr| {
        KernelKey::new(
            repr,
            &[crate::ops::Step::Prelu(crate::broadcast::SlopeAccess::Same)],
            false,
            super::Tuning::default(),
        )
    };
    for (backend, repr) in
        [(Backend::Metal, Repr::F64), (Backend::Gl, Repr::F64), (Backend::Gl, Repr::F16), (Backend::Gl, Repr::I64)]
    {
        let key = key(repr);
        let module = parse_and_validate(&key).unwrap();
        let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap();
        // naga refuses with an error, or (MSL's f64) stops on an unreachable!.
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            translate(backend, &module, &info, &key, Pass::Main).is_err()
        }))
        .unwrap_or(true);
        assert!(refused, "{backend:?} took {repr:?}");
        assert_ne!(Repr::choose(key.repr.dtype(), backend.features(), PathPreference::Default, false), Some(repr));
    }
}

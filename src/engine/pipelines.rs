//! Compiled kernels, built once per [`KernelKey`] and shared between threads, in a cache with a
//! bound: beyond [`crate::ContextOptions::with_pipeline_cache_capacity`] kernels the least recently
//! used one is dropped (a model of thousands of distinct chains cannot grow memory without end).
//!
//! In the browser a build's errors are known only later, from the event loop: there they
//! reach the call that built the kernel through its scopes, after it returned, and the kernel
//! stays cached; Tint takes every kernel that naga's validation takes (the browser suite
//! compiles all it runs).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use super::platform::caught_now;
use crate::error::{Error, Result};
use crate::kernel::{KernelKey, Pass};

/// One compute pipeline and the layout of its bind group 0.
pub(crate) struct Pipeline {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
}

/// A compiled kernel: its module, the main pass's pipeline, and the others' (the rest's, the
/// tail pass's, the listed pass's), each built the first time it is needed.
pub(crate) struct Kernel {
    pub(crate) key: KernelKey,
    pub(crate) label: String,
    module: wgpu::ShaderModule,
    main: Pipeline,
    rest: OnceLock<Pipeline>,
    tail: OnceLock<Pipeline>,
    listed: OnceLock<Pipeline>,
    first_runs: Arc<FirstRuns>,
}

impl Kernel {
    /// The pipeline of `pass`; building one on first use can fail like any pipeline build.
    pub(crate) fn pipeline(&self, device: &wgpu::Device, pass: Pass) -> Result<&Pipeline> {
        let lazy = match pass {
            Pass::Main => return Ok(&self.main),
            Pass::Rest => &self.rest,
            Pass::Tail => &self.tail,
            Pass::Listed => &self.listed,
        };
        if let Some(built) = lazy.get() {
            return Ok(built);
        }
        let built = build_pipeline(device, &self.module, &self.label, &self.key, pass)?;
        self.first_runs.built();
        Ok(lazy.get_or_init(|| built))
    }
}

/// Counters of the cache, for reports and soak tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PipelineCacheStats {
    /// Kernels held now.
    pub cached: usize,
    /// Kernels compiled since the context was created.
    pub compiled: u64,
    /// Kernels dropped to stay within the capacity.
    pub evicted: u64,
    /// The capacity.
    pub capacity: usize,
}

/// One cached kernel, built at most once: callers that want it while it is being built wait on
/// the slot instead of building it again.
#[derive(Default)]
struct Slot {
    kernel: Mutex<Option<Arc<Kernel>>>,
    last_used: AtomicU64,
}

/// Finds slots under a read lock and inserts new ones under the write lock; builds outside
/// both, under the slot's own lock, so every caller shares one kernel and no lookup waits for a
/// compilation.
pub(crate) struct PipelineCache {
    slots: RwLock<HashMap<KernelKey, Arc<Slot>>>,
    clock: AtomicU64,
    compiled: AtomicU64,
    evicted: AtomicU64,
    capacity: usize,
    pub(crate) first_runs: Arc<FirstRuns>,
}

impl PipelineCache {
    pub(crate) fn new(capacity: usize) -> Self {
        PipelineCache {
            first_runs: Arc::default(),
            slots: RwLock::default(),
            clock: AtomicU64::new(0),
            compiled: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            capacity: capacity.max(1),
        }
    }

    pub(crate) fn stats(&self) -> PipelineCacheStats {
        PipelineCacheStats {
            cached: self.slots.read().unwrap_or_else(|p| p.into_inner()).len(),
            compiled: self.compiled.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
            capacity: self.capacity,
        }
    }

    pub(crate) fn get_or_build(&self, device: &wgpu::Device, key: &KernelKey) -> Result<Arc<Kernel>> {
        let slot = self.slot(key);
        let mut kernel = slot.kernel.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(built) = kernel.as_ref() {
            return Ok(Arc::clone(built));
        }
        let built = Arc::new(build(device, key, &self.first_runs)?);
        self.compiled.fetch_add(1, Ordering::Relaxed);
        *kernel = Some(Arc::clone(&built));
        Ok(built)
    }

    /// The slot of `key`, inserted (evicting the least recently used beyond the capacity) if
    /// there is none.
    fn slot(&self, key: &KernelKey) -> Arc<Slot> {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.slots.read().unwrap_or_else(|p| p.into_inner()).get(key) {
            slot.last_used.store(now, Ordering::Relaxed);
            return Arc::clone(slot);
        }
        let mut slots = self.slots.write().unwrap_or_else(|p| p.into_inner());
        if !slots.contains_key(key) && slots.len() >= self.capacity {
            let oldest = slots.iter().min_by_key(|(_, s)| s.last_used.load(Ordering::Relaxed)).map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                slots.remove(&oldest);
                self.evicted.fetch_add(1, Ordering::Relaxed);
            }
        }
        let slot = slots.entry(*key).or_default();
        slot.last_used.store(now, Ordering::Relaxed);
        Arc::clone(slot)
    }
}

fn build(device: &wgpu::Device, key: &KernelKey, first_runs: &Arc<FirstRuns>) -> Result<Kernel> {
    let label = key.label();
    let wgsl = key.wgsl();
    let (module, caught) = caught_now(device, || shader_module(device, &label, &wgsl));
    if let Some(error) = caught {
        return Err(Error::Shader { label, message: error.to_string(), wgsl });
    }
    let main = build_pipeline(device, &module, &label, key, Pass::Main)?;
    first_runs.built();
    Ok(Kernel {
        key: *key,
        label,
        module,
        main,
        rest: OnceLock::new(),
        tail: OnceLock::new(),
        listed: OnceLock::new(),
        first_runs: Arc::clone(first_runs),
    })
}

/// Pipelines built whose first dispatch has not yet been seen to finish, so that a readback's
/// timeout measures a device that makes no progress, not a driver that compiles.
///
/// CPU drivers (lavapipe, SwiftShader's Vulkan) compile a kernel at its first dispatch, not when
/// its pipeline is made: the compile runs inside the submission that a readback waits for, and
/// on two cores a fused software-f64 chain took 97 s there. A readback therefore waits its
/// timeout plus an allowance for each pipeline built since the last readback that completed (a
/// pipeline built before that one began was dispatched in work it waited for), at most
/// [`MAX_COMPILE_ALLOWANCE`] in all. A device that hangs is still found: after the timeout when
/// no kernel is new, after the allowance on top when some are. With several threads the count
/// is approximate: another thread's kernels built meanwhile lengthen every readback's wait, and
/// one built before a readback began but submitted after it counts as run once that readback
/// completes.
#[derive(Default)]
pub(crate) struct FirstRuns {
    built: AtomicU64,
    settled: AtomicU64,
}

/// The most a readback's compile allowance adds to its timeout, whatever the kernels built.
pub(crate) const MAX_COMPILE_ALLOWANCE: Duration = Duration::from_secs(600);

/// How long one readback may wait, and which builds its completion shows compiled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WaitBudget {
    pub(crate) timeout: Duration,
    built_before: u64,
}

impl FirstRuns {
    fn built(&self) {
        self.built.fetch_add(1, Ordering::Relaxed);
    }

    /// The wait for work submitted now: `timeout`, plus `allowance` per pipeline not yet seen
    /// to run.
    pub(crate) fn budget(&self, timeout: Duration, allowance: Duration) -> WaitBudget {
        let built_before = self.built.load(Ordering::Acquire);
        let fresh = built_before.saturating_sub(self.settled.load(Ordering::Acquire));
        let extra = allowance.saturating_mul(u32::try_from(fresh).unwrap_or(u32::MAX)).min(MAX_COMPILE_ALLOWANCE);
        WaitBudget { timeout: timeout.saturating_add(extra), built_before }
    }

    /// A readback waited with `budget` completed: the pipelines built before it have run.
    pub(crate) fn settle(&self, budget: WaitBudget) {
        self.settled.fetch_max(budget.built_before, Ordering::AcqRel);
    }
}

/// The module of every kernel the library builds, its WGSL first written where
/// [`crate::DUMP_WGSL_ENV`] names a directory (a failure to write changes nothing else: the dump
/// is for reading, not for running).
pub(crate) fn shader_module(device: &wgpu::Device, label: &str, wgsl: &str) -> wgpu::ShaderModule {
    if let Some(directory) = std::env::var_os(crate::DUMP_WGSL_ENV) {
        let _ = std::fs::write(dump_path(std::path::Path::new(&directory), label), wgsl);
    }
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    })
}

/// Where [`shader_module`] writes the kernel labelled `label`: a file name of the label's
/// characters, those outside `[A-Za-z0-9._-]` as `_`, so that no label leaves the directory.
fn dump_path(directory: &std::path::Path, label: &str) -> std::path::PathBuf {
    let name: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    directory.join(format!("{name}.wgsl"))
}

/// How every kernel of the library is compiled. Workgroup memory is left as it is, not zeroed: each
/// kernel that has any (shaders/driver/axis.wgsl, axis_f64.wgsl) writes its invocation's slots
/// before the first barrier and reads no other, and its early returns are the whole workgroup's.
/// The zeroing naga writes for GL (one invocation storing every element, then a barrier) made
/// llvmpipe's GL compiler take 46 s of a 47 s test (`rows_in_segments_in_a_gpus_forms::f32` with
/// empty caches, 1.2 s without). Browsers zero it whatever this says.
pub(crate) fn compilation_options() -> wgpu::PipelineCompilationOptions<'static> {
    wgpu::PipelineCompilationOptions { zero_initialize_workgroup_memory: false, ..Default::default() }
}

fn build_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    label: &str,
    key: &KernelKey,
    pass: Pass,
) -> Result<Pipeline> {
    let (pipeline, caught) = caught_now(device, || {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module,
            entry_point: Some(pass.entry_point()),
            compilation_options: compilation_options(),
            cache: None,
        })
    });
    if let Some(error) = caught {
        return Err(Error::Shader {
            label: format!("{label} ({})", pass.entry_point()),
            message: error.to_string(),
            wgsl: key.wgsl(),
        });
    }
    let layout = pipeline.get_bind_group_layout(0);
    Ok(Pipeline { pipeline, layout })
}

/// A one-off kernel outside the cache: one WGSL source with entry point `main` and an implicit
/// layout. The subnormal probe is one; so are the bench's hand-written yardsticks (`bench::raw`,
/// `bench::plain`).
pub(crate) struct PlainKernel {
    label: String,
    pipeline: wgpu::ComputePipeline,
}

impl PlainKernel {
    pub(crate) fn new(device: &wgpu::Device, label: &str, wgsl: &str) -> PlainKernel {
        let module = shader_module(device, label, wgsl);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: compilation_options(),
            cache: None,
        });
        PlainKernel { label: label.to_string(), pipeline }
    }

    /// Bind group 0 of the kernel, its bindings in `resources` in binding order.
    pub(crate) fn bind(&self, device: &wgpu::Device, resources: &[wgpu::BindingResource<'_>]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = (0u32..)
            .zip(resources)
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource: resource.clone() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.label),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// One compute pass of `groups` workgroups (x, y) over `group`, writing `timestamps` if given.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        group: &wgpu::BindGroup,
        groups: (u32, u32),
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&self.label),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compile_allowance_counts_kernels_not_yet_seen_to_run_and_is_bounded() {
        let (timeout, allowance) = (Duration::from_secs(60), Duration::from_secs(120));
        let first_runs = FirstRuns::default();
        assert_eq!(first_runs.budget(timeout, allowance).timeout, timeout);
        first_runs.built();
        first_runs.built();
        let waited = first_runs.budget(timeout, allowance);
        assert_eq!(waited.timeout, timeout + 2 * allowance);
        // A kernel built while that readback waited is not known to have run when it completes.
        first_runs.built();
        first_runs.settle(waited);
        assert_eq!(first_runs.budget(timeout, allowance).timeout, timeout + allowance);
        // An older readback completing later settles nothing more.
        first_runs.settle(FirstRuns::default().budget(timeout, allowance));
        assert_eq!(first_runs.budget(timeout, allowance).timeout, timeout + allowance);
        (0..100).for_each(|_| first_runs.built());
        assert_eq!(first_runs.budget(timeout, allowance).timeout, timeout + MAX_COMPILE_ALLOWANCE);
    }

    #[test]
    fn a_dumped_kernel_stays_in_its_directory() {
        let directory = std::path::Path::new("kernels");
        assert_eq!(
            dump_path(directory, "wgpu-activations.gelu.f32.guarded"),
            directory.join("wgpu-activations.gelu.f32.guarded.wgsl")
        );
        assert_eq!(dump_path(directory, "../a b/c"), directory.join(".._a_b_c.wgsl"));
    }
}

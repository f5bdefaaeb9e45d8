//! The context: a device and queue (created or adopted), what they can do, and the state every
//! call shares: compiled kernels, pooled buffers, the poller, the device-lost flag.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::driver_lock::DriverLock;
use super::info::{ContextInfo, DTypePath};
use super::loss::DeviceLoss;
use super::options::{ContextOptions, SubnormalProducts};
use super::pipelines::{Kernel, PipelineCache, PipelineCacheStats, WaitBudget};
use super::poller::Poller;
use super::pool::{BufferPool, ParamSlots, PoolStats, PooledBuffer};
use super::probe::Subnormals;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{KernelKey, Products, Tuning, VECTOR_BYTES};
use crate::repr::{PathPreference, Repr, optional_features};

/// Identity of each context, from a global counter: a tensor records its context's, so one
/// made by a dropped context is never mistaken for a newer context's (an address could be).
static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A GPU device ready to run activations: owns (or shares) a `wgpu::Device` and `Queue`, the
/// compiled-kernel cache and the buffer pool. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    pub(crate) id: u64,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: ContextInfo,
    pub(crate) options: ContextOptions,
    pub(crate) tuning: Tuning,
    /// The representation of each dtype on this device, in [`DType::ALL`] order.
    reprs: [Option<Repr>; DType::ALL.len()],
    pub(crate) pipelines: PipelineCache,
    pub(crate) own_pipelines: super::axis::OwnPipelines,
    pub(crate) pool: BufferPool,
    pub(crate) poller: Poller,
    pub(crate) driver_lock: DriverLock,
    loss: DeviceLoss,
    /// Failures found after their call returned, reported by the next call: mismatches found
    /// by validation of work the caller submitted (encoded work), and in the browser the
    /// errors that plain calls' scopes caught.
    pub(crate) deferred_failures: Arc<Mutex<Vec<Error>>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("adapter", &self.inner.info.adapter.name)
            .field("backend", &self.inner.info.adapter.backend)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// Picks an adapter (honouring `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF` where
    /// the options came from [`ContextOptions::from_env`]) and creates a device with the adapter's real
    /// limits (or [`ContextOptions::with_limits`]) and every optional feature the crate uses.
    pub async fn new_async(options: ContextOptions) -> Result<Self> {
        let backends = options.searched_backends();
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = select_adapter(&instance, &options, backends).await?;
        let features = adapter.features() & (optional_features() | wgpu::Features::TIMESTAMP_QUERY);
        let limits = options.limits.clone().unwrap_or_else(|| adapter.limits());
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgpu-activations.device"),
                required_features: features,
                required_limits: limits,
                ..Default::default()
            })
            .await?;
        Ok(Self::measured(device, queue, adapter.get_info(), options).await)
    }

    /// Blocking form of [`Context::new_async`] (not in the browser, whose thread must not wait).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(options: ContextOptions) -> Result<Self> {
        pollster::block_on(Self::new_async(options))
    }

    /// Adopts a device and queue the caller already owns. Features and limits are read from
    /// the device; `adapter` is only recorded in [`Context::info`]. The context registers the
    /// device's lost callback (replacing one the caller set) so that every call after a loss
    /// returns [`Error::DeviceLost`]; the caller's uncaptured-error handler stays as it is.
    /// Natively it blocks while the subnormal probe runs; in the browser, where it cannot,
    /// use [`Context::from_device_async`].
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: &wgpu::Adapter,
        options: ContextOptions,
    ) -> Self {
        Self::from_device_with_info(device, queue, adapter.get_info(), options)
    }

    fn from_device_with_info(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: wgpu::AdapterInfo,
        options: ContextOptions,
    ) -> Self {
        // The browser's thread cannot wait for the probe here; `from_device_async` awaits it.
        #[cfg(target_arch = "wasm32")]
        return Self::assemble(device, queue, adapter, options, Probed::NOT_MEASURED);
        #[cfg(not(target_arch = "wasm32"))]
        pollster::block_on(Self::measured(device, queue, adapter, options))
    }

    /// [`Context::from_device`] without blocking: the subnormal probe is awaited, so that an
    /// adopted device is measured like a created one. In the browser this is the way to adopt
    /// a device: there `from_device` cannot wait for the probe, and its context treats the
    /// device as one that may flush subnormals (exact, at the integer products' cost).
    pub async fn from_device_async(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: &wgpu::Adapter,
        options: ContextOptions,
    ) -> Self {
        Self::measured(device, queue, adapter.get_info(), options).await
    }

    /// The context, its kernels chosen by what the subnormal probe finds: the probe runs on a
    /// provisional context of the same device (it needs only upload and download), whose
    /// caches are then dropped unused. A probe that fails counts as not measured.
    async fn measured(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: wgpu::AdapterInfo,
        options: ContextOptions,
    ) -> Self {
        let measuring =
            Self::assemble(device.clone(), queue.clone(), adapter.clone(), options.clone(), Probed::NOT_MEASURED);
        let not_measured = |probe: Result<Subnormals>| probe.unwrap_or(Subnormals::NotMeasured);
        let probed = Probed {
            subnormals: not_measured(measuring.probe_subnormals().await),
            subnormals_f16: not_measured(measuring.probe_subnormals_f16().await),
            subnormals_f64: not_measured(measuring.probe_subnormals_f64().await),
            fused_multiply_add: measuring.probe_fused_multiply_add().await.unwrap_or(false),
        };
        drop(measuring);
        Self::assemble(device, queue, adapter, options, probed)
    }

    /// The context of a device whose units do what `probed` says.
    fn assemble(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: wgpu::AdapterInfo,
        options: ContextOptions,
        Probed { subnormals, subnormals_f16, subnormals_f64, fused_multiply_add: fused }: Probed,
    ) -> Self {
        let products = match options.subnormal_products {
            SubnormalProducts::ByProbe if subnormals.may_flush() => exact_products_for(adapter.device_type),
            SubnormalProducts::ByProbe | SubnormalProducts::OnHardware => Products::Hardware,
            SubnormalProducts::OnIntegers => Products::Flagged,
            SubnormalProducts::OnIntegersInOnePass => Products::OnIntegers,
            SubnormalProducts::Guarded => Products::Guarded,
            SubnormalProducts::GuardedInTwoPasses => Products::FlaggedByRange,
        };
        let on_integers = products.exact_on_flushing_devices();
        let info = ContextInfo {
            adapter,
            features: device.features(),
            limits: device.limits(),
            subnormals,
            subnormals_f16,
            subnormals_f64,
            subnormal_products_on_integers: on_integers,
            subnormal_products_in_two_passes: products.first_of_two_passes(),
            subnormal_products_guarded: products.tests_plain_ranges(),
            fused_multiply_add: fused,
            fused_product_errors: options.fused_product_errors.unwrap_or(fused),
        };
        let loss = DeviceLoss::watch(&device);
        let cpu_adapter = info.adapter.device_type == wgpu::DeviceType::Cpu;
        let driver_lock = DriverLock::for_backend(info.adapter.backend);
        // A float unit that flushes is not trusted with native f16 or f64 unless their own
        // probes found subnormals kept: their emulated paths compute on integers (f64) or
        // through the exact f32 products (f16). Native f16 computes through the same exact f32
        // products, so its own conversions and compares are what its probe asks (an H200 keeps
        // f16 subnormals where it flushes f32 ones). Native f64 is trusted where its own probe
        // found them kept; not measured, it goes with the f32 unit.
        // Asked for by name (`ContextOptions::all_native`), the native path is still taken.
        let f64_may_flush = match subnormals_f64 {
            Subnormals::NotMeasured => subnormals.may_flush(),
            measured => measured.may_flush(),
        };
        let mut trusted = info.features;
        if on_integers && subnormals.may_flush() && subnormals_f16.may_flush() {
            trusted.remove(wgpu::Features::SHADER_F16);
        }
        if on_integers && f64_may_flush {
            trusted.remove(wgpu::Features::SHADER_F64);
        }
        let reprs = DType::ALL.map(|dtype| {
            let preference = options.preference(dtype);
            let features = if preference == PathPreference::Native { info.features } else { trusted };
            Repr::choose(dtype, features, preference, cpu_adapter)
        });
        let straight_line = options.straight_line.unwrap_or_else(|| info.adapter.name.contains("llvmpipe"));
        let contiguous = options.contiguous_vectors.unwrap_or(cpu_adapter);
        let mut tuning = Tuning::for_limits(&info.limits, options.kernel_shape, contiguous, cpu_adapter, straight_line);
        tuning.products = products;
        tuning.fused_product_errors = info.fused_product_errors;
        tuning.step_program = options.step_programs.unwrap_or(cpu_adapter);
        Self {
            inner: Arc::new(ContextInner {
                id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
                tuning,
                reprs,
                pipelines: PipelineCache::new(options.pipeline_cache_capacity),
                own_pipelines: super::axis::OwnPipelines::default(),
                pool: BufferPool::new(options.pool_capacity_bytes),
                poller: Poller::new(device.clone(), driver_lock.clone()),
                driver_lock,
                device,
                queue,
                info,
                options,
                loss,
                deferred_failures: Arc::default(),
            }),
        }
    }

    /// Adapter, features and limits of this context.
    pub fn info(&self) -> &ContextInfo {
        &self.inner.info
    }

    /// The options this context was created with.
    pub fn options(&self) -> &ContextOptions {
        &self.inner.options
    }

    /// The underlying device (to share it with other wgpu code).
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The underlying queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// Counters of the kernel cache.
    pub fn pipeline_cache_stats(&self) -> PipelineCacheStats {
        self.inner.pipelines.stats()
    }

    /// What the buffer pool holds.
    pub fn pool_stats(&self) -> PoolStats {
        self.inner.pool.stats()
    }

    /// Frees the idle pooled buffers (buffers in use are unaffected and return to the pool
    /// when dropped).
    pub fn release_idle_buffers(&self) {
        self.inner.pool.clear();
    }

    /// True once the device was lost or destroyed; a device destroyed a moment ago is lost at
    /// once (the context asks without waiting), natively and in the browser.
    pub fn is_lost(&self) -> bool {
        self.notice_invalid_device(false);
        self.inner.loss.reason().is_some()
    }

    /// How this context runs `dtype`: natively, emulated on u32 words, on the CPU reference
    /// (opted in), or not at all.
    pub fn dtype_path(&self, dtype: DType) -> DTypePath {
        if self.runs_on_cpu(dtype) {
            return DTypePath::CpuFallback;
        }
        match self.repr(dtype) {
            Some(repr) if repr.spec().native => DTypePath::Native(repr.spec().description),
            Some(repr) => DTypePath::Emulated(repr.spec().description),
            None => DTypePath::Unsupported,
        }
    }

    /// The one switch for running on the CPU: true for f64 on a device without `SHADER_F64`
    /// when [`ContextOptions::with_f64_cpu_fallback`] opted in. Host-array calls and the ONNX
    /// runner then compute with [`crate::reference`]; device tensors are refused.
    pub fn runs_on_cpu(&self, dtype: DType) -> bool {
        dtype == DType::F64
            && self.inner.options.f64_cpu_fallback
            && !self.inner.info.features.contains(wgpu::Features::SHADER_F64)
    }

    pub(crate) fn repr(&self, dtype: DType) -> Option<Repr> {
        let index = DType::ALL.iter().position(|&d| d == dtype)?;
        self.inner.reprs[index]
    }

    /// The representation `op` runs `dtype` on, or why it cannot.
    pub(crate) fn repr_for(&self, op: &'static str, dtype: DType) -> Result<Repr> {
        self.repr(dtype).ok_or_else(|| Error::Unsupported {
            op,
            dtype,
            reason: format!(
                "the device ({}) has no path for {dtype}: it lacks SHADER_F64; {}",
                self.inner.info.adapter.name,
                if self.inner.options.f64_cpu_fallback {
                    "the CPU fallback serves host arrays, not device tensors"
                } else {
                    "enable ContextOptions::with_f64_cpu_fallback to run f64 on the CPU reference instead"
                }
            ),
        })
    }

    pub(crate) fn kernel(&self, key: &KernelKey) -> Result<Arc<Kernel>> {
        self.inner.pipelines.get_or_build(&self.inner.device, key)
    }

    /// How long a wait for work submitted now may take: the readback timeout and the compile
    /// allowance of the kernels that may still be compiling ([`super::pipelines::FirstRuns`]).
    pub(crate) fn wait_budget(&self) -> WaitBudget {
        let options = &self.inner.options;
        self.inner.pipelines.first_runs.budget(options.readback_timeout, options.compile_allowance)
    }

    /// Refuses work once the device is lost, and reports what was found after earlier calls
    /// returned: validation mismatches of work the caller submitted, and (in the browser) errors
    /// of plain calls' scopes.
    pub(crate) fn check_ready(&self) -> Result<()> {
        self.notice_invalid_device(false);
        if let Some(reason) = self.inner.loss.reason() {
            return Err(Error::DeviceLost { reason });
        }
        // A check whose maps failed because the device went away reports the loss.
        self.take_deferred().map_or(Ok(()), |failure| self.lost_or(Err(failure)))
    }

    /// Runs `work` inside validation and out-of-memory error scopes, so that what wgpu reports
    /// becomes an error value (and [`Error::DeviceLost`] once the device is gone) instead of a
    /// panic in wgpu's default handler. Scopes are per thread, so `work` must not await.
    ///
    /// Natively the scopes answer at once. In the browser only the event loop answers them, so
    /// a plain call returns what it recorded and what the scopes catch is returned by the next
    /// call on the context ([`Context::check_ready`]); an awaited call uses
    /// [`Context::scoped_async`] instead.
    pub(crate) fn scoped<R>(&self, during: &'static str, work: impl FnOnce() -> Result<R>) -> Result<R> {
        self.check_ready()?;
        let (result, pops) = self.in_scopes(work);
        let mut caught = None;
        for pop in pops {
            let deferred = Arc::clone(&self.inner.deferred_failures);
            let now = super::platform::now_or_later(pop, move |error| {
                deferred.lock().unwrap_or_else(|p| p.into_inner()).push(gpu_error(during, error));
            });
            if let Some(error) = now {
                caught.get_or_insert(gpu_error(during, error));
            }
        }
        self.judge_scopes(result, caught)
    }

    /// [`Context::scoped`] for awaited calls: waits for the scopes' answer without blocking
    /// (in the browser the event loop brings it).
    pub(crate) async fn scoped_async<R>(&self, during: &'static str, work: impl FnOnce() -> Result<R>) -> Result<R> {
        self.check_ready()?;
        let (result, [memory, validation]) = self.in_scopes(work);
        let caught = match (memory.await, validation.await) {
            (Some(error), _) | (None, Some(error)) => Some(gpu_error(during, error)),
            (None, None) => None,
        };
        self.judge_scopes(result, caught)
    }

    fn in_scopes<R>(
        &self,
        work: impl FnOnce() -> Result<R>,
    ) -> (Result<R>, [impl std::future::Future<Output = Option<wgpu::Error>> + 'static; 2]) {
        let _driver = self.inner.driver_lock.hold();
        let validation = self.inner.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory = self.inner.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let result = work();
        (result, [memory.pop(), validation.pop()])
    }

    /// The call's outcome once its scopes answered: a scope's error fails a call that
    /// succeeded, and a lost device turns any failure into [`Error::DeviceLost`].
    fn judge_scopes<R>(&self, result: Result<R>, caught: Option<Error>) -> Result<R> {
        match (self.lost_or(result), caught) {
            (Ok(_), Some(error)) => self.lost_or(Err(error)),
            (result, _) => result,
        }
    }

    /// The oldest failure reported after its call returned, if any.
    fn take_deferred(&self) -> Option<Error> {
        let mut failures = self.inner.deferred_failures.lock().unwrap_or_else(|p| p.into_inner());
        if failures.is_empty() { None } else { Some(failures.remove(0)) }
    }

    /// Records the loss of a device that is no longer valid (see [`DeviceLoss::notice`]).
    fn notice_invalid_device(&self, after_error: bool) {
        let _driver = self.inner.driver_lock.hold();
        self.inner.loss.notice(&self.inner.device, after_error);
    }

    /// `result`, unless it failed because the device was lost: then [`Error::DeviceLost`].
    pub(crate) fn lost_or<R>(&self, result: Result<R>) -> Result<R> {
        match result {
            Err(error) => match self.lost_reason_after_error() {
                Some(reason) => Err(Error::DeviceLost { reason }),
                None => Err(error),
            },
            ok => ok,
        }
    }

    /// Why the device was lost, if it was, asked after an error.
    fn lost_reason_after_error(&self) -> Option<String> {
        self.notice_invalid_device(true);
        self.inner.loss.reason()
    }

    /// Bytes one storage binding may cover: a multiple of the binding offset alignment and of
    /// the Vector size.
    pub(crate) fn max_binding_bytes(&self) -> u64 {
        let limits = &self.inner.info.limits;
        let device = limits.max_storage_buffer_binding_size;
        let cap = self.inner.options.max_binding_bytes.map_or(device, |c| c.min(device));
        let align = self.offset_alignment();
        (cap / align * align).max(align)
    }

    /// The storage binding offset alignment (at least one Vector).
    pub(crate) fn offset_alignment(&self) -> u64 {
        u64::from(self.inner.info.limits.min_storage_buffer_offset_alignment).max(VECTOR_BYTES)
    }

    /// Bytes one device buffer may hold.
    pub(crate) fn max_buffer_bytes(&self) -> u64 {
        let device = self.inner.info.limits.max_buffer_size;
        self.inner.options.max_buffer_bytes.map_or(device, |c| c.min(device)).max(256)
    }

    pub(crate) fn check_buffer_size(&self, what: &str, bytes: u64) -> Result<()> {
        let limit = self.max_buffer_bytes();
        if bytes > limit {
            return Err(Error::TooLarge { what: format!("{what} buffer (bytes)"), needed: bytes, limit });
        }
        Ok(())
    }

    /// A pooled buffer of at least `bytes` bytes, within [`ContextOptions::with_max_buffer_bytes`].
    pub(crate) fn take_buffer(&self, bytes: u64, usage: wgpu::BufferUsages, label: &str) -> Result<PooledBuffer> {
        self.check_buffer_size(label, bytes)?;
        self.inner.pool.take(&self.inner.device, bytes, usage, label, self.max_buffer_bytes())
    }

    /// A pooled uniform buffer of `count` slots of `size` bytes each, at the device's uniform
    /// offset alignment: the parameters of a call's dispatches, written with one upload.
    pub(crate) fn take_param_slots(&self, count: usize, size: u64, label: &str) -> Result<ParamSlots> {
        let alignment = u64::from(self.inner.info.limits.min_uniform_buffer_offset_alignment).max(16);
        let slot = size.next_multiple_of(alignment);
        let bytes = slot * count as u64;
        let buffer =
            self.take_internal_buffer(bytes, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST, label)?;
        Ok(ParamSlots { buffer, slot, size, data: vec![0; bytes as usize] })
    }

    /// A pooled buffer for the engine's own bookkeeping (kernel parameters), bounded by the
    /// device's limit only: the option caps tensors, and parameters grow with their windows.
    pub(crate) fn take_internal_buffer(
        &self,
        bytes: u64,
        usage: wgpu::BufferUsages,
        label: &str,
    ) -> Result<PooledBuffer> {
        let limit = self.inner.info.limits.max_buffer_size;
        self.inner.pool.take(&self.inner.device, bytes, usage, label, limit)
    }
}

async fn select_adapter(
    instance: &wgpu::Instance,
    options: &ContextOptions,
    backends: wgpu::Backends,
) -> Result<wgpu::Adapter> {
    let from_env = options.use_environment.then(|| std::env::var("WGPU_ADAPTER_NAME").ok()).flatten();
    if let Some(requested) = from_env.or_else(|| options.adapter_name.clone()) {
        let requested_lower = requested.to_lowercase();
        let adapters = instance.enumerate_adapters(backends).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&requested_lower))
            .ok_or(Error::AdapterNotFound { requested, available: names });
    }
    let preference = options.use_environment.then(wgpu::PowerPreference::from_env).flatten();
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: preference.unwrap_or(options.power_preference),
            ..Default::default()
        })
        .await
        .map_err(|_| Error::NoAdapter { backends: format!("{backends:?}") })
}

/// Every adapter wgpu finds on `backends` (for `wgpu-act info --all`).
pub async fn enumerate_adapters(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    instance.enumerate_adapters(backends).await
}

/// What an error scope caught, as an error value of one line.
fn gpu_error(during: &'static str, error: wgpu::Error) -> Error {
    Error::Wgpu { during, message: one_line(&error.to_string()), source: error }
}

/// wgpu's multi-line error report ("Validation Error", "Caused by:", indented causes) as one
/// line, so that an error prints as one line.
fn one_line(report: &str) -> String {
    let parts: Vec<&str> = report.lines().map(str::trim).filter(|l| !l.is_empty() && *l != "Caused by:").collect();
    parts.join(": ")
}

/// What the probes found when the context was made.
struct Probed {
    subnormals: Subnormals,
    subnormals_f16: Subnormals,
    subnormals_f64: Subnormals,
    fused_multiply_add: bool,
}

impl Probed {
    /// A device not measured (in the browser, adopted without waiting): assumed to flush, and
    /// its fma to round twice.
    const NOT_MEASURED: Probed = Probed {
        subnormals: Subnormals::NotMeasured,
        subnormals_f16: Subnormals::NotMeasured,
        subnormals_f64: Subnormals::NotMeasured,
        fused_multiply_add: false,
    };
}

/// Exact products on a device that flushes subnormals: in one pass on a GPU, whose lanes skip a
/// branch that none of them takes (the integer products sit behind one, and behind the step's
/// plain range: `Products::Guarded`), in two elsewhere
/// (SwiftShader, and adapters that do not say what they are, as in a browser), where masked
/// code runs on every lane. On an H200, 2^24 f32, share of the copy kernel, two passes (each
/// product flagged) / one pass / the float unit's products: LeakyRelu 0.81 / 0.93 / 0.97, Elu
/// 0.78 / 0.85 / 0.95, HardSigmoid 0.82 / 0.98 / 0.96, Tanh 0.77 / 0.89 / 0.91, Swish 0.60 /
/// 0.63 / 0.87, PRelu scalar 0.80 / 0.90 / 1.00 (BENCHMARKS.md). The first of the two passes
/// flags a Vector by each step's plain range, not by each product (`Products::FlaggedByRange`):
/// natively on SwiftShader, 2^22 f32, share of the copy kernel, Celu 0.17-0.18 -> 0.27-0.28,
/// Selu 0.35-0.44 -> 0.50-0.51, HardSwish 0.64 -> 0.70-0.76, Swish 0.40 -> 0.45, LeakyRelu alike.
fn exact_products_for(device_type: wgpu::DeviceType) -> Products {
    match device_type {
        wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::IntegratedGpu | wgpu::DeviceType::VirtualGpu => {
            Products::Guarded
        }
        wgpu::DeviceType::Cpu | wgpu::DeviceType::Other => Products::FlaggedByRange,
    }
}

//! The device layer: adapter selection, device creation or adoption, capability records.

use std::fmt;
use std::sync::Arc;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::pipeline::PipelineCache;
use crate::pool::BufferPool;

/// Features used when the adapter offers them; none is required.
const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_F16
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::TIMESTAMP_QUERY);

/// How a [`Context`] picks its adapter and which code paths it prefers.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ContextOptions {
    /// Preference when `WGPU_POWER_PREF` and `WGPU_ADAPTER_NAME` are unset. Default: high performance.
    pub power_preference: wgpu::PowerPreference,
    /// Backends to search when `WGPU_BACKEND` is unset. Default: all.
    pub backends: wgpu::Backends,
    /// Use the emulated (packed u32) f16 path even when the device has `SHADER_F16`.
    pub force_emulated_f16: bool,
    /// Use the emulated (`vec2<u32>`) 64-bit integer path even when the device has `SHADER_INT64`.
    pub force_emulated_i64: bool,
    /// Run f64 operators on the CPU reference when the device lacks `SHADER_F64`, instead of
    /// returning [`Error::Unsupported`].
    pub f64_cpu_fallback: bool,
    /// Cap on the bytes one storage binding may cover, below the device's
    /// `max_storage_buffer_binding_size`. Larger tensors are processed in several dispatches
    /// over windows of one buffer; lowering the cap exercises that path on small tensors.
    pub max_binding_bytes: Option<u64>,
    /// Cap on the bytes of one device buffer, below the device's `max_buffer_size`. Host arrays
    /// larger than this are processed in pieces.
    pub max_buffer_bytes: Option<u64>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            power_preference: wgpu::PowerPreference::HighPerformance,
            backends: wgpu::Backends::all(),
            force_emulated_f16: false,
            force_emulated_i64: false,
            f64_cpu_fallback: false,
            max_binding_bytes: None,
            max_buffer_bytes: None,
        }
    }
}

impl ContextOptions {
    /// Options with the emulated f16 and i64 paths forced on (used to test them on devices that
    /// have the native types).
    pub fn emulated() -> Self {
        Self::default().with_emulated_f16(true).with_emulated_i64(true)
    }

    /// Sets [`ContextOptions::power_preference`].
    pub fn with_power_preference(mut self, preference: wgpu::PowerPreference) -> Self {
        self.power_preference = preference;
        self
    }

    /// Sets [`ContextOptions::backends`].
    pub fn with_backends(mut self, backends: wgpu::Backends) -> Self {
        self.backends = backends;
        self
    }

    /// Sets [`ContextOptions::force_emulated_f16`].
    pub fn with_emulated_f16(mut self, force: bool) -> Self {
        self.force_emulated_f16 = force;
        self
    }

    /// Sets [`ContextOptions::force_emulated_i64`].
    pub fn with_emulated_i64(mut self, force: bool) -> Self {
        self.force_emulated_i64 = force;
        self
    }

    /// Sets [`ContextOptions::f64_cpu_fallback`].
    pub fn with_f64_cpu_fallback(mut self, fallback: bool) -> Self {
        self.f64_cpu_fallback = fallback;
        self
    }

    /// Sets [`ContextOptions::max_binding_bytes`].
    pub fn with_max_binding_bytes(mut self, bytes: u64) -> Self {
        self.max_binding_bytes = Some(bytes);
        self
    }

    /// Sets [`ContextOptions::max_buffer_bytes`].
    pub fn with_max_buffer_bytes(mut self, bytes: u64) -> Self {
        self.max_buffer_bytes = Some(bytes);
        self
    }
}

/// How a context runs one element type (see [`Context::dtype_path`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DTypePath {
    /// A native WGSL type; the text says which device feature provides it.
    Native(&'static str),
    /// Emulated on u32 words; the text says how.
    Emulated(&'static str),
    /// On the CPU reference (f64 without SHADER_F64, opted in).
    CpuFallback,
    /// Refused with [`crate::Error::Unsupported`].
    Unsupported,
}

impl fmt::Display for DTypePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DTypePath::Native(how) | DTypePath::Emulated(how) => f.write_str(how),
            DTypePath::CpuFallback => f.write_str("CPU reference (f64 fallback)"),
            DTypePath::Unsupported => f.write_str("unsupported on this device"),
        }
    }
}

/// What the adapter and device are, and what they can do.
#[derive(Debug, Clone)]
pub struct ContextInfo {
    /// Adapter facts as wgpu reports them (name, backend, device type, driver, ...).
    pub adapter: wgpu::AdapterInfo,
    /// Features enabled on the device.
    pub features: wgpu::Features,
    /// Limits the device was created with (the adapter's real limits when we created it).
    pub limits: wgpu::Limits,
}

impl ContextInfo {
    /// Element types the device handles with native WGSL types (the rest are emulated on u32
    /// words or unsupported).
    pub fn native_dtypes(&self) -> Vec<DType> {
        let mut native = vec![DType::F32, DType::I32, DType::U32];
        if self.features.contains(wgpu::Features::SHADER_F16) {
            native.push(DType::F16);
        }
        if self.features.contains(wgpu::Features::SHADER_F64) {
            native.push(DType::F64);
        }
        if self.features.contains(wgpu::Features::SHADER_INT64) {
            native.extend([DType::I64, DType::U64]);
        }
        native.sort();
        native
    }
}

impl fmt::Display for ContextInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.adapter;
        let native: Vec<&str> = self.native_dtypes().iter().map(|d| d.name()).collect();
        writeln!(f, "adapter:      {}", a.name)?;
        writeln!(f, "backend:      {:?}", a.backend)?;
        writeln!(f, "device type:  {:?}", a.device_type)?;
        writeln!(f, "vendor/device: {:#06x}/{:#06x}", a.vendor, a.device)?;
        writeln!(f, "driver:       {} ({})", a.driver, a.driver_info)?;
        writeln!(f, "native dtypes: {}", native.join(", "))?;
        let named = [
            ("SHADER_F16", wgpu::Features::SHADER_F16),
            ("SHADER_F64", wgpu::Features::SHADER_F64),
            ("SHADER_INT64", wgpu::Features::SHADER_INT64),
            ("TIMESTAMP_QUERY", wgpu::Features::TIMESTAMP_QUERY),
        ];
        let present: Vec<&str> =
            named.iter().filter(|(_, f)| self.features.contains(*f)).map(|(name, _)| *name).collect();
        writeln!(f, "features:     {}", if present.is_empty() { "none".into() } else { present.join(", ") })?;
        writeln!(f, "max storage buffer binding: {} bytes", self.limits.max_storage_buffer_binding_size)?;
        writeln!(f, "max buffer size:            {} bytes", self.limits.max_buffer_size)?;
        writeln!(
            f,
            "max workgroups per dimension: {}",
            self.limits.max_compute_workgroups_per_dimension
        )?;
        write!(f, "max invocations per workgroup: {}", self.limits.max_compute_invocations_per_workgroup)
    }
}

/// A GPU device ready to run activations: owns (or shares) a `wgpu::Device` and `Queue`, the
/// compiled-pipeline cache and the buffer pool. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: ContextInfo,
    pub(crate) options: ContextOptions,
    pub(crate) pipelines: PipelineCache,
    pub(crate) pool: BufferPool,
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
    /// Picks an adapter (honouring `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`) and
    /// creates a device with the adapter's real limits and every optional feature we use.
    pub async fn new_async(options: ContextOptions) -> Result<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::from_env().unwrap_or(options.backends),
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = select_adapter(&instance, &options).await?;
        let features = adapter.features() & WANTED_FEATURES;
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgpu-activations.device"),
                required_features: features,
                required_limits: limits,
                ..Default::default()
            })
            .await?;
        Ok(Self::from_device_with_info(device, queue, adapter.get_info(), options))
    }

    /// Blocking form of [`Context::new_async`].
    pub fn new(options: ContextOptions) -> Result<Self> {
        pollster::block_on(Self::new_async(options))
    }

    /// A context on the default adapter with default options.
    pub fn default_blocking() -> Result<Self> {
        Self::new(ContextOptions::default())
    }

    /// Adopts a device and queue the caller already owns. Features and limits are read from
    /// the device; `adapter` is only recorded in [`Context::info`].
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
        let info = ContextInfo { adapter, features: device.features(), limits: device.limits() };
        Self {
            inner: Arc::new(ContextInner {
                pool: BufferPool::new(),
                pipelines: PipelineCache::default(),
                device,
                queue,
                info,
                options,
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

    /// Number of distinct compute pipelines compiled so far.
    pub fn cached_pipeline_count(&self) -> usize {
        self.inner.pipelines.len()
    }

    /// Bytes one storage binding may cover, a multiple of the binding offset alignment.
    pub(crate) fn max_binding_bytes(&self) -> u64 {
        let limits = &self.inner.info.limits;
        let device = limits.max_storage_buffer_binding_size;
        let cap = self.inner.options.max_binding_bytes.map_or(device, |c| c.min(device));
        let align = u64::from(limits.min_storage_buffer_offset_alignment).max(8);
        (cap / align * align).max(align)
    }

    /// Bytes one device buffer may hold.
    pub(crate) fn max_buffer_bytes(&self) -> u64 {
        let device = self.inner.info.limits.max_buffer_size;
        self.inner.options.max_buffer_bytes.map_or(device, |c| c.min(device)).max(256)
    }

    /// Bytes of device memory held by idle pooled buffers (at most 512 MiB).
    pub fn idle_buffer_bytes(&self) -> u64 {
        self.inner.pool.idle_bytes()
    }

    /// Frees the idle pooled buffers (buffers in use are unaffected and return to the pool
    /// when dropped).
    pub fn release_idle_buffers(&self) {
        self.inner.pool.clear();
    }

    /// How this context runs `dtype`: natively, emulated on u32 words, on the CPU reference
    /// (f64 opt-in), or not at all.
    pub fn dtype_path(&self, dtype: DType) -> DTypePath {
        match crate::shader::Repr::choose(dtype, self.inner.info.features, &self.inner.options) {
            Some(repr) if repr.is_native() => DTypePath::Native(repr.path_name()),
            Some(repr) => DTypePath::Emulated(repr.path_name()),
            None if self.inner.options.f64_cpu_fallback => DTypePath::CpuFallback,
            None => DTypePath::Unsupported,
        }
    }

    pub(crate) fn has_feature(&self, feature: wgpu::Features) -> bool {
        self.inner.info.features.contains(feature)
    }
}

async fn select_adapter(instance: &wgpu::Instance, options: &ContextOptions) -> Result<wgpu::Adapter> {
    let backends = wgpu::Backends::from_env().unwrap_or(options.backends);
    if let Ok(requested) = std::env::var("WGPU_ADAPTER_NAME") {
        let requested_lower = requested.to_lowercase();
        let adapters = instance.enumerate_adapters(backends).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&requested_lower))
            .ok_or(Error::AdapterNotFound { requested, available: names });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or(options.power_preference),
            ..Default::default()
        })
        .await
        .map_err(|_| Error::NoAdapter { backends: format!("{backends:?}") })
}

//! How a [`crate::Context`] picks its adapter, which code paths it prefers, and its safety limits.

use std::time::Duration;

use crate::dtype::DType;

/// Environment variable that turns validation mode on (`1`) for every context.
pub const VALIDATE_ENV: &str = "WGPU_ACTIVATIONS_VALIDATE";

/// Environment variable that makes contexts request smaller limits than their adapter's:
/// `downlevel` (`wgpu::Limits::downlevel_defaults()`, the smallest compute tier wgpu supports)
/// or `webgpu` (`wgpu::Limits::default()`, a browser's WebGPU defaults).
pub const LIMITS_ENV: &str = "WGPU_ACTIVATIONS_LIMITS";

/// Environment variable that sets [`ContextOptions::subnormal_products`] for every context:
/// `integers` or `hardware` (anything else: by the probe).
pub const SUBNORMALS_ENV: &str = "WGPU_ACTIVATIONS_SUBNORMALS";

/// Where the f32-computing kernels (f32, f16, bf16) take products that involve subnormals.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubnormalProducts {
    /// On integers where the probe finds the device flushing subnormals (or could not ask it),
    /// on the float unit where it keeps them. The default.
    ByProbe,
    /// Always on integers (exact on any device; to test that path on one that keeps them).
    OnIntegers,
    /// Always on the float unit (results on a flushing device are then flushed too).
    OnHardware,
}

fn subnormals_from_env() -> SubnormalProducts {
    match std::env::var(SUBNORMALS_ENV).as_deref() {
        Ok("integers") => SubnormalProducts::OnIntegers,
        Ok("hardware") => SubnormalProducts::OnHardware,
        _ => SubnormalProducts::ByProbe,
    }
}

fn limits_from_env() -> Option<wgpu::Limits> {
    match std::env::var(LIMITS_ENV).ok()?.as_str() {
        "downlevel" => Some(wgpu::Limits::downlevel_defaults()),
        "webgpu" => Some(wgpu::Limits::default()),
        _ => None,
    }
}

/// Options of a [`crate::Context`]. Built with `ContextOptions::default()` and the `with_*`
/// methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ContextOptions {
    /// Preference when `WGPU_POWER_PREF` is unset. Default: high performance.
    pub power_preference: wgpu::PowerPreference,
    /// Backends to search when `WGPU_BACKEND` is unset. Default: all.
    pub backends: wgpu::Backends,
    /// The first adapter whose name contains this (case insensitive), like `WGPU_ADAPTER_NAME`.
    pub adapter_name: Option<String>,
    /// Whether `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and `WGPU_POWER_PREF` override the fields
    /// above (as in wgpu's own examples). Default: true.
    pub use_environment: bool,
    /// Element types to run on their emulated representation even where the device has the
    /// native one (f16 on packed u32 words, i64 and u64 on u32 pairs).
    pub emulated: Vec<DType>,
    /// Element types to run on their native representation wherever the device has it, also
    /// where the default passes it over (native f16 on CPU drivers, measured slower there).
    pub native: Vec<DType>,
    /// Run f64 on the CPU reference when the device lacks `SHADER_F64`, instead of returning
    /// [`crate::Error::Unsupported`].
    pub f64_cpu_fallback: bool,
    /// Limits to request instead of the adapter's own, e.g. `wgpu::Limits::downlevel_defaults()`
    /// to run as a browser's WebGPU would (default: from `WGPU_ACTIVATIONS_LIMITS`, else the
    /// adapter's). Ignored by [`crate::Context::from_device`].
    pub limits: Option<wgpu::Limits>,
    /// Cap on the bytes one storage binding may cover, below the device's
    /// `max_storage_buffer_binding_size`. Larger tensors are processed in several dispatches
    /// over windows of one buffer; lowering the cap exercises that path on small tensors.
    pub max_binding_bytes: Option<u64>,
    /// Cap on the bytes of one device buffer, below the device's `max_buffer_size`. Host arrays
    /// larger than this are processed in pieces.
    pub max_buffer_bytes: Option<u64>,
    /// Recompute every result on the CPU reference and compare within the operator's bound
    /// (also turned on by `WGPU_ACTIVATIONS_VALIDATE=1`).
    pub validation: bool,
    /// How long a readback waits for the GPU before returning [`crate::Error::Timeout`].
    pub readback_timeout: Duration,
    /// Compiled kernels kept; the least recently used one is dropped beyond this (a kernel
    /// holds about a megabyte of machine code on CPU drivers). Default: 64.
    pub pipeline_cache_capacity: usize,
    /// Bytes of idle buffers the pool keeps for reuse; the least recently returned ones go
    /// beyond this. Default: 128 MiB.
    pub pool_capacity_bytes: u64,
    /// The kernels' shape: invocations per workgroup and 16-byte vectors per invocation.
    /// Default: 256 and 4, the fastest measured (`wgpu-act bench --shapes` compares others),
    /// shrunk to the device's limits.
    pub kernel_shape: Option<(u32, u32)>,
    /// Whether an invocation's Vectors are consecutive (`true`) or strided by the workgroup.
    /// Default: consecutive on CPU adapters (measured faster on llvmpipe), strided on GPUs.
    pub contiguous_vectors: Option<bool>,
    /// Where products with subnormals are computed (default: by the probe, or from
    /// `WGPU_ACTIVATIONS_SUBNORMALS`).
    pub subnormal_products: SubnormalProducts,
    /// Test hook: zero the first word of every result on the GPU, so that tests can prove
    /// validation mode catches a wrong result.
    #[doc(hidden)]
    pub corrupt_results_for_tests: bool,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            power_preference: wgpu::PowerPreference::HighPerformance,
            backends: wgpu::Backends::all(),
            adapter_name: None,
            use_environment: true,
            emulated: Vec::new(),
            native: Vec::new(),
            f64_cpu_fallback: false,
            limits: limits_from_env(),
            max_binding_bytes: None,
            max_buffer_bytes: None,
            validation: std::env::var(VALIDATE_ENV).is_ok_and(|v| v == "1"),
            readback_timeout: Duration::from_secs(60),
            pipeline_cache_capacity: 64,
            pool_capacity_bytes: 128 << 20,
            kernel_shape: None,
            contiguous_vectors: None,
            subnormal_products: subnormals_from_env(),
            corrupt_results_for_tests: false,
        }
    }
}

impl ContextOptions {
    /// Options with every emulated path forced on (f16, i64, u64, and f64 where one exists), to
    /// test them on devices that have the native types.
    pub fn emulated() -> Self {
        Self { emulated: DType::ALL.to_vec(), ..Self::default() }
    }

    /// Options with every native path the device has forced on.
    pub fn native() -> Self {
        Self { native: DType::ALL.to_vec(), ..Self::default() }
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

    /// Sets [`ContextOptions::adapter_name`].
    pub fn with_adapter_name(mut self, name: impl Into<String>) -> Self {
        self.adapter_name = Some(name.into());
        self
    }

    /// Sets [`ContextOptions::use_environment`].
    pub fn with_environment(mut self, use_environment: bool) -> Self {
        self.use_environment = use_environment;
        self
    }

    /// Forces the emulated representation of `dtype` (`true`) or its native one where the
    /// device has it (`false`).
    pub fn with_emulated(mut self, dtype: DType, emulated: bool) -> Self {
        self.emulated.retain(|&d| d != dtype);
        self.native.retain(|&d| d != dtype);
        if emulated {
            self.emulated.push(dtype);
        } else {
            self.native.push(dtype);
        }
        self
    }

    /// Forces the emulated f16 path (packed u32 words) even where the device has `SHADER_F16`.
    pub fn with_emulated_f16(self, force: bool) -> Self {
        self.with_emulated(DType::F16, force)
    }

    /// Forces the emulated 64-bit integer paths (u32 pairs) even where the device has
    /// `SHADER_INT64`.
    pub fn with_emulated_i64(self, force: bool) -> Self {
        self.with_emulated(DType::I64, force).with_emulated(DType::U64, force)
    }

    /// Sets [`ContextOptions::f64_cpu_fallback`].
    pub fn with_f64_cpu_fallback(mut self, fallback: bool) -> Self {
        self.f64_cpu_fallback = fallback;
        self
    }

    /// Sets [`ContextOptions::limits`].
    pub fn with_limits(mut self, limits: wgpu::Limits) -> Self {
        self.limits = Some(limits);
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

    /// Sets [`ContextOptions::validation`].
    pub fn with_validation(mut self, validation: bool) -> Self {
        self.validation = validation;
        self
    }

    /// Sets [`ContextOptions::readback_timeout`].
    pub fn with_readback_timeout(mut self, timeout: Duration) -> Self {
        self.readback_timeout = timeout;
        self
    }

    /// Sets [`ContextOptions::pipeline_cache_capacity`] (at least 1).
    pub fn with_pipeline_cache_capacity(mut self, kernels: usize) -> Self {
        self.pipeline_cache_capacity = kernels.max(1);
        self
    }

    /// Sets [`ContextOptions::pool_capacity_bytes`].
    pub fn with_pool_capacity_bytes(mut self, bytes: u64) -> Self {
        self.pool_capacity_bytes = bytes;
        self
    }

    /// Sets [`ContextOptions::kernel_shape`].
    pub fn with_kernel_shape(mut self, workgroup_size: u32, vectors_per_invocation: u32) -> Self {
        self.kernel_shape = Some((workgroup_size, vectors_per_invocation));
        self
    }

    /// Sets [`ContextOptions::contiguous_vectors`].
    pub fn with_contiguous_vectors(mut self, contiguous: bool) -> Self {
        self.contiguous_vectors = Some(contiguous);
        self
    }

    /// Sets [`ContextOptions::subnormal_products`].
    pub fn with_subnormal_products(mut self, products: SubnormalProducts) -> Self {
        self.subnormal_products = products;
        self
    }

    /// Test hook, see [`ContextOptions::corrupt_results_for_tests`].
    #[doc(hidden)]
    pub fn with_corrupt_results_for_tests(mut self, corrupt: bool) -> Self {
        self.corrupt_results_for_tests = corrupt;
        self
    }

    /// The path these options ask for `dtype`.
    pub(crate) fn preference(&self, dtype: DType) -> crate::repr::PathPreference {
        use crate::repr::PathPreference;
        if self.emulated.contains(&dtype) {
            PathPreference::Emulated
        } else if self.native.contains(&dtype) {
            PathPreference::Native
        } else {
            PathPreference::Default
        }
    }
}

//! How a [`crate::Context`] picks its adapter, which code paths it prefers, and its safety limits.

use std::time::Duration;

use crate::dtype::DType;

/// Environment variable that turns validation mode on (`1`) for every context.
pub const VALIDATE_ENV: &str = "WGPU_ACTIVATIONS_VALIDATE";

/// Environment variable that makes contexts request smaller limits than their adapter's:
/// `downlevel` (`wgpu::Limits::downlevel_defaults()`, the smallest compute tier wgpu supports)
/// or `webgpu` (`wgpu::Limits::default()`, a browser's WebGPU defaults).
pub const LIMITS_ENV: &str = "WGPU_ACTIVATIONS_LIMITS";

/// Environment variable that sets [`ContextOptions::with_subnormal_products`] under [`ContextOptions::from_env`]:
/// `integers`, `integers-one-pass`, `guarded`, `guarded-two-passes` or `hardware` (anything
/// else: by the probe).
pub const SUBNORMALS_ENV: &str = "WGPU_ACTIVATIONS_SUBNORMALS";

/// Environment variable that sets [`ContextOptions::with_fused_product_errors`] under
/// [`ContextOptions::from_env`]: `on` or `off` (anything else: by the probe).
pub const FMA_ENV: &str = "WGPU_ACTIVATIONS_FMA";

/// Environment variable that sets [`ContextOptions::with_axis_cpu_forms`] under
/// [`ContextOptions::from_env`]: `cpu` or `gpu` (anything else: by the adapter's type). The
/// bench takes it to time both forms on one device.
pub const AXIS_FORMS_ENV: &str = "WGPU_ACTIVATIONS_AXIS_FORMS";

/// Environment variable naming a directory into which every kernel's WGSL is written as it is
/// built (`<label>.wgsl`, the label's characters outside `[A-Za-z0-9._-]` as `_`), to read it
/// or hand it to a vendor's offline compiler (BENCHMARKS.md, "A GPU compiler's view without a
/// GPU"). Unset: nothing is written. A file that cannot be written is skipped.
pub const DUMP_WGSL_ENV: &str = "WGPU_ACTIVATIONS_DUMP_WGSL";

/// Where the f32-computing kernels (f32, f16, bf16) take products that involve subnormals.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubnormalProducts {
    /// On integers where the probe finds the device flushing subnormals (or could not ask it),
    /// on the float unit where it keeps them. The default. On integers means in one pass on a
    /// GPU (as [`SubnormalProducts::Guarded`]) and in two elsewhere (as
    /// [`SubnormalProducts::GuardedInTwoPasses`]): a GPU skips the untaken branch to the
    /// integers, a CPU adapter (SwiftShader) runs it masked on every lane.
    ByProbe,
    /// Always on integers (exact on any device; to test that path on one that keeps them).
    /// Kernels run in two passes: the float unit's products, each with a cheap check that flags
    /// the rare one a flushing unit may get wrong, then the flagged elements again with products
    /// on integers.
    OnIntegers,
    /// Always on the float unit (results on a flushing device are then flushed too).
    OnHardware,
    /// Always on integers, in one pass that checks every product and computes the rare flagged
    /// one on integers (what the probe chooses on a GPU that flushes).
    OnIntegersInOnePass,
    /// On integers in one pass, checked only where a step's input lies outside the magnitudes
    /// for which none of its products can meet a subnormal (one comparison per element): what
    /// the probe chooses on a GPU that flushes.
    Guarded,
    /// On integers in two passes, flagged as [`SubnormalProducts::Guarded`] decides: the first
    /// takes the float unit's products unchecked and flags a Vector where a step's input lies
    /// outside its plain range (PRelu's products, which have no range, each checked), and the
    /// second computes the flagged Vectors on integers.
    GuardedInTwoPasses,
}

fn subnormals_from_env() -> SubnormalProducts {
    match std::env::var(SUBNORMALS_ENV).as_deref() {
        Ok("integers") => SubnormalProducts::OnIntegers,
        Ok("integers-one-pass") => SubnormalProducts::OnIntegersInOnePass,
        Ok("guarded") => SubnormalProducts::Guarded,
        Ok("guarded-two-passes") => SubnormalProducts::GuardedInTwoPasses,
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

/// Options of a [`crate::Context`], built with methods: `ContextOptions::default()` reads
/// nothing from the environment, so options an application builds are the options it gets;
/// [`ContextOptions::from_env`] starts from the environment instead (wgpu's `WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME` and `WGPU_POWER_PREF`, and this crate's `WGPU_ACTIVATIONS_*`), as the
/// tests, the examples and `wgpu-act` do.
#[derive(Debug, Clone)]
pub struct ContextOptions {
    pub(crate) power_preference: wgpu::PowerPreference,
    pub(crate) backends: wgpu::Backends,
    pub(crate) adapter_name: Option<String>,
    pub(crate) use_environment: bool,
    pub(crate) emulated: Vec<DType>,
    pub(crate) native: Vec<DType>,
    pub(crate) f64_cpu_fallback: bool,
    pub(crate) limits: Option<wgpu::Limits>,
    pub(crate) max_binding_bytes: Option<u64>,
    pub(crate) max_buffer_bytes: Option<u64>,
    pub(crate) validation: bool,
    pub(crate) readback_timeout: Duration,
    pub(crate) compile_allowance: Duration,
    pub(crate) pipeline_cache_capacity: usize,
    pub(crate) pool_capacity_bytes: u64,
    pub(crate) kernel_shape: Option<(u32, u32)>,
    pub(crate) contiguous_vectors: Option<bool>,
    pub(crate) straight_line: Option<bool>,
    pub(crate) step_programs: Option<bool>,
    pub(crate) axis_cpu_forms: Option<bool>,
    pub(crate) fused_product_errors: Option<bool>,
    pub(crate) subnormal_products: SubnormalProducts,
    pub(crate) corrupt_results: bool,
}

impl Default for ContextOptions {
    /// High-performance adapter of any backend, the adapter's own limits, the default paths,
    /// validation off, a 60 s readback timeout and 120 s more per kernel compiling, 64 cached
    /// kernels, 128 MiB of pooled buffers, the default kernel shape; nothing read from the
    /// environment.
    fn default() -> Self {
        Self {
            power_preference: wgpu::PowerPreference::HighPerformance,
            backends: wgpu::Backends::all(),
            adapter_name: None,
            use_environment: false,
            emulated: Vec::new(),
            native: Vec::new(),
            f64_cpu_fallback: false,
            limits: None,
            max_binding_bytes: None,
            max_buffer_bytes: None,
            validation: false,
            readback_timeout: Duration::from_secs(60),
            compile_allowance: Duration::from_secs(120),
            pipeline_cache_capacity: 64,
            pool_capacity_bytes: 128 << 20,
            kernel_shape: None,
            contiguous_vectors: None,
            straight_line: None,
            step_programs: None,
            axis_cpu_forms: None,
            fused_product_errors: None,
            subnormal_products: SubnormalProducts::ByProbe,
            corrupt_results: false,
        }
    }
}

impl ContextOptions {
    /// The defaults, then the environment: `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and
    /// `WGPU_POWER_PREF` pick the adapter (as in wgpu's own examples), [`LIMITS_ENV`] lowers
    /// the limits, [`VALIDATE_ENV`]`=1` turns validation on, [`SUBNORMALS_ENV`] says where
    /// products with subnormals go, [`FMA_ENV`] where their errors come from, and
    /// [`AXIS_FORMS_ENV`] which forms the kernels over an axis take. Methods called after it
    /// override it.
    pub fn from_env() -> Self {
        Self {
            use_environment: true,
            limits: limits_from_env(),
            validation: std::env::var(VALIDATE_ENV).is_ok_and(|v| v == "1"),
            subnormal_products: subnormals_from_env(),
            fused_product_errors: match std::env::var(FMA_ENV).as_deref() {
                Ok("on") => Some(true),
                Ok("off") => Some(false),
                _ => None,
            },
            axis_cpu_forms: match std::env::var(AXIS_FORMS_ENV).as_deref() {
                Ok("cpu") => Some(true),
                Ok("gpu") => Some(false),
                _ => None,
            },
            ..Self::default()
        }
    }

    /// Every emulated path forced on (f16, i64, u64, and f64 where one exists), to test them
    /// on devices that have the native types.
    pub fn all_emulated(mut self) -> Self {
        self.emulated = DType::ALL.to_vec();
        self.native.clear();
        self
    }

    /// Every native path the device has forced on, also where the default passes it over.
    pub fn all_native(mut self) -> Self {
        self.native = DType::ALL.to_vec();
        self.emulated.clear();
        self
    }

    /// The power preference of the adapter search (default: high performance);
    /// `WGPU_POWER_PREF` wins under [`ContextOptions::from_env`].
    pub fn with_power_preference(mut self, preference: wgpu::PowerPreference) -> Self {
        self.power_preference = preference;
        self
    }

    /// The backends to search (default: all); `WGPU_BACKEND` wins under
    /// [`ContextOptions::from_env`].
    pub fn with_backends(mut self, backends: wgpu::Backends) -> Self {
        self.backends = backends;
        self
    }

    /// The first adapter whose name contains `name` (case insensitive), like
    /// `WGPU_ADAPTER_NAME` (which wins under [`ContextOptions::from_env`]).
    pub fn with_adapter_name(mut self, name: impl Into<String>) -> Self {
        self.adapter_name = Some(name.into());
        self
    }

    /// Whether `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and `WGPU_POWER_PREF` override the adapter
    /// choices above (on under [`ContextOptions::from_env`], off by default).
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

    /// Runs f64 on the CPU reference when the device lacks `SHADER_F64`, instead of returning
    /// [`crate::Error::Unsupported`] (default: off; the software f64 path serves such devices).
    pub fn with_f64_cpu_fallback(mut self, fallback: bool) -> Self {
        self.f64_cpu_fallback = fallback;
        self
    }

    /// Limits to request instead of the adapter's own, e.g. `wgpu::Limits::downlevel_defaults()`
    /// to run as a browser's WebGPU would. Ignored by [`crate::Context::from_device`].
    pub fn with_limits(mut self, limits: wgpu::Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// Caps the bytes one storage binding may cover, below the device's
    /// `max_storage_buffer_binding_size`: larger tensors are processed in several dispatches
    /// over windows of one buffer (lowering it exercises that path on small tensors).
    pub fn with_max_binding_bytes(mut self, bytes: u64) -> Self {
        self.max_binding_bytes = Some(bytes);
        self
    }

    /// Caps the bytes of one device buffer, below the device's `max_buffer_size`: larger host
    /// arrays are processed in pieces.
    pub fn with_max_buffer_bytes(mut self, bytes: u64) -> Self {
        self.max_buffer_bytes = Some(bytes);
        self
    }

    /// Validation mode: every result is recomputed by the CPU reference and compared with what
    /// the chain allows (default: off; [`VALIDATE_ENV`]`=1` under [`ContextOptions::from_env`]).
    pub fn with_validation(mut self, validation: bool) -> Self {
        self.validation = validation;
        self
    }

    /// How long a readback waits for the GPU before returning [`crate::Error::Timeout`]
    /// (default: 60 s), besides the compile allowance of the kernels it may be compiling
    /// ([`ContextOptions::with_compile_allowance`]).
    pub fn with_readback_timeout(mut self, timeout: Duration) -> Self {
        self.readback_timeout = timeout;
        self
    }

    /// How much longer a readback may wait for each kernel built since the last readback that
    /// completed (default: 120 s; at most 10 minutes in all). CPU drivers such as lavapipe and
    /// SwiftShader compile a kernel at its first dispatch, inside the work a readback waits for,
    /// and a software-f64 kernel can take tens of seconds there: that is no hung device. Once a
    /// readback completes, the kernels built before it have run, and the plain timeout applies.
    pub fn with_compile_allowance(mut self, per_kernel: Duration) -> Self {
        self.compile_allowance = per_kernel;
        self
    }

    /// Compiled kernels kept (at least 1; default 64): the least recently used one is dropped
    /// beyond this (a kernel holds about a megabyte of machine code on CPU drivers).
    pub fn with_pipeline_cache_capacity(mut self, kernels: usize) -> Self {
        self.pipeline_cache_capacity = kernels.max(1);
        self
    }

    /// Bytes of idle buffers the pool keeps for reuse (default: 128 MiB); the least recently
    /// returned ones go beyond this. Besides, it keeps the last buffer returned of each usage
    /// that is larger than this, so that repeated calls on one large tensor reuse their buffers
    /// ([`crate::Context::release_idle_buffers`] frees every idle buffer).
    pub fn with_pool_capacity_bytes(mut self, bytes: u64) -> Self {
        self.pool_capacity_bytes = bytes;
        self
    }

    /// The kernels' shape: invocations per workgroup and 16-byte vectors per invocation
    /// (default: 256 and 4, the fastest measured on GPUs and lavapipe; 64 and 32 on a CPU
    /// adapter in the loop form, SwiftShader, where an invocation's once-only work runs masked
    /// on every lane; `wgpu-act bench --shapes` compares others), shrunk to the device's limits.
    pub fn with_kernel_shape(mut self, workgroup_size: u32, vectors_per_invocation: u32) -> Self {
        self.kernel_shape = Some((workgroup_size, vectors_per_invocation));
        self
    }

    /// Whether an invocation's Vectors are consecutive (`true`) or strided by the workgroup
    /// (default: consecutive on CPU adapters, measured faster on llvmpipe; strided on GPUs).
    pub fn with_contiguous_vectors(mut self, contiguous: bool) -> Self {
        self.contiguous_vectors = Some(contiguous);
        self
    }

    /// Whether the kernels take whole workgroups' Vectors in straight-line code, loaded first,
    /// and the Vectors after them in a pass of their own (`true`), or every Vector in a loop,
    /// each behind a test (`false`); f64 kernels always loop. Default: straight-line on
    /// llvmpipe (lavapipe, Mesa's GL), where it ran the heavy kernels up to a third faster, for
    /// tensors of at least 256 workgroups (2^20 f32 elements), since its four copies of a chain's
    /// math compile four times as long; the loop for smaller tensors there and on every other
    /// adapter (SwiftShader ran the straight-line form a quarter slower; BENCHMARKS.md). Set,
    /// the form holds for every tensor.
    pub fn with_straight_line(mut self, straight_line: bool) -> Self {
        self.straight_line = Some(straight_line);
        self
    }

    /// Whether a chain of unary activations runs as a step program (`true`): one kernel for
    /// every chain over the same operators, which reads the chain from its parameters, instead
    /// of a kernel written for each distinct chain (`false`). Results are the same bit for bit.
    /// Default: step programs on CPU adapters (lavapipe, SwiftShader) for chains of two steps
    /// or more on tensors under 16 workgroups (2^16 f32 elements on lavapipe), where compiling
    /// a kernel costs more than the program's loop costs its runs (a model of 510 distinct
    /// LeakyRelu and Elu chains compiles 5 kernels, not 510; BENCHMARKS.md), except on the
    /// software-f64 path, whose interpreter a kernel holds once; a kernel per chain otherwise.
    /// Set, the choice holds for every tensor and adapter; a single step always takes its
    /// operator's own kernel.
    pub fn with_step_programs(mut self, step_programs: bool) -> Self {
        self.step_programs = Some(step_programs);
        self
    }

    /// Whether the kernels over an axis (Softmax, LogSoftmax, Hardmax) take the forms chosen for
    /// CPU adapters (`true`: rows along the last axis read a vector at a time, long ones in chunks
    /// an invocation each, and other long rows a workgroup each, which reads them three times)
    /// or a GPU's (`false`: a row longer than a workgroup holds in chunks a workgroup each, read
    /// twice). The results are within the same bounds either way. Default: by the adapter's type;
    /// set, to test one adapter's forms on the other.
    pub fn with_axis_cpu_forms(mut self, cpu_forms: bool) -> Self {
        self.axis_cpu_forms = Some(cpu_forms);
        self
    }

    /// Whether the f32-computing kernels take a product's rounding error from the device's
    /// `fma` (`true`: 2 steps) or from Dekker's exact product (`false`: 17 steps). WGSL lets
    /// `fma` round twice (lavapipe's does), and then only Dekker's is right, so the default
    /// asks a probe when the context is made and takes `fma` where it rounds once (an H200's;
    /// lavapipe's, llvmpipe's and SwiftShader's round twice): the same results bit for bit where
    /// the error is normal, for less arithmetic in the kernels that take exact products (Gelu,
    /// Swish with alpha other than 1, Mish, HardSigmoid).
    /// [`crate::ContextInfo::fused_multiply_add`] says what the probe found. `true` on a device
    /// whose fma rounds twice gives wrong results: for measuring.
    pub fn with_fused_product_errors(mut self, fused: bool) -> Self {
        self.fused_product_errors = Some(fused);
        self
    }

    /// Where products with subnormals are computed ([`SubnormalProducts`]; default: by the
    /// probe).
    pub fn with_subnormal_products(mut self, products: SubnormalProducts) -> Self {
        self.subnormal_products = products;
        self
    }

    /// Makes every kernel zero the first word of its result, on purpose, so that a test can
    /// prove validation mode catches a wrong result. Never for real work.
    pub fn with_corrupted_results(mut self, corrupt: bool) -> Self {
        self.corrupt_results = corrupt;
        self
    }

    /// Where these options ask products with subnormals to be computed.
    pub fn subnormal_products(&self) -> SubnormalProducts {
        self.subnormal_products
    }

    /// The backends the adapter search covers: `WGPU_BACKEND` where the options came from
    /// [`ContextOptions::from_env`] and it is set, else [`ContextOptions::with_backends`]'s.
    pub fn searched_backends(&self) -> wgpu::Backends {
        let from_env = self.use_environment.then(wgpu::Backends::from_env).flatten();
        from_env.unwrap_or(self.backends)
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

//! What an adapter and device are and can do, as the context reports it.

use std::fmt;

use crate::dtype::DType;
use crate::repr::REPRS;

/// How a context runs one element type (see [`crate::Context::dtype_path`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DTypePath {
    /// A native WGSL type; the text says which device feature provides it.
    Native(&'static str),
    /// Emulated on u32 words; the text says how.
    Emulated(&'static str),
    /// On the CPU reference (opted in with [`crate::ContextOptions::with_f64_cpu_fallback`]).
    CpuFallback,
    /// Refused with [`crate::Error::Unsupported`].
    Unsupported,
}

impl fmt::Display for DTypePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DTypePath::Native(how) | DTypePath::Emulated(how) => f.write_str(how),
            DTypePath::CpuFallback => f.write_str("CPU reference (fallback)"),
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
    /// What the device's f32 unit does with subnormals, as the probe found.
    pub subnormals: super::Subnormals,
    /// What its f64 unit does with them, where it has one (SHADER_F64; else not measured):
    /// native f64 runs by default only where they are kept.
    pub subnormals_f64: super::Subnormals,
    /// What it does with f16 subnormals (conversions and compares), where it has f16
    /// (SHADER_F16; else not measured): native f16 runs by default where its f32 unit keeps
    /// subnormals, or this probe found them kept (its products go through the exact f32 ones).
    pub subnormals_f16: super::Subnormals,
    /// Whether the f32-computing kernels take products with subnormals on integers (where the
    /// device flushes them, or as [`crate::ContextOptions::with_subnormal_products`] asks).
    pub subnormal_products_on_integers: bool,
    /// Whether those kernels run in two passes (the float unit's products with a flag, then
    /// the flagged Vectors on integers) rather than in one (each product checked, the rare
    /// one redone on integers): two on CPU adapters and unknown ones, one on GPUs.
    pub subnormal_products_in_two_passes: bool,
    /// Whether the one pass checks products (or the first of two flags a Vector) only for a
    /// step whose input lies outside the magnitudes where none of its products can meet a
    /// subnormal (one comparison per element), rather than every product: the default on GPUs
    /// that flush.
    pub subnormal_products_guarded: bool,
    /// Whether the device's `fma` rounds once, as a probe found when the context was made
    /// (false where not measured: a device adopted in the browser without waiting).
    pub fused_multiply_add: bool,
    /// Whether the kernels take a product's rounding error from `fma`
    /// ([`crate::ContextOptions::with_fused_product_errors`]; by default where it rounds once).
    pub fused_product_errors: bool,
}

/// Element types `features` let a device handle with native WGSL types.
pub fn native_dtypes(features: wgpu::Features) -> Vec<DType> {
    let mut native: Vec<DType> =
        REPRS.iter().filter(|s| s.native && features.contains(s.feature)).map(|s| s.dtype).collect();
    native.sort();
    native.dedup();
    native
}

impl ContextInfo {
    /// Element types the device handles with native WGSL types (the rest are emulated on u32
    /// words, or unsupported).
    pub fn native_dtypes(&self) -> Vec<DType> {
        native_dtypes(self.features)
    }
}

/// The features this crate uses, by name, for reports.
pub(crate) const NAMED_FEATURES: [(&str, wgpu::Features); 4] = [
    ("SHADER_F16", wgpu::Features::SHADER_F16),
    ("SHADER_F64", wgpu::Features::SHADER_F64),
    ("SHADER_INT64", wgpu::Features::SHADER_INT64),
    ("TIMESTAMP_QUERY", wgpu::Features::TIMESTAMP_QUERY),
];

/// The named features present in `features`, comma separated, or `none`.
pub(crate) fn feature_names(features: wgpu::Features) -> String {
    let present: Vec<&str> = NAMED_FEATURES.iter().filter(|(_, f)| features.contains(*f)).map(|(n, _)| *n).collect();
    if present.is_empty() { "none".into() } else { present.join(", ") }
}

impl ContextInfo {
    /// Where the f32-computing kernels take products with subnormals, in words (`wgpu-act info`
    /// and the bench's report).
    pub(crate) fn subnormal_products(&self) -> &'static str {
        match (self.subnormal_products_on_integers, self.subnormal_products_in_two_passes) {
            (false, _) => "on the float unit (one pass)",
            (true, false) if self.subnormal_products_guarded => {
                "on integers where a step's input lies outside its plain range (one pass)"
            }
            (true, false) => "on integers, each checked, the rare flagged one redone (one pass)",
            (true, true) if self.subnormal_products_guarded => {
                "on integers: the float unit's, flagged where a step's input lies outside its plain range, then the flagged Vectors again (two passes)"
            }
            (true, true) => "on integers: the float unit's, each flagged, then the flagged Vectors again (two passes)",
        }
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
        writeln!(f, "features:     {}", feature_names(self.features))?;
        writeln!(f, "subnormals:   {}; products with subnormals {}", self.subnormals, self.subnormal_products())?;
        let fma = if self.fused_multiply_add { "rounds once" } else { "rounds twice, or not measured" };
        let errors = if self.fused_product_errors { "from fma" } else { "Dekker's" };
        writeln!(f, "fma:          {fma}; products' errors {errors}")?;
        if self.features.contains(wgpu::Features::SHADER_F16) {
            writeln!(f, "f16 subnormals: {}", self.subnormals_f16)?;
        }
        if self.features.contains(wgpu::Features::SHADER_F64) {
            writeln!(f, "f64 subnormals: {}", self.subnormals_f64)?;
        }
        write_limits(f, &self.limits)
    }
}

/// The limits the kernels depend on, one per line (`wgpu-act info --all`).
pub fn limits_report(limits: &wgpu::Limits) -> String {
    let mut text = String::new();
    let _ = write_limits(&mut text, limits);
    text
}

/// The limits the kernels depend on, one per line.
pub(crate) fn write_limits(f: &mut impl fmt::Write, limits: &wgpu::Limits) -> fmt::Result {
    writeln!(f, "max storage buffer binding: {} bytes", limits.max_storage_buffer_binding_size)?;
    writeln!(f, "max buffer size:            {} bytes", limits.max_buffer_size)?;
    writeln!(f, "max storage buffers per stage: {}", limits.max_storage_buffers_per_shader_stage)?;
    writeln!(f, "max uniform buffer binding: {} bytes", limits.max_uniform_buffer_binding_size)?;
    writeln!(f, "max workgroups per dimension: {}", limits.max_compute_workgroups_per_dimension)?;
    write!(f, "max invocations per workgroup: {}", limits.max_compute_invocations_per_workgroup)
}

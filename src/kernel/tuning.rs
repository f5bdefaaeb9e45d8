//! How a kernel lays out its work on a device: the workgroup's shape, where an invocation's
//! Vectors lie, and which products its f32 arithmetic takes.

/// Workgroup shape and how an invocation's Vectors lie, chosen per device (`WORKGROUP_SIZE`,
/// `VECTORS_PER_INVOCATION`, `LOCAL_STRIDE` and `VECTOR_STRIDE` in the WGSL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Tuning {
    pub(crate) workgroup_size: u32,
    pub(crate) vectors_per_invocation: u32,
    /// An invocation's Vectors are consecutive (best measured on CPU drivers, where a SIMD
    /// batch of invocations runs as one thread), or strided by the workgroup (neighbouring
    /// invocations touch neighbouring memory: coalesced on GPUs).
    pub(crate) contiguous: bool,
    /// Which products the f32 arithmetic takes.
    pub(crate) products: Products,
    /// A product's error from the device's fma (`compute/f32_product_error_fused.wgsl`), where
    /// the context's probe found it rounding once, instead of Dekker's steps.
    pub(crate) fused_product_errors: bool,
    /// Whole workgroups in straight-line code and the rest in a pass of its own, or every
    /// Vector in a loop (`KernelKey::straight_line`).
    pub(crate) straight_line: bool,
    /// In the loop form, a Vector's groups (two or four Lanes of 16-bit and 8-bit types) in a
    /// loop too, as the straight-line form has them, instead of a block each: the smallest code,
    /// for llvmpipe's small tensors (`Context::tuning_for`). On lavapipe it compiled 510 distinct
    /// f16 chains in 49 s where the blocks took 74 s (bf16: 32 s, 42 s), and ran Gelu f16 at
    /// 2^18 elements 0.3 ms slower. SwiftShader keeps the blocks: it held a loop's values in
    /// memory (Elu f32 0.39 of the copy kernel against 0.59).
    pub(crate) looped_groups: bool,
    /// A chain of unary steps as a step program (`driver/program.wgsl`): the kernel holds each
    /// distinct operator once and reads the chain from `params`, so every chain over the same
    /// operators shares it (`KernelKey::new`). For small tensors on CPU drivers
    /// (`Context::tuning_for`), where a kernel's compile costs more than its runs: the loop and
    /// its cases cost lavapipe 0.03-0.1 ms a call at 2^14-2^16 f32 elements, a new kernel's
    /// compile 40 ms (f32) to 95 ms (f16) cold, about 6 ms warm.
    pub(crate) step_program: bool,
}

/// The products of the f32 arithmetic (f32, and the 16-bit floats computed in f32): the
/// hardware's on a device that keeps subnormals; on one that flushes them, exact: on a GPU in
/// one pass that checks products only where a step's input lies outside its plain range (the
/// default there), or that checks every product; elsewhere in two passes (the default): the
/// hardware's products with a cheap flag (each step's plain range, or each product), then the
/// flagged Vectors again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Products {
    /// `compute/f32_products.wgsl`.
    Hardware,
    /// `compute/f32_products_exact.wgsl` for every product, one pass.
    OnIntegers,
    /// `compute/f32_products_guarded.wgsl`, one pass: the float unit's products without a check
    /// for a step whose input lies in its plain range (`UnaryOp::plain_products`), the exact
    /// products elsewhere.
    Guarded,
    /// The first of two passes: `compute/f32_products_flagged.wgsl`; a flagged Vector is left
    /// unwritten and marked (`driver/marks.wgsl`).
    Flagged,
    /// The first of two passes, flagged as [`Products::Guarded`] decides: a unary or SwiGLU
    /// step whose input lies outside its plain range flags its Vector, and every step takes the
    /// float unit's products unchecked (`mul_plain`), but PRelu's, which has no range and takes
    /// `compute/f32_products_flagged.wgsl`'s. The first pass then holds no exact
    /// product and no check per product; the second is [`Products::Listed`], as for `Flagged`.
    FlaggedByRange,
    /// The second: `compute/f32_products_exact.wgsl` over the marked Vectors
    /// (`driver/listed.wgsl`), and the tail.
    Listed,
}

impl Products {
    /// Products that are exact on a device that flushes subnormals.
    pub(crate) fn exact_on_flushing_devices(self) -> bool {
        self != Products::Hardware
    }

    /// The first of two passes: its flagged Vectors are marked for a second ([`Products::Listed`]).
    pub(crate) fn first_of_two_passes(self) -> bool {
        matches!(self, Products::Flagged | Products::FlaggedByRange)
    }

    /// Whether a unary step tests its input against its plain range (`in_plain_range`), and
    /// takes its `_plain` copy's products where it lies in it.
    pub(crate) fn tests_plain_ranges(self) -> bool {
        matches!(self, Products::Guarded | Products::FlaggedByRange)
    }
}

impl Tuning {
    /// The shape for SwiftShader, which runs four invocations as one SIMD thread and every
    /// branch's code on all four, masked: what an invocation does once (its setup, and on the
    /// first of two passes the marking of its flagged Vectors, atomics included) is paid once
    /// per four invocations, taken or not, so it is spread over 32 Vectors, not 4. Natively, 2^22
    /// f32, ms, three rounds alternating with 256 x 4: two-pass LeakyRelu 16.6 -> 13.9, Elu 21.8
    /// -> 17.5, Gelu 61.6 -> 45.5, the hardware's products LeakyRelu 12.1 -> 10.3; in headless
    /// Chromium (`cargo xtask bench-web`), ms per 4 dispatches: LeakyRelu 64.0 -> 55.5, Elu
    /// 106.8 -> 84.6, HardSwish 75.9 -> 63.3 (BENCHMARKS.md). 64 invocations, not 256: 32 x 32
    /// to 256 x 32 measured alike, and smaller workgroups share out among more threads.
    pub(crate) const SIMD_ACROSS_INVOCATIONS: (u32, u32) = (64, 32);

    /// `requested` (invocations, vectors per invocation), or the adapter's default, shrunk to a
    /// power of two that `limits` allow; at most 32 Vectors per invocation (the first of two
    /// passes notes its flagged Vectors in one u32). The default is 256 invocations of 4 Vectors
    /// each (the fastest of the shapes measured on lavapipe and GPUs; `wgpu-act bench --shapes`
    /// compares others), but [`Tuning::SIMD_ACROSS_INVOCATIONS`] on a CPU adapter that runs the
    /// loop form, not the straight line (SwiftShader, natively and as Chromium's fallback WebGPU
    /// adapter).
    pub(crate) fn for_limits(
        limits: &wgpu::Limits,
        requested: Option<(u32, u32)>,
        contiguous: bool,
        cpu_adapter: bool,
        straight_line: bool,
    ) -> Self {
        let default = if cpu_adapter && !straight_line { Self::SIMD_ACROSS_INVOCATIONS } else { (256, 4) };
        let (size, vectors) = requested.unwrap_or(default);
        let cap = limits.max_compute_invocations_per_workgroup.min(limits.max_compute_workgroup_size_x);
        let size = size.clamp(1, cap.max(1));
        Tuning {
            workgroup_size: 1 << size.ilog2(),
            vectors_per_invocation: vectors.clamp(1, 32),
            contiguous,
            products: Products::Hardware,
            fused_product_errors: false,
            straight_line,
            looped_groups: false,
            step_program: false,
        }
    }

    /// Vectors one workgroup covers.
    pub(crate) fn vectors_per_workgroup(self) -> u64 {
        u64::from(self.workgroup_size) * u64::from(self.vectors_per_invocation)
    }

    /// Vectors between an invocation's consecutive Vectors.
    pub(crate) fn vector_stride(self) -> u64 {
        if self.contiguous { 1 } else { u64::from(self.workgroup_size) }
    }

    /// The aligned block of Vectors that holds all of one invocation's: its own Vectors when
    /// they are consecutive, else its workgroup's.
    pub(crate) fn invocation_block(self) -> u64 {
        if self.contiguous { u64::from(self.vectors_per_invocation) } else { self.vectors_per_workgroup() }
    }
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            workgroup_size: 256,
            vectors_per_invocation: 4,
            contiguous: false,
            products: Products::Hardware,
            fused_product_errors: false,
            straight_line: false,
            looped_groups: false,
            step_program: false,
        }
    }
}

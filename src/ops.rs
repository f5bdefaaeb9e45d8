//! The operators: host-array API (upload, run, read back) over the device-tensor API.

use std::num::NonZeroU64;
use std::ops::Range;

use ndarray::{Array, ArrayView, Dimension};

use crate::broadcast::{plan, unidirectional_slope_shape};
use crate::context::Context;
use crate::dtype::{DType, Element, FloatElement};
use crate::error::{Error, Result};
use crate::pipeline::Kernel;
use crate::shader::{MAX_CHAIN, MAX_RANK, Repr, ShaderKey, UnaryKind, WORKGROUP_SIZE};
use crate::tensor::{GpuTensor, Wait};

/// LeakyRelu's default alpha (ONNX).
pub const LEAKY_RELU_DEFAULT_ALPHA: f32 = 0.01;
/// Elu's default alpha (ONNX).
pub const ELU_DEFAULT_ALPHA: f32 = 1.0;

/// A unary activation with its attribute. A slice of these runs as one fused kernel.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    /// `Where(X < 0, alpha * X, X)`.
    LeakyRelu {
        /// Slope for negative inputs (ONNX default 0.01).
        alpha: f32,
    },
    /// `Where(X < 0, alpha * (exp(X) - 1), X)`.
    Elu {
        /// Scale of the negative part (ONNX default 1.0).
        alpha: f32,
    },
}

impl Activation {
    /// LeakyRelu with `alpha`.
    pub const fn leaky_relu(alpha: f32) -> Self {
        Activation::LeakyRelu { alpha }
    }

    /// Elu with `alpha`.
    pub const fn elu(alpha: f32) -> Self {
        Activation::Elu { alpha }
    }

    /// The ONNX operator name.
    pub const fn onnx_name(&self) -> &'static str {
        match self {
            Activation::LeakyRelu { .. } => "LeakyRelu",
            Activation::Elu { .. } => "Elu",
        }
    }

    /// The attribute value.
    pub const fn alpha(&self) -> f32 {
        match *self {
            Activation::LeakyRelu { alpha } | Activation::Elu { alpha } => alpha,
        }
    }

    fn kind(&self) -> UnaryKind {
        match self {
            Activation::LeakyRelu { .. } => UnaryKind::LeakyRelu,
            Activation::Elu { .. } => UnaryKind::Elu,
        }
    }

    /// Applies this activation to one element on the CPU (the reference).
    pub fn reference_scalar<T: FloatElement>(&self, x: T) -> T {
        match *self {
            Activation::LeakyRelu { alpha } => crate::reference::leaky_relu_scalar(x, alpha),
            Activation::Elu { alpha } => crate::reference::elu_scalar(x, alpha),
        }
    }
}

/// The op name errors about `chain` use, after checking that it fits one fused kernel.
fn check_chain(chain: &[Activation]) -> Result<&'static str> {
    let op = match chain {
        [single] => single.onnx_name(),
        _ => "activation chain",
    };
    if chain.is_empty() || chain.len() > MAX_CHAIN {
        return Err(Error::InvalidAttribute {
            op,
            name: "chain",
            reason: format!("a fused chain holds 1 to {MAX_CHAIN} activations, got {}", chain.len()),
        });
    }
    Ok(op)
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct UnaryParams {
    words: u32,
    _pad: [u32; 3],
    alpha: [f32; MAX_CHAIN],
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct PreluParams {
    elements: u32,
    base: u32,
    rank: u32,
    slope_base: u32,
    dims: [u32; MAX_RANK],
    slope_strides: [u32; MAX_RANK],
}

impl Context {
    fn repr_for(&self, op: &'static str, dtype: DType) -> Result<Repr> {
        Repr::choose(dtype, self.inner.info.features, &self.inner.options).ok_or_else(|| Error::Unsupported {
            op,
            dtype,
            reason: format!(
                "the device ({}) lacks SHADER_F64; {}",
                self.inner.info.adapter.name,
                if self.inner.options.f64_cpu_fallback {
                    "the CPU fallback serves the host-array functions, not device tensors"
                } else {
                    "enable ContextOptions::with_f64_cpu_fallback to run f64 on the CPU reference instead"
                }
            ),
        })
    }

    fn kernel(&self, key: &ShaderKey) -> Result<std::sync::Arc<Kernel>> {
        self.inner.pipelines.get_or_build(&self.inner.device, key)
    }

    /// Runs a chain of activations (fused into one kernel) on a device tensor; the result
    /// stays on the device. An empty chain is refused.
    pub fn run_activations(&self, chain: &[Activation], x: &GpuTensor) -> Result<GpuTensor> {
        let op = check_chain(chain)?;
        self.check_owner(x)?;
        if !x.dtype().is_float() {
            return Err(Error::DTypeNotAllowed { op, dtype: x.dtype(), version: None });
        }
        let repr = self.repr_for(op, x.dtype())?;
        let y = self.empty_tensor(x.shape(), x.dtype(), "wgpu-activations.output")?;
        if x.is_empty() {
            return Ok(y);
        }
        let key = ShaderKey::Unary { repr, chain: chain.iter().map(Activation::kind).collect() };
        let kernel = self.kernel(&key)?;
        let mut alpha = [0.0f32; MAX_CHAIN];
        for (slot, activation) in alpha.iter_mut().zip(chain) {
            *slot = activation.alpha();
        }
        let words = (x.len() as u64).div_ceil(repr.lanes());
        self.dispatch_windows(&kernel, words, repr.word_bytes(), |range, bytes| {
            let params = UnaryParams { words: (range.end - range.start) as u32, _pad: [0; 3], alpha };
            Ok((bytemuck::bytes_of(&params).to_vec(), vec![window(x.buffer(), bytes), window(y.buffer(), bytes)]))
        })?;
        Ok(y)
    }

    /// PRelu (opset 7+ broadcasting) on device tensors; the result stays on the device.
    pub fn run_prelu(&self, x: &GpuTensor, slope: &GpuTensor) -> Result<GpuTensor> {
        if x.dtype() != slope.dtype() {
            return Err(Error::DTypeMismatch { expected: x.dtype(), actual: slope.dtype() });
        }
        let aligned = unidirectional_slope_shape(x.shape(), slope.shape())?;
        let plan = plan(x.shape(), &aligned)?;
        self.run_prelu_piece(x, slope, 0, &plan, 0)
    }

    /// PRelu with the slope read as `slope_shape` (same element count), e.g. the shape
    /// [`crate::per_channel_slope_shape`] gives for opsets 1 and 6.
    pub fn run_prelu_reshaped(&self, x: &GpuTensor, slope: &GpuTensor, slope_shape: &[usize]) -> Result<GpuTensor> {
        let slope_len = slope_shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        if slope_len != Some(slope.len()) {
            return Err(Error::ShapeMismatch {
                what: "PRelu slope reshape (element count)".into(),
                expected: slope.shape().to_vec(),
                actual: slope_shape.to_vec(),
            });
        }
        if x.dtype() != slope.dtype() {
            return Err(Error::DTypeMismatch { expected: x.dtype(), actual: slope.dtype() });
        }
        let aligned = unidirectional_slope_shape(x.shape(), slope_shape)?;
        let plan = plan(x.shape(), &aligned)?;
        self.run_prelu_piece(x, slope, 0, &plan, 0)
    }

    /// PRelu on `x`, the elements of a larger X that start at flat index `base`, planned by
    /// `plan`; `slope` holds the slope's elements from flat index `slope_first` on.
    fn run_prelu_piece(
        &self,
        x: &GpuTensor,
        slope: &GpuTensor,
        slope_first: usize,
        plan: &crate::broadcast::SlopePlan,
        base: usize,
    ) -> Result<GpuTensor> {
        self.check_owner(x)?;
        self.check_owner(slope)?;
        let repr = self.repr_for("PRelu", x.dtype())?;
        let y = self.empty_tensor(x.shape(), x.dtype(), "wgpu-activations.output")?;
        if x.is_empty() {
            return Ok(y);
        }
        let kernel = self.kernel(&ShaderKey::Prelu { repr, index: plan.index })?;
        let mut dims = [1u32; MAX_RANK];
        let mut slope_strides = [0u32; MAX_RANK];
        dims[..plan.dims.len()].copy_from_slice(&plan.dims);
        slope_strides[..plan.slope_strides.len()].copy_from_slice(&plan.slope_strides);
        let words = (x.len() as u64).div_ceil(repr.lanes());
        self.dispatch_windows(&kernel, words, repr.word_bytes(), |range, bytes| {
            let first = range.start * repr.lanes();
            let elements = (range.end * repr.lanes()).min(x.len() as u64) - first;
            let start = base as u64 + first;
            if start + elements > u64::from(u32::MAX) {
                return Err(Error::TooLarge {
                    what: "PRelu X element count (the kernel indexes with u32)".into(),
                    needed: start + elements,
                    limit: u64::from(u32::MAX),
                });
            }
            let (slope_base, slope_bytes) = self.slope_binding(plan, repr, slope, slope_first, start, elements)?;
            let params = PreluParams {
                elements: elements as u32,
                base: start as u32,
                rank: plan.dims.len() as u32,
                slope_base: slope_base as u32,
                dims,
                slope_strides,
            };
            let storage = vec![window(x.buffer(), bytes), window(slope.buffer(), &slope_bytes), window(y.buffer(), bytes)];
            Ok((bytemuck::bytes_of(&params).to_vec(), storage))
        })?;
        Ok(y)
    }

    /// The slope window a dispatch over X elements `start..start + elements` reads: its first
    /// flat slope index and its byte range in `slope` (whose first element is slope index
    /// `slope_first`). Monotonic patterns bind only the window, aligned down to the binding
    /// offset alignment; others bind the whole slope.
    fn slope_binding(
        &self,
        plan: &crate::broadcast::SlopePlan,
        repr: Repr,
        slope: &GpuTensor,
        slope_first: usize,
        start: u64,
        elements: u64,
    ) -> Result<(u64, Range<u64>)> {
        let elem_bytes = repr.dtype().size_bytes() as u64;
        let whole = (slope_first as u64, 0..slope.size_bytes().next_multiple_of(4));
        let (first, bytes) = match plan.slope_window(&(start as usize..(start + elements) as usize)) {
            Some(window) => {
                let align = u64::from(self.inner.info.limits.min_storage_buffer_offset_alignment).max(8);
                let from = ((window.start - slope_first) as u64 * elem_bytes) / align * align;
                let to = ((window.end - slope_first) as u64 * elem_bytes).next_multiple_of(4);
                (slope_first as u64 + from / elem_bytes, from..to)
            }
            None => whole,
        };
        if bytes.end - bytes.start > self.max_binding_bytes() {
            return Err(Error::TooLarge {
                what: "PRelu slope window (bytes in one storage binding)".into(),
                needed: bytes.end - bytes.start,
                limit: self.max_binding_bytes(),
            });
        }
        Ok((first, bytes))
    }

    /// One dispatch of `kernel` per binding window of `words` words, all in one submission.
    /// `window_setup` gets each window's word range and byte range and returns the window's
    /// uniform bytes and its storage bindings (bindings 1.., after the uniform at 0).
    fn dispatch_windows<'a>(
        &self,
        kernel: &Kernel,
        words: u64,
        word_bytes: u64,
        mut window_setup: impl FnMut(&Range<u64>, &Range<u64>) -> Result<(Vec<u8>, Vec<wgpu::BufferBinding<'a>>)>,
    ) -> Result<()> {
        let mut encoder =
            self.inner.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(&kernel.label) });
        // Each window's uniform must outlive the submission: pooled buffers are reused.
        let mut uniforms = Vec::new();
        for range in self.binding_windows(words, word_bytes) {
            let bytes = window_bytes(&range, word_bytes);
            let (params, storage) = window_setup(&range, &bytes)?;
            let uniform = self.uniform(&params)?;
            let mut bindings = vec![whole(uniform.buffer())];
            bindings.extend(storage);
            let bind_group = self.bind_group(kernel, &bindings);
            self.dispatch(&mut encoder, kernel, &bind_group, range.end - range.start);
            drop(bindings);
            uniforms.push(uniform);
        }
        self.inner.queue.submit([encoder.finish()]);
        Ok(())
    }

    fn uniform(&self, bytes: &[u8]) -> Result<crate::pool::PooledBuffer> {
        let buffer = self.inner.pool.take(
            &self.inner.device,
            bytes.len() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            "wgpu-activations.params",
            self.max_buffer_bytes(),
        )?;
        self.inner.queue.write_buffer(buffer.buffer(), 0, bytes);
        Ok(buffer)
    }

    fn bind_group(&self, kernel: &Kernel, resources: &[wgpu::BufferBinding<'_>]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
            .iter()
            .enumerate()
            .map(|(i, binding)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: wgpu::BindingResource::Buffer(binding.clone()),
            })
            .collect();
        self.inner.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&kernel.label),
            layout: &kernel.layout,
            entries: &entries,
        })
    }

    /// Word ranges that each fit one storage binding at an aligned offset. A window holds at
    /// most 2^30 words, so word and element indices (with the grid's overshoot) fit in u32.
    fn binding_windows(&self, words: u64, word_bytes: u64) -> Vec<Range<u64>> {
        let per_window = (self.max_binding_bytes() / word_bytes).min(1 << 30);
        (0..words.div_ceil(per_window))
            .map(|i| i * per_window..((i + 1) * per_window).min(words))
            .collect()
    }

    fn dispatch(&self, encoder: &mut wgpu::CommandEncoder, kernel: &Kernel, bind_group: &wgpu::BindGroup, words: u64) {
        let groups = words.div_ceil(u64::from(WORKGROUP_SIZE));
        let max = u64::from(self.inner.info.limits.max_compute_workgroups_per_dimension);
        let x = groups.min(max);
        let y = groups.div_ceil(x);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&kernel.label),
            timestamp_writes: None,
        });
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(x as u32, y as u32, 1);
    }
}

fn window_bytes(words: &Range<u64>, word_bytes: u64) -> Range<u64> {
    words.start * word_bytes..words.end * word_bytes
}

fn whole(buffer: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding { buffer, offset: 0, size: None }
}

fn window<'a>(buffer: &'a wgpu::Buffer, bytes: &Range<u64>) -> wgpu::BufferBinding<'a> {
    wgpu::BufferBinding { buffer, offset: bytes.start, size: NonZeroU64::new(bytes.end - bytes.start) }
}

/// Flat element ranges of a host array that each fit one device buffer.
fn host_pieces(ctx: &Context, len: usize, dtype: DType) -> Vec<Range<usize>> {
    let per_piece = ((ctx.max_buffer_bytes() / 256 * 256) as usize / dtype.size_bytes()).max(1);
    (0..len.div_ceil(per_piece).max(1)).map(|i| i * per_piece..((i + 1) * per_piece).min(len)).collect()
}

/// True when f64 work should run on the CPU reference: the device lacks SHADER_F64 and the
/// context opted in with [`crate::ContextOptions::with_f64_cpu_fallback`].
fn f64_on_cpu(ctx: &Context, dtype: DType) -> bool {
    dtype == DType::F64 && !ctx.has_feature(wgpu::Features::SHADER_F64) && ctx.options().f64_cpu_fallback
}

async fn activations_impl<T: FloatElement, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
    wait: Wait,
) -> Result<Array<T, D>> {
    if f64_on_cpu(ctx, T::DTYPE) {
        check_chain(chain)?;
        return Ok(crate::reference::map_standard(x, |v| chain.iter().fold(v, |acc, a| a.reference_scalar(acc))));
    }
    let standard = x.as_standard_layout();
    let flat = standard.as_slice().unwrap_or_default();
    let mut values = Vec::with_capacity(flat.len());
    for piece in host_pieces(ctx, flat.len(), T::DTYPE) {
        let input = ctx.upload(ArrayView::from(&flat[piece]))?;
        let output = ctx.run_activations(chain, &input)?;
        values.extend(ctx.read_tensor::<T>(&output, wait).await?);
    }
    Array::from_shape_vec(x.raw_dim(), values)
        .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })
}

async fn prelu_impl<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
    wait: Wait,
) -> Result<Array<T, D>> {
    if f64_on_cpu(ctx, T::DTYPE) {
        return crate::reference::prelu(x, slope);
    }
    let aligned = unidirectional_slope_shape(x.shape(), slope.shape())?;
    let plan = plan(x.shape(), &aligned)?;
    let standard = x.as_standard_layout();
    let flat = standard.as_slice().unwrap_or_default();
    let slope_standard = slope.as_standard_layout();
    let slope_flat = slope_standard.as_slice().unwrap_or_default();
    let pieces = host_pieces(ctx, flat.len(), T::DTYPE);
    // One upload of the slope serves every piece unless the pieces read disjoint windows of it.
    let shared_slope = if pieces.len() == 1 || !plan.is_monotonic() { Some(ctx.upload(slope_standard.view())?) } else { None };
    let mut values = Vec::with_capacity(flat.len());
    for piece in pieces {
        let input = ctx.upload(ArrayView::from(&flat[piece.clone()]))?;
        let output = match &shared_slope {
            Some(whole) => ctx.run_prelu_piece(&input, whole, 0, &plan, piece.start)?,
            None => {
                // Start the uploaded part at an aligned element so that the windows inside it
                // are aligned exactly as they would be in the whole slope.
                let offset_alignment = ctx.info().limits.min_storage_buffer_offset_alignment.max(8) as usize;
                let align = (offset_alignment / T::DTYPE.size_bytes()).max(1);
                let window = plan.slope_window(&piece).unwrap_or(0..slope_flat.len());
                let first = window.start / align * align;
                let part = ctx.upload(ArrayView::from(&slope_flat[first..window.end]))?;
                ctx.run_prelu_piece(&input, &part, first, &plan, piece.start)?
            }
        };
        values.extend(ctx.read_tensor::<T>(&output, wait).await?);
    }
    Array::from_shape_vec(x.raw_dim(), values)
        .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })
}

/// LeakyRelu (ONNX 1, 6, 16) on the GPU. Output has X's shape in standard layout.
pub fn leaky_relu<T: FloatElement, D: Dimension>(ctx: &Context, x: ArrayView<'_, T, D>, alpha: f32) -> Result<Array<T, D>> {
    pollster::block_on(activations_impl(ctx, &[Activation::leaky_relu(alpha)], x, Wait::Block))
}

/// Async form of [`leaky_relu`].
pub async fn leaky_relu_async<T: FloatElement, D: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    alpha: f32,
) -> Result<Array<T, D>> {
    activations_impl(ctx, &[Activation::leaky_relu(alpha)], x, Wait::Async).await
}

/// Elu (ONNX 1, 6, 22) on the GPU. Output has X's shape in standard layout.
pub fn elu<T: FloatElement, D: Dimension>(ctx: &Context, x: ArrayView<'_, T, D>, alpha: f32) -> Result<Array<T, D>> {
    pollster::block_on(activations_impl(ctx, &[Activation::elu(alpha)], x, Wait::Block))
}

/// Async form of [`elu`].
pub async fn elu_async<T: FloatElement, D: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    alpha: f32,
) -> Result<Array<T, D>> {
    activations_impl(ctx, &[Activation::elu(alpha)], x, Wait::Async).await
}

/// A chain of activations applied in order, fused into one kernel (one read and one write of
/// X); each step rounds to T exactly as separate ops would.
pub fn activations<T: FloatElement, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
) -> Result<Array<T, D>> {
    pollster::block_on(activations_impl(ctx, chain, x, Wait::Block))
}

/// Async form of [`activations`].
pub async fn activations_async<T: FloatElement, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
) -> Result<Array<T, D>> {
    activations_impl(ctx, chain, x, Wait::Async).await
}

/// PRelu (ONNX 7, 9, 16: unidirectional broadcasting of the slope to X) on the GPU. Output has
/// X's shape in standard layout. For opsets 1 and 6, map the slope's shape first with
/// [`crate::per_channel_slope_shape`].
pub fn prelu<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    pollster::block_on(prelu_impl(ctx, x, slope, Wait::Block))
}

/// Async form of [`prelu`].
pub async fn prelu_async<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    prelu_impl(ctx, x, slope, Wait::Async).await
}

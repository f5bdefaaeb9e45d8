//! The operators' public API, on top of the engine: host arrays in and out
//! ([`leaky_relu`]`(&ctx, x, alpha)`), device tensors ([`Context::run_activations`]), in place,
//! and recorded into the caller's own command encoder ([`Context::encode_activations`]).

use ndarray::{Array, ArrayView, ArrayViewMut, Dimension};

use crate::dtype::{Element, FloatElement};
pub use crate::engine::Blocking;
use crate::engine::{
    Activation, Context, GpuTensor, HostData, HostSlope, HostStep, Wait, check_chain, check_dtype, host_steps,
};
use crate::error::{Error, Result};
use crate::ops::{AxisOp, Step};

impl Context {
    /// Runs a chain of activations (fused into one kernel where the device's binding limits
    /// allow) on a device tensor; the result stays on the device. An empty chain is refused.
    pub fn run_activations(&self, chain: &[Activation], x: &GpuTensor) -> Result<GpuTensor> {
        check_chain(chain)?;
        check_dtype(chain, x.dtype())?;
        let y = self.scoped("allocation", || self.new_tensor(x.shape(), x.dtype(), "wgpu-activations.output"))?;
        self.submit_chain(chain, x, &y)?;
        Ok(y)
    }

    /// [`Context::run_activations`] overwriting `x` with the result.
    pub fn run_activations_in_place(&self, chain: &[Activation], x: &GpuTensor) -> Result<()> {
        check_chain(chain)?;
        check_dtype(chain, x.dtype())?;
        self.submit_chain(chain, x, x)
    }

    /// PRelu (opset 7+ broadcasting) on device tensors; the result stays on the device.
    pub fn run_prelu(&self, x: &GpuTensor, slope: &GpuTensor) -> Result<GpuTensor> {
        self.run_activations(&[Activation::prelu(slope)], x)
    }

    /// [`Context::run_prelu`] overwriting `x` with the result.
    pub fn run_prelu_in_place(&self, x: &GpuTensor, slope: &GpuTensor) -> Result<()> {
        self.run_activations_in_place(&[Activation::prelu(slope)], x)
    }

    /// SwiGLU (ONNX 28), `Swish_alpha(a) * b`, of two device tensors of one shape and dtype,
    /// into a new tensor; the result stays on the device, every float dtype (f64 on the
    /// context's f64 path). The same kernel as a chain holding [`Activation::swiglu`] alone.
    pub fn run_swiglu(&self, a: &GpuTensor, b: &GpuTensor, alpha: f32) -> Result<GpuTensor> {
        self.run_activations(&[Activation::swiglu(b, alpha)], a)
    }

    /// Records SwiGLU of `a` and `b` into `y` (A's shape and dtype; `a` itself for in place, but
    /// not overlapping `b`: WebGPU binds a buffer read-only or writable in one dispatch) into the
    /// caller's `encoder`.
    pub fn encode_swiglu(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        a: &GpuTensor,
        b: &GpuTensor,
        alpha: f32,
        y: &GpuTensor,
    ) -> Result<()> {
        self.encode_activations(encoder, &[Activation::swiglu(b, alpha)], a, y)
    }

    /// Records PRelu from `x` into `y` (which may be `x` itself) into the caller's `encoder`.
    pub fn encode_prelu(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        x: &GpuTensor,
        slope: &GpuTensor,
        y: &GpuTensor,
    ) -> Result<()> {
        self.encode_activations(encoder, &[Activation::prelu(slope)], x, y)
    }
}

/// The chain on a host array, into a new array. Where it runs on the CPU reference (the f64
/// fallback, [`Context::runs_on_cpu`]), PRelu's slopes and SwiGLU's B are read back from the
/// device.
async fn activations_impl<T: Element, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
    wait: Wait,
) -> Result<Array<T, D>> {
    check_chain(chain)?;
    check_dtype(chain, T::DTYPE)?;
    if !ctx.runs_on_cpu(T::DTYPE) {
        return run_into_new(ctx, x, &host_steps(chain), wait).await;
    }
    let mut y = x.as_standard_layout().into_owned();
    for step in chain {
        y = match step.step() {
            Step::Unary(op, attributes) => {
                crate::cpu::map_standard(y.view(), |v| crate::cpu::unary_element(op, attributes, v))
            }
            Step::Prelu(slope) => crate::cpu::prelu(y.view(), ctx.read_tensor::<T>(slope, wait).await?.view())?,
            Step::Swiglu(b, [alpha, ..]) => {
                crate::cpu::gated::swiglu_of_any(y.view(), ctx.read_tensor::<T>(b, wait).await?.view(), *alpha)?
            }
        };
    }
    Ok(y)
}

async fn prelu_impl<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
    wait: Wait,
) -> Result<Array<T, D>> {
    crate::broadcast::unidirectional_slope_shape(x.shape(), slope.shape())?;
    if ctx.runs_on_cpu(T::DTYPE) {
        return crate::cpu::prelu(x, slope);
    }
    run_into_new(ctx, x, &[Step::Prelu(HostSlope::Host(slope.into_dyn()))], wait).await
}

/// `steps` on the device from a host array into a new one in X's shape.
async fn run_into_new<T: Element, D: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    steps: &[HostStep<'_, T>],
    wait: Wait,
) -> Result<Array<T, D>> {
    let contiguous = x.as_standard_layout(); // borrowed when it already is
    let mut values = Vec::new();
    let data = HostData::Separate { input: contiguous.as_slice().unwrap_or_default(), output: &mut values };
    ctx.run_host(data, x.shape(), steps, wait).await?;
    Array::from_shape_vec(x.raw_dim(), values)
        .map_err(|e| Error::Internal { what: format!("a result in X's shape: {e}") })
}

/// The blocking function of an operator whose one attribute is `alpha`, and its async form.
macro_rules! alpha_operator {
    ($onnx:literal ($versions:literal), $name:ident, $name_async:ident) => {
        #[doc = concat!($onnx, " (ONNX ", $versions, ") on the GPU. Output has X's shape in standard layout.")]
        #[doc = concat!("Blocks until the result is back; [`", stringify!($name_async), "`] in the browser.")]
        pub fn $name<T: FloatElement + Blocking, D: Dimension>(
            ctx: &Context,
            x: ArrayView<'_, T, D>,
            alpha: f32,
        ) -> Result<Array<T, D>> {
            T::block_on(activations_impl(ctx, &[Activation::$name(alpha)], x, blocking_wait()))
        }

        #[doc = concat!("Async form of [`", stringify!($name), "`]; cancel-safe, and it never blocks its executor:")]
        /// natively the context's poller completes it, in the browser the page's event loop.
        pub async fn $name_async<T: FloatElement, D: Dimension>(
            ctx: &Context,
            x: ArrayView<'_, T, D>,
            alpha: f32,
        ) -> Result<Array<T, D>> {
            activations_impl(ctx, &[Activation::$name(alpha)], x, Wait::Async).await
        }
    };
}

alpha_operator!("LeakyRelu"("1, 6, 16"), leaky_relu, leaky_relu_async);
alpha_operator!("Elu"("1, 6, 22"), elu, elu_async);

/// A chain of activations applied in order, fused into one kernel (one read and one write of
/// X); each step rounds to T exactly as separate ops would. PRelu steps carry device slopes.
pub fn activations<T: Blocking, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
) -> Result<Array<T, D>> {
    T::block_on(activations_impl(ctx, chain, x, blocking_wait()))
}

/// Async form of [`activations`].
pub async fn activations_async<T: Element, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayView<'_, T, D>,
) -> Result<Array<T, D>> {
    activations_impl(ctx, chain, x, Wait::Async).await
}

/// [`activations`] writing the result over `x`: read back straight into its memory when it is
/// contiguous in standard order, else through one contiguous copy.
pub fn activations_in_place<T: Blocking, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayViewMut<'_, T, D>,
) -> Result<()> {
    T::block_on(activations_in_place_impl(ctx, chain, x, blocking_wait()))
}

/// Async form of [`activations_in_place`].
pub async fn activations_in_place_async<T: Element, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayViewMut<'_, T, D>,
) -> Result<()> {
    activations_in_place_impl(ctx, chain, x, Wait::Async).await
}

async fn activations_in_place_impl<T: Element, D: Dimension>(
    ctx: &Context,
    chain: &[Activation],
    x: ArrayViewMut<'_, T, D>,
    wait: Wait,
) -> Result<()> {
    if ctx.runs_on_cpu(T::DTYPE) {
        let y = activations_impl(ctx, chain, x.view(), wait).await?; // it checks the chain
        let mut x = x;
        x.assign(&y);
        return Ok(());
    }
    check_chain(chain)?;
    check_dtype(chain, T::DTYPE)?;
    in_place(x, async |values, shape| ctx.run_host(HostData::InPlace(values), shape, &host_steps(chain), wait).await)
        .await
}

/// Runs `work` on `x`'s elements in standard order, through a contiguous copy when `x` is not
/// contiguous.
async fn in_place<T: Element, D: Dimension>(
    mut x: ArrayViewMut<'_, T, D>,
    work: impl AsyncFnOnce(&mut [T], &[usize]) -> Result<()>,
) -> Result<()> {
    let shape = x.shape().to_vec();
    if let Some(values) = x.as_slice_mut() {
        return work(values, &shape).await;
    }
    let mut copy = x.as_standard_layout().into_owned();
    work(copy.as_slice_mut().unwrap_or_default(), &shape).await?;
    x.assign(&copy);
    Ok(())
}

/// PRelu (ONNX 7, 9, 16: unidirectional broadcasting of the slope to X) on the GPU. Output has
/// X's shape in standard layout. For opsets 1 and 6, map the slope's shape first with
/// [`crate::per_channel_slope_shape`].
pub fn prelu<T: Blocking, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    T::block_on(prelu_impl(ctx, x, slope, blocking_wait()))
}

/// Async form of [`prelu`].
pub async fn prelu_async<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    prelu_impl(ctx, x, slope, Wait::Async).await
}

/// [`prelu`] writing the result over `x`.
pub fn prelu_in_place<T: Blocking, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayViewMut<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<()> {
    T::block_on(prelu_in_place_impl(ctx, x, slope, blocking_wait()))
}

/// Async form of [`prelu_in_place`].
pub async fn prelu_in_place_async<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayViewMut<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<()> {
    prelu_in_place_impl(ctx, x, slope, Wait::Async).await
}

async fn prelu_in_place_impl<T: Element, D: Dimension, E: Dimension>(
    ctx: &Context,
    x: ArrayViewMut<'_, T, D>,
    slope: ArrayView<'_, T, E>,
    wait: Wait,
) -> Result<()> {
    crate::broadcast::unidirectional_slope_shape(x.shape(), slope.shape())?;
    if ctx.runs_on_cpu(T::DTYPE) {
        let y = crate::cpu::prelu(x.view(), slope)?;
        let mut x = x;
        x.assign(&y);
        return Ok(());
    }
    let slope = slope.into_dyn();
    in_place(x, async |values, shape| {
        ctx.run_host(HostData::InPlace(values), shape, &[Step::Prelu(HostSlope::Host(slope))], wait).await
    })
    .await
}

/// How a blocking call waits: polling on its own thread. (In the browser no blocking call
/// can be made, see [`Blocking`]; there this is never reached.)
fn blocking_wait() -> Wait {
    #[cfg(not(target_arch = "wasm32"))]
    return Wait::Block;
    #[cfg(target_arch = "wasm32")]
    return Wait::Async;
}

/// `op` (its version `version`, the newest if `None`) over `axis` of a host array (a negative
/// axis counts from the end), into a new array of X's shape in standard layout, on the device
/// (f64 on the CPU reference only where the context's f64 fallback serves it). With validation
/// on, the result is checked against the reference.
pub fn axis_op<T: FloatElement + Blocking, D: Dimension>(
    ctx: &Context,
    op: &'static AxisOp,
    version: Option<u32>,
    x: ArrayView<'_, T, D>,
    axis: i64,
) -> Result<Array<T, D>> {
    T::block_on(axis_impl(ctx, op, version, x, axis, blocking_wait()))
}

/// Async form of [`axis_op`].
pub async fn axis_op_async<T: FloatElement, D: Dimension>(
    ctx: &Context,
    op: &'static AxisOp,
    version: Option<u32>,
    x: ArrayView<'_, T, D>,
    axis: i64,
) -> Result<Array<T, D>> {
    axis_impl(ctx, op, version, x, axis, Wait::Async).await
}

async fn axis_impl<T: FloatElement, D: Dimension>(
    ctx: &Context,
    op: &'static AxisOp,
    version: Option<u32>,
    x: ArrayView<'_, T, D>,
    axis: i64,
    wait: Wait,
) -> Result<Array<T, D>> {
    let version = crate::axis::version_of(op, version)?;
    crate::axis::check_axis_dtype(op, version, T::DTYPE)?;
    let layout = crate::axis::AxisLayout::new(op, version, x.shape(), axis)?;
    let reference = || crate::cpu::axis::rows(op.kind, layout, x.view().into_dyn());
    let y = if ctx.runs_on_cpu(T::DTYPE) {
        reference()
    } else {
        let device_x = ctx.upload(x.view())?;
        let device_y = ctx.run_axis(op, &device_x, axis, Some(version))?;
        let y = ctx.read_tensor::<T>(&device_y, wait).await?;
        if ctx.options().validation {
            let bound = op.max_ulp.for_dtype(T::DTYPE);
            let reference = reference();
            check_against_reference(op.onnx_name, bound, y.iter(), reference.iter())?;
        }
        y
    };
    y.into_dimensionality::<D>().map_err(|e| Error::Internal { what: format!("a result in X's shape: {e}") })
}

/// Validation mode's check of a result of the kernels outside the elementwise driver: every
/// element within `bound` of the reference.
fn check_against_reference<'a, T: FloatElement>(
    op: &str,
    bound: u64,
    gpu: impl Iterator<Item = &'a T>,
    reference: impl Iterator<Item = &'a T>,
) -> Result<()> {
    for (index, (&g, &r)) in gpu.zip(reference).enumerate() {
        if !crate::ulp::within_ulp(g, r, bound) {
            return Err(Error::ValidationMismatch {
                op: op.to_string(),
                dtype: T::DTYPE,
                index,
                gpu: format!("{:e}", g.to_f64()),
                reference: format!("{:e}", r.to_f64()),
                bound,
            });
        }
    }
    Ok(())
}

/// The blocking function of an operator over an axis, and its async form.
macro_rules! axis_operator {
    ($onnx:literal, $op:ident, $name:ident, $name_async:ident) => {
        #[doc = concat!($onnx, " (ONNX 1, 11, 13) over `axis` (negative: from the end), its newest version: ")]
        #[doc = "[`axis_op`] takes another. Output has X's shape in standard layout; blocks until the result is back."]
        pub fn $name<T: FloatElement + Blocking, D: Dimension>(
            ctx: &Context,
            x: ArrayView<'_, T, D>,
            axis: i64,
        ) -> Result<Array<T, D>> {
            axis_op(ctx, &crate::ops::$op, None, x, axis)
        }

        #[doc = concat!("Async form of [`", stringify!($name), "`].")]
        pub async fn $name_async<T: FloatElement, D: Dimension>(
            ctx: &Context,
            x: ArrayView<'_, T, D>,
            axis: i64,
        ) -> Result<Array<T, D>> {
            axis_op_async(ctx, &crate::ops::$op, None, x, axis).await
        }
    };
}

axis_operator!("Softmax", SOFTMAX, softmax, softmax_async);
axis_operator!("LogSoftmax", LOG_SOFTMAX, log_softmax, log_softmax_async);
axis_operator!("Hardmax", HARDMAX, hardmax, hardmax_async);

/// SwiGLU (ONNX 28): `Swish_alpha(a) * b` of two host arrays of one shape (no broadcasting),
/// into a new array in standard layout; ONNX's default alpha is 1. On the device, arrays beyond
/// one buffer in pieces (f64 on the CPU reference only where the context's f64 fallback serves
/// it). With validation on, the result is checked against the reference. Blocks until the
/// result is back.
pub fn swiglu<T: FloatElement + Blocking, D: Dimension>(
    ctx: &Context,
    a: ArrayView<'_, T, D>,
    b: ArrayView<'_, T, D>,
    alpha: f32,
) -> Result<Array<T, D>> {
    T::block_on(swiglu_impl(ctx, a, b, alpha, blocking_wait()))
}

/// Async form of [`swiglu`].
pub async fn swiglu_async<T: FloatElement, D: Dimension>(
    ctx: &Context,
    a: ArrayView<'_, T, D>,
    b: ArrayView<'_, T, D>,
    alpha: f32,
) -> Result<Array<T, D>> {
    swiglu_impl(ctx, a, b, alpha, Wait::Async).await
}

async fn swiglu_impl<T: FloatElement, D: Dimension>(
    ctx: &Context,
    a: ArrayView<'_, T, D>,
    b: ArrayView<'_, T, D>,
    alpha: f32,
    wait: Wait,
) -> Result<Array<T, D>> {
    crate::cpu::gated::same_shapes(a.shape(), b.shape())?;
    if ctx.runs_on_cpu(T::DTYPE) {
        return crate::cpu::gated::swiglu(a.view(), b.view(), alpha);
    }
    run_into_new(ctx, a, &[Step::Swiglu(HostSlope::Host(b.into_dyn()), crate::ops::attributes_from(&[alpha]))], wait)
        .await
}

//! SwiGLU on the device: one dispatch of its kernel (`kernel::gated`), its pipelines cached
//! beside the kernels over an axis. f64 has no kernel of its own yet: its host call runs the CPU
//! reference.

use super::axis::OwnDispatch;
use super::{Context, GpuTensor};
use crate::error::{Error, Result};
use crate::kernel::axis::AXIS_KERNEL_DTYPES;
use crate::kernel::gated::{GATED_WORKGROUP, GatedKernelKey};
use crate::ops::SWIGLU;

/// The kernel's uniform (`GatedParams` in `shaders/driver/gated.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GatedParams {
    len: u32,
    groups_x: u32,
    zero: u32,
    alpha: f32,
}

impl Context {
    /// SwiGLU (ONNX 28), `Swish_alpha(a) * b`, of two device tensors of one shape and dtype,
    /// into a new tensor; the result stays on the device. f16, bf16 and f32 run on the device;
    /// f64 is refused here (its host call runs the CPU reference).
    pub fn run_swiglu(&self, a: &GpuTensor, b: &GpuTensor, alpha: f32) -> Result<GpuTensor> {
        let y =
            self.scoped("allocation", || self.new_tensor(a.shape(), a.dtype(), "wgpu-activations.swiglu-output"))?;
        self.scoped("swiglu", || {
            let mut encoder = self.encoder("wgpu-activations.swiglu");
            self.encode_swiglu(&mut encoder, a, b, alpha, &y)?;
            self.inner.queue.submit([encoder.finish()]);
            Ok(())
        })?;
        Ok(y)
    }

    /// Records SwiGLU of `a` and `b` into `y` (A's shape and dtype, not overlapping either:
    /// WebGPU binds a buffer read-only or writable in one dispatch) into the caller's `encoder`.
    pub fn encode_swiglu(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        a: &GpuTensor,
        b: &GpuTensor,
        alpha: f32,
        y: &GpuTensor,
    ) -> Result<()> {
        self.encode_swiglu_timed(encoder, (a, b, alpha), y, None)
    }

    /// [`Context::encode_swiglu`], its pass writing timestamps `base` and `base + 1` of a query
    /// set where given (the bench).
    pub(crate) fn encode_swiglu_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (a, b, alpha): (&GpuTensor, &GpuTensor, f32),
        y: &GpuTensor,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) -> Result<()> {
        self.check_ready()?;
        for tensor in [a, b, y] {
            self.check_owner(tensor)?;
        }
        let dtype = a.dtype();
        if !SWIGLU.accepts(dtype) {
            return Err(Error::DTypeNotAllowed { op: SWIGLU.onnx_name, dtype, version: Some(28) });
        }
        for (what, other) in [("B", b), ("Y", y)] {
            if other.shape() != a.shape() || other.dtype() != dtype {
                return Err(Error::ShapeMismatch {
                    what: format!(
                        "SwiGLU's {what} ({} against A's {dtype}: one shape, no broadcasting)",
                        other.dtype()
                    ),
                    expected: a.shape().to_vec(),
                    actual: other.shape().to_vec(),
                });
            }
        }
        if a.shares_words_with(y) || b.shares_words_with(y) {
            return Err(Error::InvalidAttribute {
                op: SWIGLU.onnx_name,
                name: "y",
                reason: "the output must not overlap A or B".into(),
            });
        }
        if !AXIS_KERNEL_DTYPES.contains(&dtype) {
            return Err(Error::Unsupported {
                op: SWIGLU.onnx_name,
                dtype,
                reason: "f64 runs on the CPU reference: call the host-array function swiglu()".into(),
            });
        }
        if a.is_empty() {
            return Ok(());
        }
        let bytes = a.size_bytes().next_multiple_of(4);
        let limit = self.inner.info.limits.max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(Error::TooLarge { what: "SwiGLU's input".into(), needed: bytes, limit });
        }
        let len = u32::try_from(a.len()).map_err(|_| Error::UnsupportedShape {
            what: format!("SwiGLU of shape {:?}", a.shape()),
            reason: "more than 2^32 - 1 elements".into(),
        })?;
        let in_y_buffer = a.buffer() == y.buffer() || b.buffer() == y.buffer();
        let key = GatedKernelKey::new(dtype, self.inner.tuning, in_y_buffer);
        let label = key.label();
        let pipeline = self.inner.own_pipelines.get_or_build(&self.inner.device, &label, || key.wgsl(), "gated")?;
        let (groups_x, groups_y) = self.grid(u64::from(len).div_ceil(u64::from(GATED_WORKGROUP * 4)));
        let params = GatedParams { len, groups_x, zero: 0, alpha };
        let tensors = [a, b, y];
        let dispatch = OwnDispatch { label: &label, params: bytemuck::bytes_of(&params), tensors: &tensors, bytes };
        self.record_own(encoder, &pipeline, dispatch, (groups_x, groups_y), timestamps);
        Ok(())
    }
}

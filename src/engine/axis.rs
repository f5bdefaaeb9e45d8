//! The operators over an axis on the device: one dispatch of the kernel over an axis
//! (`kernel::axis`), its pipelines cached per (operator, dtype, products or f64 path) beside the
//! elementwise ones.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::dispatch::KeepAlive;
use super::platform::caught_now;
use super::pool::PooledBuffer;
use super::{Context, GpuTensor};
use crate::axis::{AxisLayout, check_axis_dtype, version_of};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::axis::{
    AXIS_F64_WORKGROUP, AXIS_KERNEL_DTYPES, AXIS_WORKGROUP, AxisEntry, AxisKernelKey, ROW_WORKGROUP,
    ROWS_PER_INVOCATION, row_segment, rows_an_invocation,
};
use crate::ops::AxisOp;
use crate::repr::Repr;

/// The kernels outside the elementwise driver (over an axis), built once per label
/// (their operator, dtype, products and entry point: a few dozen at most, no bound needed).
#[derive(Default)]
pub(crate) struct OwnPipelines(Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>);

impl OwnPipelines {
    /// The pipeline labelled `label`, built from `wgsl()`'s module and `entry` the first time.
    pub(crate) fn get_or_build(
        &self,
        device: &wgpu::Device,
        label: &str,
        wgsl: impl FnOnce() -> String,
        entry: &str,
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let mut built = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipeline) = built.get(label) {
            return Ok(Arc::clone(pipeline));
        }
        let wgsl = wgsl();
        let (pipeline, caught) = caught_now(device, || {
            let module = super::pipelines::shader_module(device, label, &wgsl);
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: super::pipelines::compilation_options(),
                cache: None,
            })
        });
        if let Some(error) = caught {
            return Err(Error::Shader { label: label.to_string(), message: error.to_string(), wgsl });
        }
        let pipeline = Arc::new(pipeline);
        built.insert(label.to_string(), Arc::clone(&pipeline));
        Ok(pipeline)
    }
}

/// The kernels' uniform (`AxisParams` in `shaders/driver/axis_params.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct AxisParams {
    n: u32,
    inner: u32,
    rows: u32,
    groups_x: u32,
    zero: u32,
    /// `row_segments`' invocations a row ([`row_segment`]).
    segment: u32,
    /// The chunked entry points' chunks: their elements, and how many a row has.
    chunk: u32,
    chunks: u32,
    /// `row_vectors`' rows an invocation ([`rows_an_invocation`]).
    rows_an_invocation: u32,
    /// To the uniform's 16-byte multiple.
    padding: [u32; 3],
}

impl Context {
    /// `op` (its version `version`, the newest if `None`) over `axis` of a device tensor (a
    /// negative axis counts from the end), into a new tensor of X's shape; the result stays on
    /// the device, every dtype the operator allows (f64 on the context's f64 path).
    pub fn run_axis(&self, op: &'static AxisOp, x: &GpuTensor, axis: i64, version: Option<u32>) -> Result<GpuTensor> {
        let y = self.scoped("allocation", || self.new_tensor(x.shape(), x.dtype(), "wgpu-activations.axis-output"))?;
        self.scoped("axis", || {
            let mut encoder = self.encoder("wgpu-activations.axis");
            self.encode_axis_timed(&mut encoder, (op, axis, version), x, &y, None, false)?;
            self.inner.queue.submit([encoder.finish()]);
            Ok(())
        })?;
        Ok(y)
    }

    /// Records `op` over `axis` from `x` into `y` (a distinct tensor of X's shape and dtype) into
    /// the caller's `encoder`, submitting nothing. Its parameters and scratch are pooled buffers,
    /// which go back to the pool once the caller's submission completes.
    pub fn encode_axis(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        op: &'static AxisOp,
        x: &GpuTensor,
        y: &GpuTensor,
        axis: i64,
        version: Option<u32>,
    ) -> Result<()> {
        self.scoped("encoding", || self.encode_axis_timed(encoder, (op, axis, version), x, y, None, false))
    }

    /// [`Context::encode_axis`], its pass writing timestamps `base` and `base + 1` of a query
    /// set where given (the bench), and for the bench's yardstick with Softmax's or
    /// LogSoftmax's function body in plain f32 where `plain_body` (16- and 32-bit floats).
    pub(crate) fn encode_axis_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (op, axis, version): (&'static AxisOp, i64, Option<u32>),
        x: &GpuTensor,
        y: &GpuTensor,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
        plain_body: bool,
    ) -> Result<()> {
        self.check_ready()?;
        self.check_owner(x)?;
        self.check_owner(y)?;
        let version = version_of(op, version)?;
        check_axis_dtype(op, version, x.dtype())?;
        let layout = AxisLayout::new(op, version, x.shape(), axis)?;
        if y.shape() != x.shape() || y.dtype() != x.dtype() {
            return Err(Error::ShapeMismatch {
                what: format!("{}'s output ({}; X is {})", op.onnx_name, y.dtype(), x.dtype()),
                expected: x.shape().to_vec(),
                actual: y.shape().to_vec(),
            });
        }
        if x.shares_words_with(y) {
            return Err(Error::InvalidAttribute {
                op: op.onnx_name,
                name: "y",
                reason: "the output must not overlap X (a row is read three times)".into(),
            });
        }
        if !AXIS_KERNEL_DTYPES.contains(&x.dtype()) {
            return Err(Error::Unsupported {
                op: op.onnx_name,
                dtype: x.dtype(),
                reason: "no kernel over an axis".into(),
            });
        }
        let native_f64 = x.dtype() == DType::F64 && self.repr_for(op.onnx_name, DType::F64)? == Repr::F64;
        if x.is_empty() {
            return Ok(());
        }
        let bytes = x.size_bytes().next_multiple_of(4);
        let limit = self.inner.info.limits.max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(Error::TooLarge { what: format!("{}'s input", op.onnx_name), needed: bytes, limit });
        }
        let too_big = |what: &str, value: usize| Error::UnsupportedShape {
            what: format!("{} of shape {:?}", op.onnx_name, x.shape()),
            reason: format!("{what} {value} exceeds 2^32 - 1"),
        };
        let rows = u32::try_from(layout.rows()).map_err(|_| too_big("rows", layout.rows()))?;
        let n = u32::try_from(layout.n).map_err(|_| too_big("row length", layout.n))?;
        let inner = u32::try_from(layout.inner).map_err(|_| too_big("inner size", layout.inner))?;
        let mut key = AxisKernelKey::new(op.kind, x.dtype(), self.inner.tuning, x.buffer() == y.buffer(), native_f64);
        key.plain_body = plain_body && x.dtype() != DType::F64;
        let on_cpu =
            (self.inner.options.axis_cpu_forms).unwrap_or(self.inner.info.adapter.device_type == wgpu::DeviceType::Cpu);
        let mut entries = key.entries(layout.rows(), layout.n, layout.inner, on_cpu);
        let chunk = key.chunk_len(layout.n, layout.rows(), host_threads(), entries[0]);
        let segment = row_segment(layout.n, on_cpu);
        let rows_an_invocation = match entries[0] {
            AxisEntry::RowVectors => {
                rows_an_invocation(layout.rows(), layout.n * x.dtype().size_bytes(), host_threads())
            }
            _ => 1,
        };
        entries.iter_mut().for_each(|entry| *entry = entry.in_runs(rows_an_invocation));
        let chunks = layout.n.div_ceil(chunk);
        let chunk_count = u64::from(rows) * chunks as u64;
        // The chunks' scratch (each chunk's maximum and sum of terms, for the dispatches after)
        // and every dispatch's parameters come from the pool, and go back once the work is done.
        let mut keep = KeepAlive::default();
        if entries.iter().any(|e| e.chunked()) {
            for (what, bytes) in ["tops", "sums"].into_iter().zip(key.chunk_scratch_bytes()) {
                let label = format!("wgpu-activations.axis.chunk-{what}");
                keep.buffers.push(self.take_internal_buffer(
                    chunk_count * bytes,
                    wgpu::BufferUsages::STORAGE,
                    &label,
                )?);
            }
        }
        let mut slots = self.take_param_slots(
            entries.len(),
            std::mem::size_of::<AxisParams>() as u64,
            "wgpu-activations.axis.params",
        )?;
        let last = entries.len() - 1;
        for (k, &entry) in entries.iter().enumerate() {
            let label = format!("{}.{}", key.label(), entry.name());
            let pipeline =
                self.inner.own_pipelines.get_or_build(&self.inner.device, &label, || key.wgsl(entry), entry.name())?;
            let groups = match entry {
                AxisEntry::Rows | AxisEntry::StridedVectors => {
                    u64::from(rows).div_ceil(u64::from(AXIS_WORKGROUP * ROWS_PER_INVOCATION))
                }
                AxisEntry::RowVectors | AxisEntry::RowRunVectors => {
                    u64::from(rows).div_ceil(u64::from(AXIS_WORKGROUP * rows_an_invocation))
                }
                AxisEntry::RowSegments => u64::from(rows).div_ceil(u64::from(ROW_WORKGROUP / segment)),
                AxisEntry::HeldChunkJoin => u64::from(rows),
                AxisEntry::HeldChunkTops | AxisEntry::HeldChunkResults => chunk_count,
                AxisEntry::F64RowPerInvocation => u64::from(rows).div_ceil(u64::from(AXIS_F64_WORKGROUP)),
                AxisEntry::F64ChunkSums => chunk_count.div_ceil(u64::from(AXIS_F64_WORKGROUP)),
                AxisEntry::VectorChunkTops | AxisEntry::VectorChunkSums | AxisEntry::VectorChunkResults => {
                    chunk_count.div_ceil(u64::from(AXIS_WORKGROUP))
                }
                AxisEntry::StridedChunkTops | AxisEntry::StridedChunkSums | AxisEntry::StridedChunkResults => {
                    chunk_count.div_ceil(u64::from(AXIS_WORKGROUP * ROWS_PER_INVOCATION))
                }
                AxisEntry::F64ChunkTops | AxisEntry::F64ChunkPartialSums | AxisEntry::F64ChunkResults => chunk_count,
            };
            let (groups_x, groups_y) = self.grid(groups);
            let params = AxisParams {
                n,
                inner,
                rows,
                groups_x,
                zero: 0,
                segment,
                chunk: chunk as u32,
                chunks: u32::try_from(chunks).map_err(|_| too_big("chunks", chunks))?,
                rows_an_invocation,
                padding: [0; 3],
            };
            let params = slots.put(k, &params);
            let tensors = [x, y];
            let scratch: Vec<&wgpu::Buffer> = match entry.chunked() {
                true => keep.buffers.iter().map(PooledBuffer::buffer).collect(),
                false => Vec::new(),
            };
            let dispatch = OwnDispatch { label: &label, params, tensors: &tensors, bytes, extra: &scratch };
            // The bench's timestamps: the first dispatch's beginning, the last one's end.
            let pass_timestamps = timestamps.filter(|_| k == 0 || k == last).map(|(set, base)| PassTimestamps {
                set,
                beginning: (k == 0).then_some(base),
                end: (k == last).then_some(base + 1),
            });
            self.record_own(encoder, &pipeline, dispatch, (groups_x, groups_y), pass_timestamps);
        }
        keep.buffers.push(slots.upload(&self.inner.queue));
        encoder.on_submitted_work_done(move || drop(keep));
        Ok(())
    }
}

/// Timestamps a pass writes (`wgpu::ComputePassTimestampWrites` without its lifetime's ties).
#[derive(Clone, Copy)]
pub(crate) struct PassTimestamps<'a> {
    pub(crate) set: &'a wgpu::QuerySet,
    pub(crate) beginning: Option<u32>,
    pub(crate) end: Option<u32>,
}

/// One dispatch of a kernel outside the elementwise driver: its parameters (binding 0, a slot of
/// a pooled uniform buffer), its tensors (bindings 1 on, each bound over `bytes`), then whole
/// buffers of its own (scratch).
pub(crate) struct OwnDispatch<'a> {
    pub(crate) label: &'a str,
    pub(crate) params: wgpu::BufferBinding<'a>,
    pub(crate) tensors: &'a [&'a GpuTensor],
    pub(crate) bytes: u64,
    pub(crate) extra: &'a [&'a wgpu::Buffer],
}

impl Context {
    /// Records `dispatch` of `pipeline` over `groups` workgroups into `encoder`, its pass writing
    /// `timestamps` where given.
    pub(crate) fn record_own(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        dispatch: OwnDispatch<'_>,
        (groups_x, groups_y): (u32, u32),
        timestamps: Option<PassTimestamps<'_>>,
    ) {
        let OwnDispatch { label, params, tensors, bytes, extra } = dispatch;
        let mut entries = vec![wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::Buffer(params) }];
        for (binding, tensor) in (1u32..).zip(tensors) {
            let window = wgpu::BufferBinding {
                buffer: tensor.buffer(),
                offset: tensor.offset(),
                size: std::num::NonZeroU64::new(bytes),
            };
            entries.push(wgpu::BindGroupEntry { binding, resource: wgpu::BindingResource::Buffer(window) });
        }
        for (binding, buffer) in (1 + tensors.len() as u32..).zip(extra) {
            entries.push(wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() });
        }
        let group = self.inner.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let timestamp_writes = timestamps.map(|t| wgpu::ComputePassTimestampWrites {
            query_set: t.set,
            beginning_of_pass_write_index: t.beginning,
            end_of_pass_write_index: t.end,
        });
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(groups_x, groups_y, 1);
    }
}

/// The host's threads, which a CPU adapter's workgroups run on (lavapipe and SwiftShader take one
/// per core).
fn host_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

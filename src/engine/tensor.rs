//! Tensors that live on the device, and the moves between host and device.

use std::ops::Range;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayView, Dimension, IxDyn};

use super::context::Context;
use super::dispatch::element_count;
use super::pool::PooledBuffer;
use super::readback::{Readback, Wait};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};

/// A dense tensor in a device buffer: elements in standard (row-major) order, little-endian,
/// from a byte offset of the buffer on. Results of device ops stay here until read back, so
/// chains of operations need no round trip through the host. Cloning is cheap and shares the
/// buffer.
#[derive(Clone)]
pub struct GpuTensor {
    memory: Arc<Memory>,
    offset: u64,
    shape: Vec<usize>,
    len: usize,
    dtype: DType,
    /// The id of the context (and so the device) whose buffer this is.
    owner: u64,
}

enum Memory {
    Pooled(PooledBuffer),
    Wrapped(wgpu::Buffer),
}

impl Memory {
    fn buffer(&self) -> &wgpu::Buffer {
        match self {
            Memory::Pooled(pooled) => pooled.buffer(),
            Memory::Wrapped(buffer) => buffer,
        }
    }
}

impl std::fmt::Debug for GpuTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTensor")
            .field("shape", &self.shape)
            .field("dtype", &self.dtype)
            .field("offset", &self.offset)
            .finish()
    }
}

impl GpuTensor {
    /// Dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when some dimension is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of the elements.
    pub fn size_bytes(&self) -> u64 {
        (self.len * self.dtype.size_bytes()) as u64
    }

    /// The device buffer that holds the elements, from [`GpuTensor::offset`] on.
    pub fn buffer(&self) -> &wgpu::Buffer {
        self.memory.buffer()
    }

    /// Byte offset of the first element in [`GpuTensor::buffer`].
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The same elements under another shape with the same element count (no copy).
    pub fn reshaped(&self, shape: &[usize]) -> Result<GpuTensor> {
        if element_count(shape) != Some(self.len) {
            return Err(Error::ShapeMismatch {
                what: "reshape (element count)".into(),
                expected: self.shape.clone(),
                actual: shape.to_vec(),
            });
        }
        Ok(GpuTensor { shape: shape.to_vec(), ..self.clone() })
    }

    /// The bytes of the elements in the buffer.
    pub(crate) fn byte_range(&self) -> Range<u64> {
        self.offset..self.offset + self.size_bytes()
    }

    /// [`GpuTensor::byte_range`] rounded up to whole 4-byte words: what copies and word
    /// bindings cover (WebGPU addresses storage in 4-byte units).
    pub(crate) fn padded_range(&self) -> Range<u64> {
        self.offset..self.offset + self.size_bytes().next_multiple_of(4)
    }

    /// True when both lie in one buffer and share a 4-byte word: a kernel that writes one must
    /// not read the other there, since WebGPU stores whole words. Empty tensors share nothing.
    pub(crate) fn shares_words_with(&self, other: &GpuTensor) -> bool {
        let (a, b) = (self.padded_range(), other.padded_range());
        self.buffer() == other.buffer() && self.len > 0 && other.len > 0 && a.start < b.end && b.start < a.end
    }

    /// True when both are the same elements of the same buffer.
    pub(crate) fn same_view(&self, other: &GpuTensor) -> bool {
        self.buffer() == other.buffer()
            && self.offset == other.offset
            && self.len == other.len
            && self.dtype == other.dtype
    }
}

impl Context {
    /// Refuses a tensor that another context (another device) made.
    pub(crate) fn check_owner(&self, tensor: &GpuTensor) -> Result<()> {
        if tensor.owner == self.inner.id {
            Ok(())
        } else {
            Err(Error::ForeignTensor { shape: tensor.shape.clone(), dtype: tensor.dtype })
        }
    }

    /// A device tensor of `shape` and `dtype` with unspecified contents, e.g. the output of
    /// [`Context::encode_activations`].
    pub fn empty_tensor(&self, shape: &[usize], dtype: DType) -> Result<GpuTensor> {
        self.scoped("allocation", || self.new_tensor(shape, dtype, "wgpu-activations.tensor"))
    }

    pub(crate) fn new_tensor(&self, shape: &[usize], dtype: DType, label: &str) -> Result<GpuTensor> {
        let len = element_count(shape).filter(|n| n.checked_mul(dtype.size_bytes()).is_some()).ok_or_else(|| {
            Error::TooLarge {
                what: format!("tensor of shape {shape:?}"),
                needed: u64::MAX,
                limit: self.max_buffer_bytes(),
            }
        })?;
        let bytes = ((len * dtype.size_bytes()) as u64).next_multiple_of(4).max(4);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let buffer = self.take_buffer(bytes, usage, label)?;
        Ok(GpuTensor {
            memory: Arc::new(Memory::Pooled(buffer)),
            offset: 0,
            shape: shape.to_vec(),
            len,
            dtype,
            owner: self.inner.id,
        })
    }

    /// Wraps a buffer the application owns as a tensor, without copying: elements of `dtype` in
    /// standard order from byte `offset` on. The buffer needs `STORAGE` usage (and `COPY_SRC`
    /// to be downloaded), `offset` must be a multiple of the device's
    /// `min_storage_buffer_offset_alignment`, and the elements, rounded up to whole 4-byte
    /// words, must fit in the buffer: WebGPU addresses storage in words, so the unused half of
    /// the last word of an odd number of 16-bit elements is read and written back unchanged.
    /// A buffer of another device of the same `wgpu::Instance` is refused; one of another
    /// instance cannot be told apart by wgpu, whose lookup of it panics: wrap only buffers of
    /// this context's device.
    pub fn tensor_from_buffer(
        &self,
        buffer: wgpu::Buffer,
        offset: u64,
        shape: &[usize],
        dtype: DType,
    ) -> Result<GpuTensor> {
        self.check_ready()?;
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(Error::InvalidBuffer {
                reason: format!("the buffer's usage {:?} lacks STORAGE", buffer.usage()),
            });
        }
        let align = u64::from(self.inner.info.limits.min_storage_buffer_offset_alignment);
        if !offset.is_multiple_of(align) {
            return Err(Error::InvalidBuffer {
                reason: format!(
                    "offset {offset} is not a multiple of the device's min_storage_buffer_offset_alignment ({align})"
                ),
            });
        }
        let too_big = || Error::InvalidBuffer { reason: format!("shape {shape:?} of {dtype} overflows") };
        let len = element_count(shape).ok_or_else(too_big)?;
        let bytes = (len as u64).checked_mul(dtype.size_bytes() as u64).ok_or_else(too_big)?.next_multiple_of(4);
        if offset.checked_add(bytes).is_none_or(|end| end > buffer.size()) {
            return Err(Error::InvalidBuffer {
                reason: format!(
                    "shape {shape:?} of {dtype} needs {bytes} bytes from offset {offset}, past the end of the {}-byte buffer",
                    buffer.size()
                ),
            });
        }
        if offset + 4 <= buffer.size() {
            self.scoped("wrapping a buffer", || self.check_same_device(&buffer, offset))?;
        }
        Ok(GpuTensor {
            memory: Arc::new(Memory::Wrapped(buffer)),
            offset,
            shape: shape.to_vec(),
            len,
            dtype,
            owner: self.inner.id,
        })
    }

    /// Refuses a buffer of another device, which wgpu reports when it is bound.
    fn check_same_device(&self, buffer: &wgpu::Buffer, offset: u64) -> Result<()> {
        let device = &self.inner.device;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-activations.device-check"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let (_group, caught) = super::platform::caught_now(device, || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-activations.device-check"),
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: std::num::NonZeroU64::new(4),
                    }),
                }],
            })
        });
        match caught {
            None => Ok(()),
            Some(error) => self.lost_or(Err(Error::InvalidBuffer {
                reason: format!("the buffer cannot be used on this context's device: {error}"),
            })),
        }
    }

    /// Copies a host array (any layout) to a new device tensor: one copy, from the array's
    /// contiguous slice (a non-standard layout is made contiguous first).
    pub fn upload<T: Element, D: Dimension>(&self, x: ArrayView<'_, T, D>) -> Result<GpuTensor> {
        let standard = x.as_standard_layout();
        let values = standard.as_slice().unwrap_or_default();
        self.upload_slice(values, x.shape())
    }

    /// `values` (in standard order) as a new tensor of `shape`.
    pub(crate) fn upload_slice<T: Element>(&self, values: &[T], shape: &[usize]) -> Result<GpuTensor> {
        self.scoped("upload", || {
            let tensor = self.new_tensor(shape, T::DTYPE, "wgpu-activations.upload")?;
            if tensor.len != values.len() {
                return Err(Error::ShapeMismatch {
                    what: "upload".into(),
                    expected: shape.to_vec(),
                    actual: vec![values.len()],
                });
            }
            self.write_tensor(&tensor, bytemuck::cast_slice(values));
            Ok(tensor)
        })
    }

    /// Queues `bytes` into the tensor's buffer (rounded up to whole words: the queue writes in
    /// 4-byte units).
    pub(crate) fn write_tensor(&self, tensor: &GpuTensor, bytes: &[u8]) {
        let whole = bytes.len() / 4 * 4;
        if whole > 0 {
            self.inner.queue.write_buffer(tensor.buffer(), tensor.offset, &bytes[..whole]);
        }
        if whole < bytes.len() {
            let mut last = [0u8; 4];
            last[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
            self.inner.queue.write_buffer(tensor.buffer(), tensor.offset + whole as u64, &last);
        }
    }

    /// Reads a device tensor back into a host array, blocking until the GPU is done (not in
    /// the browser, see [`crate::Blocking`]: use [`Context::download_async`]).
    pub fn download<T: super::platform::Blocking>(&self, tensor: &GpuTensor) -> Result<ArrayD<T>> {
        #[cfg(not(target_arch = "wasm32"))]
        let wait = Wait::Block;
        #[cfg(target_arch = "wasm32")]
        let wait = Wait::Async;
        T::block_on(self.read_tensor(tensor, wait))
    }

    /// Reads a device tensor back into a host array without blocking the calling thread; the
    /// context's poller completes it. Dropping the future at any point is safe.
    pub async fn download_async<T: Element>(&self, tensor: &GpuTensor) -> Result<ArrayD<T>> {
        self.read_tensor(tensor, Wait::Async).await
    }

    pub(crate) async fn read_tensor<T: Element>(&self, tensor: &GpuTensor, wait: Wait) -> Result<ArrayD<T>> {
        self.check_owner(tensor)?;
        if tensor.dtype != T::DTYPE {
            return Err(Error::DTypeMismatch { expected: T::DTYPE, actual: tensor.dtype });
        }
        let mut values: Vec<T> = Vec::new();
        if !tensor.is_empty() {
            let mut readback = self
                .scoped_async("readback", || {
                    let mut encoder = self.encoder("wgpu-activations.readback");
                    let mut readback = self.encode_readback(&mut encoder, tensor)?;
                    self.inner.queue.submit([encoder.finish()]);
                    readback.start();
                    Ok(readback)
                })
                .await?;
            // The result's memory is faulted in while the GPU copies.
            values.resize(tensor.len, T::zeroed());
            self.finish_read(&mut readback, wait, &mut values).await?;
        }
        self.check_ready()?;
        ArrayD::from_shape_vec(IxDyn(&tensor.shape), values)
            .map_err(|e| Error::Internal { what: format!("a downloaded tensor in its shape: {e}") })
    }

    /// Records a copy of `tensor` into a new staging buffer.
    pub(crate) fn encode_readback(&self, encoder: &mut wgpu::CommandEncoder, tensor: &GpuTensor) -> Result<Readback> {
        if !tensor.buffer().usage().contains(wgpu::BufferUsages::COPY_SRC) {
            return Err(Error::InvalidBuffer {
                reason: "the tensor's buffer lacks COPY_SRC usage, needed to read it back".into(),
            });
        }
        let padded = tensor.size_bytes().next_multiple_of(4);
        let staging = self.take_buffer(
            padded,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            "wgpu-activations.readback",
        )?;
        encoder.copy_buffer_to_buffer(tensor.buffer(), tensor.offset, staging.buffer(), 0, padded);
        Ok(Readback::new(&self.inner.device, staging, tensor.size_bytes()))
    }

    /// Waits for a started readback and copies its elements into `out` (exactly as many).
    pub(crate) async fn finish_read<T: Element>(
        &self,
        readback: &mut Readback,
        wait: Wait,
        out: &mut [T],
    ) -> Result<()> {
        let budget = self.wait_budget();
        let result = readback.read_into(&self.inner.poller, &self.inner.driver_lock, wait, budget.timeout, out).await;
        if result.is_ok() {
            self.inner.pipelines.first_runs.settle(budget);
        }
        self.lost_or(result)
    }

    pub(crate) fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.inner.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }
}

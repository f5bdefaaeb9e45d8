//! Tensors that live on the device, and the moves between host and device.

use ndarray::{ArrayD, ArrayView, Dimension, IxDyn};

use crate::context::Context;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::pool::PooledBuffer;

/// A dense tensor in a device buffer: elements in standard (row-major) order, little-endian,
/// padded to whole 4-byte words. Results of device ops stay here until read back, so chains of
/// operations need no round trip through the host.
pub struct GpuTensor {
    pub(crate) buffer: PooledBuffer,
    /// Identity of the context (and so the device) that owns the buffer.
    owner: usize,
    shape: Vec<usize>,
    dtype: DType,
}

impl std::fmt::Debug for GpuTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTensor").field("shape", &self.shape).field("dtype", &self.dtype).finish()
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
        self.shape.iter().product()
    }

    /// True when some dimension is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the elements (without the padding to whole words).
    pub fn size_bytes(&self) -> u64 {
        (self.len() * self.dtype.size_bytes()) as u64
    }

    /// The device buffer (it may be longer than [`GpuTensor::size_bytes`]).
    pub fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.buffer()
    }
}

/// Bytes a tensor occupies on the device: padded to whole 4-byte words.
pub(crate) fn padded_bytes(len: usize, dtype: DType) -> u64 {
    ((len * dtype.size_bytes()) as u64).next_multiple_of(4).max(4)
}

impl Context {
    pub(crate) fn check_buffer_size(&self, what: &str, bytes: u64) -> Result<()> {
        let limit = self.max_buffer_bytes();
        if bytes > limit {
            return Err(Error::TooLarge { what: format!("{what} buffer (bytes)"), needed: bytes, limit });
        }
        Ok(())
    }

    /// A device tensor of `shape` and `dtype` with unspecified contents.
    pub(crate) fn empty_tensor(&self, shape: &[usize], dtype: DType, label: &str) -> Result<GpuTensor> {
        let len: usize = shape.iter().product();
        let bytes = padded_bytes(len, dtype);
        self.check_buffer_size(label, bytes)?;
        let buffer = self.inner.pool.take(
            &self.inner.device,
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            label,
            self.max_buffer_bytes(),
        )?;
        Ok(GpuTensor { buffer, owner: self.id(), shape: shape.to_vec(), dtype })
    }

    /// Identity of this context's shared state, recorded in the tensors it makes.
    fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.inner) as usize
    }

    /// Refuses a tensor that another context (another device) made.
    pub(crate) fn check_owner(&self, tensor: &GpuTensor) -> Result<()> {
        if tensor.owner == self.id() {
            Ok(())
        } else {
            Err(Error::ForeignTensor { shape: tensor.shape.clone(), dtype: tensor.dtype })
        }
    }

    /// Copies a host array (any layout) to a new device tensor.
    pub fn upload<T: Element, D: Dimension>(&self, x: ArrayView<'_, T, D>) -> Result<GpuTensor> {
        let tensor = self.empty_tensor(x.shape(), T::DTYPE, "wgpu-activations.upload")?;
        if x.is_empty() {
            return Ok(tensor);
        }
        let standard = x.as_standard_layout();
        let values = standard.as_slice().ok_or(Error::Gpu {
            during: "upload",
            message: "standard-layout array is not contiguous".into(),
        })?;
        let bytes: &[u8] = bytemuck::cast_slice(values);
        if bytes.len().is_multiple_of(4) {
            self.inner.queue.write_buffer(tensor.buffer(), 0, bytes);
        } else {
            let mut padded = bytes.to_vec();
            padded.resize(bytes.len().next_multiple_of(4), 0);
            self.inner.queue.write_buffer(tensor.buffer(), 0, &padded);
        }
        Ok(tensor)
    }

    /// Reads a device tensor back into a host array, blocking until the GPU is done.
    pub fn download<T: Element>(&self, tensor: &GpuTensor) -> Result<ArrayD<T>> {
        pollster::block_on(self.read_tensor(tensor, Wait::Block))
    }

    /// Reads a device tensor back into a host array without blocking the calling thread.
    pub async fn download_async<T: Element>(&self, tensor: &GpuTensor) -> Result<ArrayD<T>> {
        self.read_tensor(tensor, Wait::Async).await
    }

    pub(crate) async fn read_tensor<T: Element>(&self, tensor: &GpuTensor, wait: Wait) -> Result<ArrayD<T>> {
        self.check_owner(tensor)?;
        if tensor.dtype != T::DTYPE {
            return Err(Error::DTypeMismatch { expected: T::DTYPE, actual: tensor.dtype });
        }
        let values: Vec<T> = if tensor.is_empty() {
            Vec::new()
        } else {
            let bytes = self.read_bytes(tensor.buffer(), tensor.size_bytes(), wait).await?;
            bytemuck::pod_collect_to_vec(&bytes[..tensor.size_bytes() as usize])
        };
        ArrayD::from_shape_vec(IxDyn(&tensor.shape), values)
            .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })
    }

    /// Copies the first `bytes` of `source` to the host (submitting all work queued so far).
    async fn read_bytes(&self, source: &wgpu::Buffer, bytes: u64, wait: Wait) -> Result<Vec<u8>> {
        let device = &self.inner.device;
        let padded = bytes.next_multiple_of(4);
        self.check_buffer_size("readback", padded)?;
        let staging = self.inner.pool.take(
            device,
            padded,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            "wgpu-activations.readback",
            self.max_buffer_bytes(),
        )?;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-activations.readback"),
        });
        encoder.copy_buffer_to_buffer(source, 0, staging.buffer(), 0, padded);
        self.inner.queue.submit([encoder.finish()]);

        let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
        staging.buffer().slice(..padded).map_async(wgpu::MapMode::Read, move |result| {
            let _ = sender.send(result);
        });
        // Unmaps when this future completes or is dropped mid-wait (a cancelled async call),
        // so the staging buffer never returns to the pool mapped or with a map pending.
        let _unmap = UnmapOnDrop(staging.buffer());
        match wait {
            Wait::Block => {
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })?;
            }
            Wait::Async => {
                // Native wgpu only completes maps while someone polls the device; do the
                // blocking wait on a helper thread so the caller's executor stays free.
                let device = device.clone();
                std::thread::spawn(move || device.poll(wgpu::PollType::wait_indefinitely()));
            }
        }
        let mapped = receiver.receive().await.ok_or(Error::Gpu {
            during: "readback",
            message: "the map callback was dropped (device lost?)".into(),
        })?;
        mapped.map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })?;
        let data = {
            let view = staging
                .buffer()
                .slice(..padded)
                .get_mapped_range()
                .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })?;
            view.to_vec()
        };
        Ok(data)
    }
}

struct UnmapOnDrop<'a>(&'a wgpu::Buffer);

impl Drop for UnmapOnDrop<'_> {
    fn drop(&mut self) {
        self.0.unmap();
    }
}

/// How a readback waits for the GPU.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wait {
    /// Poll the device on the calling thread.
    Block,
    /// Poll on a helper thread; the future completes when the map does.
    Async,
}

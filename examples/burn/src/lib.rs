//! wgpu-activations inside burn: our kernels on burn's wgpu device, reading and writing the
//! buffers behind burn's own tensors where they lie.
//!
//! burn 0.22 (through cubecl 0.11) runs on wgpu 30, the same major version as this library, and
//! has public API for both halves of an embedding: it starts on an application's own device and
//! queue ([`Device::wgpu_options`]`().setup(..)`), and the buffer behind a tensor can be reached
//! with its offset and size (the compute client's `get_resource`). [`Shared`] holds both on one
//! device; [`BurnView`] is one of our [`GpuTensor`]s over one of burn's tensors.
//!
//! Ordering: burn batches its kernels and submits them later. [`BurnView::of`] submits burn's
//! pending work before handing out the buffer, so work we record after it reads what burn wrote;
//! burn's later work is submitted after ours on the same queue, so it reads what we wrote.

pub mod network;
pub mod side_by_side;

use burn_tensor::{Device, Tensor, TensorData};
use burn_wgpu::{AutoCompiler, CubeBackend, WgpuResource, WgpuSetup};
use cubecl::server::ServerError;
use cubecl::wgpu::WgpuServer;
use wgpu_activations::{Context, ContextOptions, DType, GpuTensor};

/// Everything that can go wrong between burn and us, as one error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// Our library refused a call.
    #[error(transparent)]
    Activations(#[from] wgpu_activations::Error),
    /// wgpu found no adapter or device.
    #[error("wgpu: {0}")]
    Wgpu(String),
    /// burn's runtime refused a call.
    #[error("burn: {0}")]
    Burn(String),
    /// A tensor burn holds in a form our kernels cannot read in place.
    #[error("burn tensor: {0}")]
    Layout(String),
}

impl From<ServerError> for BridgeError {
    fn from(error: ServerError) -> Self {
        Self::Burn(format!("{error:?}"))
    }
}

/// Result of the bridge's calls.
pub type BridgeResult<T> = Result<T, BridgeError>;

/// One wgpu device that burn and our [`Context`] both run on.
pub struct Shared {
    /// burn's handle of the device.
    pub burn: Device,
    /// Our context, adopted onto the same device and queue.
    pub ctx: Context,
    /// The device itself, as the application made it.
    pub device: wgpu::Device,
}

impl Shared {
    /// Makes the application's device (every feature and limit the adapter offers, as burn's
    /// own set-up does), registers it with burn, and adopts it into our context.
    pub fn new() -> BridgeResult<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .map_err(|e| BridgeError::Wgpu(e.to_string()))?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("app.device"),
            required_features: adapter.features(),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| BridgeError::Wgpu(e.to_string()))?;
        let backend = adapter.get_info().backend;
        let setup =
            WgpuSetup { instance, adapter: adapter.clone(), device: device.clone(), queue: queue.clone(), backend };
        let burn = Device::wgpu_options().setup(setup).init().map_err(|e| BridgeError::Burn(e.to_string()))?;
        let ctx = Context::from_device(device.clone(), queue, &adapter, ContextOptions::from_env());
        Ok(Self { burn, ctx, device })
    }

    /// burn's f32 tensor of `shape` holding `values`.
    pub fn burn_tensor<const D: usize>(&self, values: Vec<f32>, shape: [usize; D]) -> Tensor<D> {
        Tensor::from_data(TensorData::new(values, shape), &self.burn)
    }
}

/// One of our tensors over the buffer of one of burn's tensors: the same `wgpu::Buffer` at
/// the offset burn's allocator gave it, no copy. While the view lives, burn's allocator keeps
/// that memory in place and hands it to no one else.
pub struct BurnView {
    /// Ours, over burn's bytes.
    pub tensor: GpuTensor,
    /// The buffer and range burn reported.
    pub resource: WgpuResource,
    _pinned: cubecl_runtime::storage::ManagedResource<WgpuResource>,
}

impl BurnView {
    /// A view of `tensor` (it must be contiguous, on the wgpu backend without fusion), after
    /// submitting burn's pending work on the shared queue.
    pub fn of<const D: usize>(shared: &Shared, tensor: &Tensor<D>) -> BridgeResult<Self> {
        let primitive = tensor
            .clone()
            .try_into_primitive::<CubeBackend>()
            .map_err(|e| BridgeError::Layout(format!("not a CubeCL tensor: {e:?}")))?;
        if !primitive.is_contiguous() {
            return Err(BridgeError::Layout(format!("strided, not contiguous: shape {:?}", tensor.dims())));
        }
        let dtype = match primitive.dtype {
            burn_tensor::DType::F32 => DType::F32,
            burn_tensor::DType::F16 => DType::F16,
            burn_tensor::DType::BF16 => DType::BF16,
            other => return Err(BridgeError::Layout(format!("dtype {other:?} is not one of ours"))),
        };
        primitive.client.flush()?;
        let pinned = primitive.client.get_resource::<WgpuServer<AutoCompiler>>(primitive.handle.clone())?;
        let resource = pinned.resource().clone();
        let view = shared.ctx.tensor_from_buffer(resource.buffer.clone(), resource.offset, &tensor.dims(), dtype)?;
        Ok(Self { tensor: view, resource, _pinned: pinned })
    }

    /// Waits until the device has finished everything submitted so far, ours and burn's.
    pub fn wait(shared: &Shared) -> BridgeResult<()> {
        shared.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| BridgeError::Wgpu(e.to_string()))?;
        Ok(())
    }
}

//! The engine: everything that touches wgpu. The context (device, queue, capabilities), the
//! buffer pool, the kernel cache, recording and submitting work, reading results back, and
//! validation mode. The public operator API (`crate::api`) is written on top of it.

mod activation;
mod axis;
mod context;
mod dispatch;
mod driver_lock;
mod host;
mod info;
mod loss;
mod options;
mod pipelines;
mod platform;
mod poller;
mod pool;
mod probe;
mod readback;
mod tensor;
mod validate;

pub use activation::Activation;
pub use context::{Context, enumerate_adapters};
pub use info::{ContextInfo, DTypePath, limits_report, native_dtypes};
pub use options::{
    AXIS_FORMS_ENV, ContextOptions, DUMP_WGSL_ENV, FMA_ENV, LIMITS_ENV, SUBNORMALS_ENV, SubnormalProducts, VALIDATE_ENV,
};
pub use pipelines::PipelineCacheStats;
pub use platform::Blocking;
pub use pool::PoolStats;
pub use probe::Subnormals;
pub use tensor::GpuTensor;

#[cfg(feature = "bench")]
pub(crate) use dispatch::{Job, JobStep, KeepAlive, STRAIGHT_LINE_MIN_WORKGROUPS, SlopeWindow};
pub(crate) use host::{HostData, HostSlope, HostStep, check_chain, check_dtype, host_steps};
#[cfg(feature = "bench")]
pub(crate) use pipelines::PlainKernel;
pub(crate) use readback::Wait;

//! Measures what the device's f32 unit does with subnormals, with a one-invocation kernel
//! (`shaders/driver/probe_subnormals.wgsl`) run when the context is made. WGSL lets a device
//! flush subnormal operands (DAZ) and results (FTZ) to zero; SwiftShader does, as do many GPUs.
//! Where the device flushes, kernels compute products on integers where a subnormal is
//! involved (`shaders/compute/f32_products_exact.wgsl`), so results stay exact.

use std::fmt;

use ndarray::arr1;

use super::context::Context;
use super::pipelines::PlainKernel;
use crate::error::{Error, Result};

/// What the device's f32 unit does with subnormals, measured by a probe kernel when the
/// context was made ([`crate::ContextInfo::subnormals`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subnormals {
    /// Kept, operands and results, as IEEE 754 asks.
    Kept,
    /// Flushed to zero as operands (DAZ), as results (FTZ), or both.
    Flushed {
        /// A subnormal operand counts as zero.
        operands: bool,
        /// A subnormal result becomes zero.
        results: bool,
    },
    /// Not measured: a device adopted in the browser, where [`crate::Context::from_device`]
    /// cannot wait for the probe, or a probe that failed. Kernels then assume flushing (exact
    /// either way).
    NotMeasured,
}

impl Subnormals {
    /// True unless measured as kept.
    pub fn may_flush(self) -> bool {
        self != Subnormals::Kept
    }
}

impl fmt::Display for Subnormals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subnormals::Kept => f.write_str("kept (IEEE)"),
            Subnormals::Flushed { operands, results } => {
                let which: Vec<&str> = [(*operands, "operands (DAZ)"), (*results, "results (FTZ)")]
                    .iter()
                    .filter(|(flushed, _)| *flushed)
                    .map(|(_, what)| *what)
                    .collect();
                write!(f, "flushed: {}", which.join(", "))
            }
            Subnormals::NotMeasured => f.write_str("not measured"),
        }
    }
}

const PROBE: &str = include_str!("../../shaders/driver/probe_subnormals.wgsl");
/// -2^-149, 2^-126, 2^30, 0.5; see the shader.
const INPUT: [u32; 4] = [0x8000_0001, 0x0080_0000, 0x4e80_0000, 0x3f00_0000];
/// -2^-119 and 2^-127: what an IEEE device writes to the first two words.
const KEPT: [u32; 2] = [0x8400_0000, 0x0040_0000];

impl Context {
    /// Runs the probe on this context's device; the answer from its words.
    pub(crate) async fn probe_subnormals(&self) -> Result<Subnormals> {
        let words = self.upload(arr1(&INPUT).view())?;
        self.scoped("the subnormal probe", || {
            let device = self.device();
            let kernel = PlainKernel::new(device, "wgpu-activations.probe_subnormals", PROBE);
            let group = kernel.bind(
                device,
                &[wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: words.buffer(),
                    offset: words.offset(),
                    size: wgpu::BufferSize::new(16),
                })],
            );
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-activations.probe_subnormals"),
            });
            kernel.encode(&mut encoder, &group, (1, 1), None);
            self.queue().submit([encoder.finish()]);
            Ok(())
        })?;
        let out = self.download_async::<u32>(&words).await?;
        let read = |i: usize| {
            out.get(i).copied().ok_or(Error::Internal { what: "the subnormal probe read back too few words".into() })
        };
        let (operands, results) = (read(0)? != KEPT[0], read(1)? != KEPT[1]);
        Ok(if operands || results { Subnormals::Flushed { operands, results } } else { Subnormals::Kept })
    }
}

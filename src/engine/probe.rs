//! Measures what the device's f32 unit (and f64 unit, where it has one) does with subnormals,
//! with a one-invocation kernel (`shaders/driver/probe_subnormals.wgsl`,
//! `probe_subnormals_f64.wgsl`) run when the context is made. WGSL lets a device
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

const PROBE_F64: &str = include_str!("../../shaders/driver/probe_subnormals_f64.wgsl");
/// -2^-1074, 2^-1022, 2^60, 0.5 as (low, high) u32 words; see the shader.
const INPUT_F64: [u32; 8] = [1, 0x8000_0000, 0, 0x0010_0000, 0, 0x43b0_0000, 0, 0x3fe0_0000];
/// -2^-1014 and 2^-1023: what an IEEE device writes to the first two values.
const KEPT_F64: [u32; 4] = [0, 0x8090_0000, 0, 0x0008_0000];

const PROBE_F16: &str = include_str!("../../shaders/driver/probe_subnormals_f16.wgsl");
/// The f16 -2^-24 in the low half, the f32 2^-20; see the shader.
const INPUT_F16: [u32; 4] = [0x0000_8001, 0x3580_0000, 0, 0];
/// -2^-24 as an f32, the f16 2^-20, and the compare's 1 (words 1 to 3): what a device that
/// keeps f16 subnormals writes.
const KEPT_F16: [u32; 3] = [0xb380_0000, 0x0000_0010, 1];

const PROBE_FMA: &str = include_str!("../../shaders/driver/probe_fma.wgsl");
/// 1 + 2^-12 twice, then 1 + 2^-23 and 1 - 2^-24; see the shader.
const INPUT_FMA: [u32; 4] = [0x3f80_0800, 0x3f80_0800, 0x3f80_0001, 0x3f7f_ffff];
/// 2^-24 and 2^-24 - 2^-47: the products' errors, what an fma that rounds once gives.
const FUSED: [u32; 2] = [0x3380_0000, 0x337f_fffe];

impl Context {
    /// Runs the f32 probe on this context's device; the answer from its words.
    pub(crate) async fn probe_subnormals(&self) -> Result<Subnormals> {
        self.run_probe("wgpu-activations.probe_subnormals", PROBE, &INPUT, &KEPT).await
    }

    /// Runs the f64 probe, where the device has SHADER_F64 (else not measured).
    pub(crate) async fn probe_subnormals_f64(&self) -> Result<Subnormals> {
        if !self.info().features.contains(wgpu::Features::SHADER_F64) {
            return Ok(Subnormals::NotMeasured);
        }
        self.run_probe("wgpu-activations.probe_subnormals_f64", PROBE_F64, &INPUT_F64, &KEPT_F64).await
    }

    /// Runs the f16 probe, where the device has SHADER_F16 (else not measured).
    pub(crate) async fn probe_subnormals_f16(&self) -> Result<Subnormals> {
        if !self.info().features.contains(wgpu::Features::SHADER_F16) {
            return Ok(Subnormals::NotMeasured);
        }
        let out = self.probe_words("wgpu-activations.probe_subnormals_f16", PROBE_F16, &INPUT_F16).await?;
        let [operand, result, compare] = [0, 1, 2].map(|i| out.get(i + 1) == Some(&KEPT_F16[i]));
        let (operands, results) = (!(operand && compare), !result);
        Ok(if operands || results { Subnormals::Flushed { operands, results } } else { Subnormals::Kept })
    }

    /// Whether the device's `fma` rounds once: then the kernels take a product's error as
    /// `fma(a, b, -p)`, 2 steps where Dekker's takes 17 (`shaders/compute/f32_product_error_fused.wgsl`).
    pub(crate) async fn probe_fused_multiply_add(&self) -> Result<bool> {
        let out = self.probe_words("wgpu-activations.probe_fma", PROBE_FMA, &INPUT_FMA).await?;
        Ok(out.get(..2) == Some(&FUSED[..]))
    }

    /// One invocation of `shader` over `input`; `kept` is what an IEEE device leaves in the
    /// first two values (as many words each as `kept` has over two).
    async fn run_probe(&self, label: &str, shader: &str, input: &[u32], kept: &[u32]) -> Result<Subnormals> {
        let out = self.probe_words(label, shader, input).await?;
        let value = kept.len() / 2;
        let read = |i: usize| {
            out.get(i * value..(i + 1) * value)
                .ok_or(Error::Internal { what: "the subnormal probe read back too few words".into() })
        };
        let (operands, results) = (read(0)? != &kept[..value], read(1)? != &kept[value..]);
        Ok(if operands || results { Subnormals::Flushed { operands, results } } else { Subnormals::Kept })
    }

    /// The words one invocation of `shader` leaves in its one binding, which starts as `input`.
    async fn probe_words(&self, label: &str, shader: &str, input: &[u32]) -> Result<Vec<u32>> {
        let words = self.upload(arr1(input).view())?;
        self.scoped("a probe", || {
            let device = self.device();
            let kernel = PlainKernel::new(device, label, shader);
            let group = kernel.bind(
                device,
                &[wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: words.buffer(),
                    offset: words.offset(),
                    size: wgpu::BufferSize::new(4 * input.len() as u64),
                })],
            );
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
            kernel.encode(&mut encoder, &group, (1, 1), None);
            self.queue().submit([encoder.finish()]);
            Ok(())
        })?;
        Ok(self.download_async::<u32>(&words).await?.into_raw_vec_and_offset().0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_words(words: &[u32]) -> Vec<f64> {
        words.chunks_exact(2).map(|w| f64::from_bits(crate::dtype::u64_of_words([w[0], w[1]]))).collect()
    }

    /// Both probes validate with naga, the f64 one with exactly the FLOAT64 capability.
    #[test]
    fn the_probes_validate_with_naga() {
        for (shader, caps) in [
            (PROBE, naga::valid::Capabilities::empty()),
            (PROBE_FMA, naga::valid::Capabilities::empty()),
            (PROBE_F16, naga::valid::Capabilities::SHADER_FLOAT16),
            (PROBE_F64, naga::valid::Capabilities::FLOAT64),
        ] {
            let module =
                naga::front::wgsl::parse_str(shader).unwrap_or_else(|e| panic!("{}", e.emit_to_string(shader)));
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
                .validate(&module)
                .unwrap_or_else(|e| panic!("{}", e.emit_to_string(shader)));
        }
    }

    /// The probes' inputs and what an IEEE unit makes of them, computed here, and what a
    /// flushing unit would write instead: different words.
    #[test]
    fn the_probes_expect_what_ieee_products_give() {
        let [a, b, c, d] = INPUT.map(f32::from_bits);
        assert!(a.is_subnormal() && b == f32::MIN_POSITIVE && (b * d).is_subnormal());
        assert_eq!([(a * c).to_bits(), (b * d).to_bits()], KEPT);
        assert_ne!([(-0.0f32 * c).to_bits(), 0.0f32.to_bits()], KEPT);
        let v = f64_words(&INPUT_F64);
        assert!(v[0].is_subnormal() && v[0] < 0.0 && v[1] == f64::MIN_POSITIVE && (v[1] * v[3]).is_subnormal());
        assert_eq!(f64_words(&KEPT_F64), [v[0] * v[2], v[1] * v[3]]);
        assert!((v[0] * v[2]).is_normal(), "a normal product of a subnormal operand");
        // f16 subnormals are below 2^-14 in magnitude, with a zero exponent field.
        let subnormal = |h: half::f16| h.to_bits() & 0x7c00 == 0 && h.to_bits() & 0x3ff != 0;
        let operand = half::f16::from_bits(INPUT_F16[0] as u16);
        assert!(subnormal(operand) && operand < half::f16::ZERO);
        assert_eq!(operand.to_f32().to_bits(), KEPT_F16[0]);
        let result = half::f16::from_f32(f32::from_bits(INPUT_F16[1]));
        assert!(subnormal(result) && u32::from(result.to_bits()) == KEPT_F16[1]);
        let fma = INPUT_FMA.map(f32::from_bits);
        let errors = [(fma[0], fma[1]), (fma[2], fma[3])].map(|(a, b)| a.mul_add(b, -(a * b)).to_bits());
        assert_eq!(errors, FUSED, "an fma that rounds once");
        let twice = [(fma[0], fma[1]), (fma[2], fma[3])].map(|(a, b)| ((a * b) - (a * b)).to_bits());
        assert_ne!(twice[..], FUSED[..], "an fma that rounds the product first");
    }
}

//! Host-array calls and the submissions of device-tensor calls: what the public API
//! (`src/api.rs`) hands to the GPU. A host array goes up in pieces that fit one buffer, its
//! chain runs in place on the device, and each piece comes back straight into the result.

use ndarray::ArrayViewD;

use super::activation::Activation;
use super::context::Context;
use super::dispatch::{Job, JobStep, KeepAlive, SlopeWindow, job_steps};
use super::readback::Wait;
use super::tensor::GpuTensor;
use super::validate::{CheckHandle, Report};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::MAX_CHAIN;
use crate::ops::Step;

/// A PRelu slope of a host call: already on the device, or a host array to upload.
#[derive(Debug)]
pub(crate) enum HostSlope<'a, T> {
    Device(&'a GpuTensor),
    Host(ArrayViewD<'a, T>),
}

/// A step of a host call.
pub(crate) type HostStep<'a, T> = Step<HostSlope<'a, T>>;

/// The steps of a chain of activations for a host call.
pub(crate) fn host_steps<T>(chain: &[Activation]) -> Vec<HostStep<'_, T>> {
    chain.iter().map(|a| a.step().as_ref().map_slope(HostSlope::Device)).collect()
}

/// Refuses an empty chain or one longer than one kernel runs.
pub(crate) fn check_chain(chain: &[Activation]) -> Result<()> {
    if chain.is_empty() || chain.len() > MAX_CHAIN {
        return Err(Error::ChainLength { steps: chain.len(), max: MAX_CHAIN });
    }
    Ok(())
}

/// Refuses a dtype some step does not take ([`Activation::check_dtype`]), before anything
/// reaches the GPU.
pub(crate) fn check_dtype(chain: &[Activation], dtype: DType) -> Result<()> {
    chain.iter().try_for_each(|step| step.check_dtype(dtype))
}

impl Context {
    /// Records a chain of activations from `x` into `y` (which may be `x` itself: in place)
    /// into the caller's `encoder`, submitting nothing. The caller's passes before and after
    /// run in order; per-call resources stay alive until the caller's submission completes.
    pub fn encode_activations(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        chain: &[Activation],
        x: &GpuTensor,
        y: &GpuTensor,
    ) -> Result<()> {
        check_chain(chain)?;
        check_dtype(chain, x.dtype())?;
        let steps = job_steps(chain);
        let job = Job { x, y, steps: &steps, shape: x.shape(), element_base: 0 };
        self.scoped("encoding", || {
            let (keep, _) = self.record_validated(encoder, &job, Report::Queue)?;
            encoder.on_submitted_work_done(move || drop(keep));
            Ok(())
        })
    }

    pub(crate) fn submit_chain(&self, chain: &[Activation], x: &GpuTensor, y: &GpuTensor) -> Result<()> {
        let steps = job_steps(chain);
        let job = Job { x, y, steps: &steps, shape: x.shape(), element_base: 0 };
        self.scoped("activation", || {
            let mut encoder = self.encoder("wgpu-activations.chain");
            let (keep, _) = self.record_validated(&mut encoder, &job, Report::Queue)?;
            self.inner.queue.submit([encoder.finish()]);
            // Pooled buffers may go back now: later work on the queue runs after this.
            drop(keep);
            Ok(())
        })
    }

    /// Records `job` into `encoder` between its validation's copies (where validation is on):
    /// what must stay alive until the work is done, and the check's handle where `report` asks
    /// for one.
    fn record_validated(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        job: &Job<'_>,
        report: Report,
    ) -> Result<(KeepAlive, Option<CheckHandle>)> {
        let pending = self.begin_validation(encoder, job)?;
        let mut keep = KeepAlive::default();
        self.encode_job(encoder, job, &mut keep, None)?;
        let check = self.finish_validation(encoder, pending, job.y, report)?;
        Ok((keep, check))
    }

    /// Runs `chain` over a host array's elements in standard order: one upload, the kernels in
    /// place, one readback straight into `data`'s output, in one submission per piece (arrays
    /// larger than one buffer run in pieces).
    pub(crate) async fn run_host<T: Element>(
        &self,
        mut data: HostData<'_, T>,
        shape: &[usize],
        chain: &[HostStep<'_, T>],
        wait: Wait,
    ) -> Result<()> {
        let len = data.len();
        let elem = T::DTYPE.size_bytes() as u64;
        // Pieces start at multiples of the binding alignment, so slope windows stay aligned.
        let align = self.offset_alignment();
        let per_piece = ((self.max_buffer_bytes() / align * align) / elem).max(1) as usize;
        let pieces: Vec<std::ops::Range<usize>> =
            (0..len.div_ceil(per_piece)).map(|i| i * per_piece..((i + 1) * per_piece).min(len)).collect();
        // Host slopes that fit one buffer go up once; the others in parts, per piece.
        let whole_slopes: Vec<Option<GpuTensor>> = chain
            .iter()
            .map(|step| match step {
                Step::Prelu(HostSlope::Host(slope)) | Step::Swiglu(HostSlope::Host(slope), _)
                    if pieces.len() == 1 || slope_fits(self, slope) =>
                {
                    self.upload(slope.view()).map(Some)
                }
                _ => Ok(None),
            })
            .collect::<Result<_>>()?;
        for piece in pieces {
            let (mut readback, check) = self
                .scoped_async("activation", || {
                    let tensor = self.new_tensor(&[piece.len()], T::DTYPE, "wgpu-activations.upload")?;
                    self.write_tensor(&tensor, bytemuck::cast_slice(data.input(piece.clone())));
                    let parts: Vec<Option<(u64, GpuTensor)>> = chain
                        .iter()
                        .zip(&whole_slopes)
                        .map(|(step, whole)| match (step, whole) {
                            (Step::Prelu(HostSlope::Host(slope)) | Step::Swiglu(HostSlope::Host(slope), _), None) => {
                                self.slope_part(slope, shape, &piece).map(Some)
                            }
                            _ => Ok(None),
                        })
                        .collect::<Result<_>>()?;
                    let steps: Vec<JobStep<'_>> = chain
                        .iter()
                        .zip(whole_slopes.iter().zip(&parts))
                        .map(|(step, (whole, part))| {
                            step.as_ref().try_map_slope(|slope| match (slope, whole, part) {
                                (HostSlope::Device(tensor), ..) => Ok(SlopeWindow::whole(tensor)),
                                (HostSlope::Host(view), Some(tensor), _) => {
                                    Ok(SlopeWindow { tensor, shape: view.shape(), first: 0 })
                                }
                                (HostSlope::Host(view), None, Some((first, tensor))) => {
                                    Ok(SlopeWindow { tensor, shape: view.shape(), first: *first })
                                }
                                (HostSlope::Host(_), None, None) => {
                                    Err(Error::Internal { what: "a host slope neither whole nor in parts".into() })
                                }
                            })
                        })
                        .collect::<Result<_>>()?;
                    let job = Job { x: &tensor, y: &tensor, steps: &steps, shape, element_base: piece.start as u64 };
                    let mut encoder = self.encoder("wgpu-activations.host");
                    let (_keep, check) = self.record_validated(&mut encoder, &job, Report::Handle)?;
                    let mut readback = self.encode_readback(&mut encoder, &tensor)?;
                    self.inner.queue.submit([encoder.finish()]);
                    readback.start();
                    Ok((readback, check))
                })
                .await?;
            self.finish_read(&mut readback, wait, data.output(piece)).await?;
            if let Some(check) = check {
                self.lost_or(check.outcome(self.wait_budget().timeout).await)?;
            }
        }
        self.check_ready()
    }

    /// The part of a host slope that X's elements `piece` read (a monotonic pattern reads one
    /// window), uploaded, with the flat index of its first element.
    fn slope_part<T: Element>(
        &self,
        slope: &ArrayViewD<'_, T>,
        x_shape: &[usize],
        piece: &std::ops::Range<usize>,
    ) -> Result<(u64, GpuTensor)> {
        let aligned = crate::broadcast::unidirectional_slope_shape(x_shape, slope.shape())?;
        let plan = crate::broadcast::plan(x_shape, &aligned)?;
        let standard = slope.as_standard_layout();
        let flat = standard.as_slice().unwrap_or_default();
        let window = plan.slope_window(&(piece.start as u64..piece.end as u64)).unwrap_or(0..flat.len() as u64);
        // Start the part at an aligned element so windows inside it align as in the whole slope.
        let align = (self.offset_alignment() / T::DTYPE.size_bytes() as u64).max(1);
        let first = window.start / align * align;
        let values = &flat[first as usize..window.end as usize];
        Ok((first, self.upload_slice(values, &[values.len()])?))
    }
}

fn slope_fits<T: Element>(ctx: &Context, slope: &ArrayViewD<'_, T>) -> bool {
    (slope.len() * T::DTYPE.size_bytes()) as u64 <= ctx.max_buffer_bytes()
}

/// Where a host call reads X and writes Y.
pub(crate) enum HostData<'a, T> {
    /// A new result: `output` is sized (and its memory faulted in) while the GPU works.
    Separate { input: &'a [T], output: &'a mut Vec<T> },
    /// X overwritten with Y.
    InPlace(&'a mut [T]),
}

impl<T: Element> HostData<'_, T> {
    fn len(&self) -> usize {
        match self {
            HostData::Separate { input, .. } => input.len(),
            HostData::InPlace(values) => values.len(),
        }
    }

    fn input(&self, piece: std::ops::Range<usize>) -> &[T] {
        match self {
            HostData::Separate { input, .. } => &input[piece],
            HostData::InPlace(values) => &values[piece],
        }
    }

    fn output(&mut self, piece: std::ops::Range<usize>) -> &mut [T] {
        match self {
            HostData::Separate { input, output } => {
                if output.len() != input.len() {
                    output.resize(input.len(), T::zeroed());
                }
                &mut output[piece]
            }
            HostData::InPlace(values) => &mut values[piece],
        }
    }
}

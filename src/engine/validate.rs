//! Validation mode ([`crate::ContextOptions::with_validation`]): every result is recomputed by
//! the CPU reference and compared with what the chain allows ([`crate::cpu::check_chain`]).
//!
//! Host-array calls compare against the reference of their own input. Work on device tensors,
//! submitted by us or recorded into the caller's encoder, copies X, the slopes and Y into
//! staging buffers around the kernels; when the submission completes, wgpu maps them and the
//! comparison runs in the completion callback, and a mismatch is returned by the next call on
//! the context (a download of the result, typically).

use std::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
use std::time::Duration;

use super::context::Context;
use super::dispatch::{Job, chain_name};
use super::pool::PooledBuffer;
use crate::broadcast::{SlopePlan, plan, unidirectional_slope_shape};
use crate::cpu::chain::{CpuSlope, CpuStep, compare};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::ops::Step;

/// What the check of one job needs once the GPU is done.
struct Check {
    device: wgpu::Device,
    job: PendingCheck,
    y: PooledBuffer,
}

/// A PRelu step's slope as validation reads it: a staging copy of the slope's elements
/// `first..` (`bytes` of them), broadcast to X as `plan` says.
struct StagedSlope {
    staging: PooledBuffer,
    bytes: u64,
    first: u64,
    plan: SlopePlan,
}

/// A step as validation checks it.
type StepCheck = Step<StagedSlope>;

impl Context {
    /// Records the copies a job's validation reads, before the job (X and the slopes, which
    /// the job may overwrite). Returns what [`Context::finish_validation`] completes.
    pub(crate) fn begin_validation(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        job: &Job<'_>,
    ) -> Result<Option<PendingCheck>> {
        if !self.inner.options.validation || job.x.is_empty() {
            return Ok(None);
        }
        // Nothing of another device may reach the encoder, not even a copy.
        self.check_owner(job.x)?;
        self.check_owner(job.y)?;
        for step in job.steps {
            if let Some(window) = step.slope() {
                self.check_owner(window.tensor)?;
            }
        }
        let x = self.stage(encoder, job.x)?;
        let mut steps = Vec::with_capacity(job.steps.len());
        for step in job.steps {
            steps.push(step.try_map_slope(|window| {
                let aligned = unidirectional_slope_shape(job.shape, window.shape)?;
                Ok::<_, Error>(StagedSlope {
                    staging: self.stage(encoder, window.tensor)?,
                    bytes: window.tensor.size_bytes(),
                    first: window.first,
                    plan: plan(job.shape, &aligned)?,
                })
            })?);
        }
        Ok(Some(PendingCheck {
            chain: chain_name(job.steps),
            dtype: job.x.dtype(),
            element_base: job.element_base,
            steps,
            x,
            bytes: job.x.size_bytes(),
        }))
    }

    /// Records the copy of the job's result and schedules the comparison for when the
    /// submission that carries `encoder` completes.
    pub(crate) fn finish_validation(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pending: Option<PendingCheck>,
        y: &super::GpuTensor,
        report: Report,
    ) -> Result<Option<CheckHandle>> {
        let Some(pending) = pending else { return Ok(None) };
        let check = Check { device: self.inner.device.clone(), y: self.stage(encoder, y)?, job: pending };
        let failures = Arc::clone(&self.inner.deferred_failures);
        let handle = CheckHandle::default();
        let report_to = match report {
            Report::Queue => None,
            Report::Handle => Some(handle.clone()),
        };
        // The comparison runs in whichever map callback comes last (wgpu does not order them
        // with the submission's other callbacks on every backend).
        let maps = 2 + check.job.steps.iter().filter(|s| s.slope().is_some()).count();
        let buffers: Vec<wgpu::Buffer> = check.buffers_to_map();
        let countdown = Arc::new(Mutex::new(Countdown {
            remaining: maps,
            failed: Vec::new(),
            check: Some(check),
            report_to,
            failures,
        }));
        for buffer in &buffers {
            let countdown = Arc::clone(&countdown);
            encoder.map_buffer_on_submit(buffer, wgpu::MapMode::Read, .., move |result| {
                let mut countdown = countdown.lock().unwrap_or_else(|p| p.into_inner());
                countdown.arrived(result.map_err(|e| e.to_string()));
            });
        }
        Ok(match report {
            Report::Queue => None,
            Report::Handle => Some(handle),
        })
    }

    /// Copies a tensor into a fresh staging buffer.
    fn stage(&self, encoder: &mut wgpu::CommandEncoder, tensor: &super::GpuTensor) -> Result<PooledBuffer> {
        let padded = tensor.size_bytes().next_multiple_of(4).max(4);
        let staging = self.take_buffer(
            padded,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            "wgpu-activations.validation",
        )?;
        if tensor.size_bytes() > 0 {
            encoder.copy_buffer_to_buffer(
                tensor.buffer(),
                tensor.offset(),
                staging.buffer(),
                0,
                tensor.size_bytes().next_multiple_of(4),
            );
        }
        Ok(staging)
    }
}

/// The maps a check waits for, and what it does when the last one arrives.
struct Countdown {
    remaining: usize,
    failed: Vec<String>,
    check: Option<Check>,
    report_to: Option<CheckHandle>,
    failures: Arc<Mutex<Vec<Error>>>,
}

impl Countdown {
    fn arrived(&mut self, map: std::result::Result<(), String>) {
        if let Err(message) = map {
            self.failed.push(message);
        }
        self.remaining -= 1;
        if self.remaining > 0 {
            return;
        }
        let Some(check) = self.check.take() else { return };
        let result = if self.failed.is_empty() {
            let result = check.run();
            check.release();
            result
        } else {
            check.discard();
            let message = format!("the staging buffers could not be mapped: {}", self.failed.join("; "));
            Err(Error::Gpu { during: "validation", message })
        };
        match (self.report_to.take(), result) {
            (Some(handle), result) => handle.set(result),
            (None, Err(error)) => self.failures.lock().unwrap_or_else(|p| p.into_inner()).push(error),
            (None, Ok(())) => {}
        }
    }
}

/// Where a validation reports: the context's queue (returned by its next call), or a handle
/// the caller waits on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Report {
    Queue,
    Handle,
}

/// The outcome of one validation, set by the completion callback.
#[derive(Clone, Default)]
pub(crate) struct CheckHandle(Arc<(Mutex<CheckState>, Condvar)>);

#[derive(Default)]
struct CheckState {
    outcome: Option<Result<()>>,
    waker: Option<Waker>,
}

impl CheckHandle {
    fn set(&self, result: Result<()>) {
        let (slot, ready) = &*self.0;
        let mut state = slot.lock().unwrap_or_else(|p| p.into_inner());
        if state.outcome.is_none() {
            state.outcome = Some(result);
        }
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
        ready.notify_all();
    }

    /// The outcome, waited for at most `timeout`. Natively the callback runs in the poll that
    /// completed the call's readback, so it is there or about to be; in the browser the event
    /// loop brings it, and the caller's task yields until then.
    pub(crate) async fn outcome(&self, timeout: Duration) -> Result<()> {
        #[cfg(target_arch = "wasm32")]
        {
            let expire = self.clone();
            super::platform::after(timeout, move || {
                expire.set(Err(Error::Timeout { during: "validation", after: timeout }));
            });
            std::future::poll_fn(|cx| {
                let mut state = self.0.0.lock().unwrap_or_else(|p| p.into_inner());
                match state.outcome.take() {
                    Some(outcome) => std::task::Poll::Ready(outcome),
                    None => {
                        state.waker = Some(cx.waker().clone());
                        std::task::Poll::Pending
                    }
                }
            })
            .await
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let (slot, ready) = &*self.0;
            let guard = slot.lock().unwrap_or_else(|p| p.into_inner());
            let (mut guard, _) =
                ready.wait_timeout_while(guard, timeout, |s| s.outcome.is_none()).unwrap_or_else(|p| p.into_inner());
            guard.outcome.take().unwrap_or(Err(Error::Timeout { during: "validation", after: timeout }))
        }
    }
}

/// A validation begun with [`Context::begin_validation`]: the check without Y yet.
pub(crate) struct PendingCheck {
    chain: String,
    dtype: DType,
    element_base: u64,
    steps: Vec<StepCheck>,
    x: PooledBuffer,
    bytes: u64,
}

impl Check {
    fn run(&self) -> Result<()> {
        fn typed<T: Element>(check: &Check) -> Result<()> {
            let read = |buffer: &PooledBuffer, bytes: u64| -> Result<Vec<T>> {
                let view = buffer
                    .buffer()
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| Error::Gpu { during: "validation", message: e.to_string() })?;
                Ok(bytemuck::pod_collect_to_vec(&view[..bytes as usize]))
            };
            let job = &check.job;
            let x = read(&job.x, job.bytes)?;
            let y = read(&check.y, job.bytes)?;
            let mut slopes = Vec::new();
            for step in &job.steps {
                if let Some(staged) = step.slope() {
                    slopes.push(read(&staged.staging, staged.bytes)?);
                }
            }
            let mut slope_values = slopes.iter();
            let steps: Vec<CpuStep<'_, T>> = job
                .steps
                .iter()
                .map(|step| {
                    step.as_ref().map_slope(|staged| CpuSlope {
                        values: slope_values.next().map_or(&[][..], Vec::as_slice),
                        first: staged.first,
                        plan: staged.plan.clone(),
                    })
                })
                .collect();
            compare(&job.chain, &y, &x, job.element_base, &steps)
        }
        crate::dtype::with_element_type!(self.job.dtype, T => typed::<T>(self))
    }

    /// The staging buffers, as wgpu handles to map.
    fn buffers_to_map(&self) -> Vec<wgpu::Buffer> {
        let mut all = vec![self.job.x.buffer().clone(), self.y.buffer().clone()];
        for step in &self.job.steps {
            if let Some(staged) = step.slope() {
                all.push(staged.staging.buffer().clone());
            }
        }
        all
    }

    fn buffers(self) -> (wgpu::Device, Vec<PooledBuffer>) {
        let mut all = vec![self.job.x, self.y];
        for step in self.job.steps {
            if let Step::Prelu(staged) | Step::Swiglu(staged, _) = step {
                all.push(staged.staging);
            }
        }
        (self.device, all)
    }

    /// Unmaps the staging buffers and returns them to the pool.
    fn release(self) {
        let (device, buffers) = self.buffers();
        for buffer in buffers {
            buffer.unmap_and_return(&device);
        }
    }

    /// Drops the staging buffers unpooled (some map failed: their state is unknown).
    fn discard(self) {
        for buffer in self.buffers().1 {
            buffer.discard();
        }
    }
}

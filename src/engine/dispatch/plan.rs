//! Planning a job's steps: each step checked and its slope's access chosen, the chain split
//! into kernels that fit the device's binding limits, and the uniforms every dispatch of a
//! kernel shares.

use std::ops::Range;

use super::{Job, JobStep, SlopeWindow, element_count};
use crate::broadcast::{SlopeAccess, SlopeBlock, SlopePlan, plan, unidirectional_slope_shape};
use crate::cpu::divide::Divisor;
use crate::dtype::DType;
use crate::engine::context::Context;
use crate::error::{Error, Result};
use crate::kernel::{Params, StepKind, StepParams, interprets_math};
use crate::ops::{SWIGLU, Step};
use crate::repr::Repr;

/// A step after checking, with its slope plan.
pub(super) struct Planned<'a> {
    pub(super) step: &'a JobStep<'a>,
    pub(super) kind: StepKind,
    pub(super) plan: Option<SlopePlan>,
    /// The block table of [`SlopeAccess::Blocked`].
    pub(super) block: Option<SlopeBlock>,
}

impl Context {
    pub(super) fn plan_step<'a>(&self, step: &'a JobStep<'a>, dtype: DType, job: &Job<'_>) -> Result<Planned<'a>> {
        match step {
            Step::Unary(op, attributes) => {
                if !crate::ops::accepts(op.versions, dtype) {
                    return Err(Error::DTypeNotAllowed { op: op.onnx_name, dtype, version: None });
                }
                Ok(Planned { step, kind: Step::Unary(op, op.kernel_variant(attributes)), plan: None, block: None })
            }
            Step::Swiglu(SlopeWindow { shape, .. }, attributes) => {
                if !SWIGLU.accepts(dtype) {
                    return Err(Error::DTypeNotAllowed { op: SWIGLU.onnx_name, dtype, version: None });
                }
                crate::cpu::gated::same_shapes(job.shape, shape)?;
                let (access, plan, block) = self.plan_slope(step, dtype, job)?;
                if access != SlopeAccess::Same {
                    return Err(Error::Internal { what: format!("SwiGLU's B planned as {access:?}") });
                }
                let variant = SWIGLU.kernel_variant(attributes);
                Ok(Planned { step, kind: Step::Swiglu(access, variant), plan: Some(plan), block })
            }
            Step::Prelu(_) => {
                let (access, plan, block) = self.plan_slope(step, dtype, job)?;
                Ok(Planned { step, kind: Step::Prelu(access), plan: Some(plan), block })
            }
        }
    }

    /// The access, plan and block table of a step's slope (PRelu's, or SwiGLU's B), checked
    /// against X.
    fn plan_slope(
        &self,
        step: &JobStep<'_>,
        dtype: DType,
        job: &Job<'_>,
    ) -> Result<(SlopeAccess, SlopePlan, Option<SlopeBlock>)> {
        let Some(SlopeWindow { tensor: slope, shape, first }) = step.slope() else {
            return Err(Error::Internal { what: format!("{} without its second tensor", step.onnx_name()) });
        };
        self.check_owner(slope)?;
        if slope.dtype() != dtype {
            return Err(Error::DTypeMismatch { expected: dtype, actual: slope.dtype() });
        }
        let total = element_count(shape).ok_or_else(|| Error::TooLarge {
            what: format!("{} element count", step.slope_name()),
            needed: u64::MAX,
            limit: usize::MAX as u64,
        })?;
        if *first + slope.len() as u64 > total as u64 {
            return Err(Error::ShapeMismatch {
                what: format!("{} part", step.slope_name()),
                expected: shape.to_vec(),
                actual: slope.shape().to_vec(),
            });
        }
        let aligned = unidirectional_slope_shape(job.shape, shape)?;
        let plan = plan(job.shape, &aligned)?;
        let lanes = self.repr_for(step.onnx_name(), dtype)?.spec().vector_lanes();
        let block = self.inner.tuning.invocation_block() * lanes;
        let block_unit = if self.inner.tuning.contiguous { block } else { lanes };
        let mut access = plan.access_for(lanes, block, block_unit);
        let job_elements = job.element_base..job.element_base + job.x.len() as u64;
        if access == SlopeAccess::ChannelUniform
            && channel_grid_fits(
                (u64::from(plan.run_length), u64::from(plan.channels)),
                self.inner.tuning.vectors_per_workgroup() * lanes,
                &job_elements,
                self.window_vectors() * lanes,
                u64::from(self.inner.info.limits.max_compute_workgroups_per_dimension),
            )
        {
            access = SlopeAccess::ChannelGrid;
        }
        let block = if matches!(access, SlopeAccess::Blocked { .. }) { plan.block(block_unit) } else { None };
        Ok((access, plan, block))
    }

    /// Splits the chain into kernels: each binds at most `max_storage_buffers_per_shader_stage`
    /// storage buffers (X, Y and one per PRelu step), holds at most one general slope pattern,
    /// and at most one step whose math the software-f64 interpreter runs ([`interprets_math`]).
    pub(super) fn segments<'p, 'a>(
        &self,
        planned: &'p [Planned<'a>],
        repr: Repr,
        in_place: bool,
    ) -> Result<Vec<&'p [Planned<'a>]>> {
        if planned.is_empty() {
            return Ok(vec![planned]);
        }
        let storage = self.inner.info.limits.max_storage_buffers_per_shader_stage as usize;
        let mut segments = Vec::new();
        let mut start = 0;
        while start < planned.len() {
            let io = if segments.is_empty() && !in_place { 2 } else { 1 };
            let (mut slopes, mut general, mut interpreted, mut end) = (0, false, false, start);
            while end < planned.len() {
                if interprets_math(repr, planned[end].kind, self.inner.tuning) {
                    if interpreted {
                        break;
                    }
                    interpreted = true;
                }
                if let Step::Prelu(access) | Step::Swiglu(access, _) = planned[end].kind {
                    let is_general = matches!(access, SlopeAccess::General | SlopeAccess::Blocked { .. });
                    if io + slopes + 1 > storage || (is_general && general) {
                        break;
                    }
                    slopes += 1;
                    general |= is_general;
                }
                end += 1;
            }
            if end == start {
                return Err(Error::Unsupported {
                    op: "PRelu",
                    dtype: DType::F32,
                    reason: format!("the device binds {storage} storage buffers per stage; PRelu needs {}", io + 1),
                });
            }
            segments.push(&planned[start..end]);
            start = end;
        }
        Ok(segments)
    }
}

/// Whether the main pass's grid can give a per-channel PRelu step, of runs of `run` elements
/// over `channels`, its channel ([`SlopeAccess::ChannelGrid`]) for a job over X's flat
/// `elements` in windows of `window` elements: runs of a power of two of whole workgroups of
/// `group_elements`, every window starting at channel 0 (a whole number of periods of the
/// channels), and the grid of [`channel_grid`] within `max_dimension`.
fn channel_grid_fits(
    (run, channels): (u64, u64),
    group_elements: u64,
    elements: &Range<u64>,
    window: u64,
    max_dimension: u64,
) -> bool {
    let len = elements.end - elements.start;
    let period = run.saturating_mul(channels);
    let run_groups = run / group_elements.max(1);
    period > 0
        && run.is_multiple_of(group_elements)
        && run_groups.is_power_of_two()
        && elements.start.is_multiple_of(period)
        && (len <= window || window.is_multiple_of(period))
        && run_groups.saturating_mul(channels) <= max_dimension
        && len.min(window).div_ceil(period) <= max_dimension
}

/// The main pass's grid for `groups` workgroups where a PRelu step takes its channel from it
/// ([`SlopeAccess::ChannelGrid`]): one period of the channels' runs along x, the periods along
/// y. A third dimension would have spared the power of two, but numbering the workgroups with
/// it cost lavapipe's kernels 3-8% of their speed (BENCHMARKS.md).
pub(super) fn channel_grid(groups: u64, run_groups: u64, channels: u64) -> (u32, u32) {
    let period = run_groups * channels;
    (period as u32, groups.div_ceil(period) as u32)
}

/// The parameters every dispatch of a segment shares; `jump` is the elements between the
/// Vectors of one invocation, over which a channel cursor moves; `dtype` is X's.
pub(super) fn base_params(segment: &[Planned<'_>], jump: u64, dtype: DType) -> Params {
    let mut params: Params = bytemuck::Zeroable::zeroed();
    for (k, p) in segment.iter().enumerate() {
        match (p.step, &p.plan) {
            (Step::Unary(op, attributes), _) => {
                let parameters = op.parameter_block(attributes, dtype);
                let [lo, hi] = (op.plain_products)(&parameters).words();
                params.steps[k] = StepParams { attributes: parameters, slope: [0, lo, hi, 0], ..Default::default() }
            }
            (Step::Prelu(_) | Step::Swiglu(..), Some(plan)) => {
                if let Step::Swiglu(_, attributes) = p.step {
                    // alpha, then A's plain range as the guarded kernels read it (`attributes.zw`).
                    let range = crate::ops::SWIGLU.plain_products(attributes[0]);
                    params.steps[k].attributes = crate::ops::leading_slots(attributes);
                    params.steps[k].attributes[2..].copy_from_slice(&[range.lo, range.hi]);
                }
                let (run_length, channels) = (u64::from(plan.run_length.max(1)), u64::from(plan.channels.max(1)));
                params.steps[k].slope = [run_length as u32, channels as u32, 0, 0];
                params.steps[k].jump = [(jump % run_length) as u32, ((jump / run_length) % channels) as u32, 0, 0];
                let (runs, period) = (Divisor::new(run_length as u32), Divisor::new(channels as u32));
                params.steps[k].divide = [runs.magic, period.magic, runs.mode, period.mode];
                let walked = match &p.block {
                    Some(block) => Some((&block.dims, &block.slope_strides)),
                    None => (plan.access == SlopeAccess::General).then_some((&plan.dims, &plan.slope_strides)),
                };
                if let Some((dims, strides)) = walked {
                    params.general_rank = dims.len() as u32;
                    params.general_dims[..dims.len()].copy_from_slice(dims);
                    params.general_strides[..strides.len()].copy_from_slice(strides);
                    for (d, &extent) in dims.iter().enumerate() {
                        let divisor = Divisor::new(extent);
                        params.general_magics[d] = divisor.magic;
                        params.general_modes[d] = divisor.mode;
                    }
                }
                if let Some(block) = &p.block {
                    params.block_offsets[..block.offsets.len()].copy_from_slice(&block.offsets);
                }
            }
            (Step::Prelu(_) | Step::Swiglu(..), None) => {}
        }
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_gives_channels_only_where_runs_and_windows_allow() {
        let fits = |run, channels, elements: Range<u64>, window| {
            channel_grid_fits((run, channels), 4096, &elements, window, 65535)
        };
        assert!(fits(4096, 16, 0..1 << 17, 1 << 30), "runs of one workgroup");
        assert!(fits(8192, 3, 3 * 8192..9 * 8192, 1 << 30), "a host piece that starts at channel 0");
        assert!(!fits(2048, 16, 0..1 << 17, 1 << 30), "runs of half a workgroup");
        assert!(!fits(4096, 16, 4096..1 << 17, 1 << 30), "a host piece that starts at channel 1");
        assert!(fits(4096, 7, 0..7 * 3 * 4096, 7 * 4096), "windows of one period");
        assert!(!fits(4096, 7, 0..7 * 3 * 4096, 2 * 4096), "windows of two runs of seven");
        assert!(fits(4096, 7, 0..3 * 2048, 3 * 2048), "one window, however long");
        assert!(fits(4 * 4096, 7, 0..7 * 3 * 4 * 4096, 1 << 30), "runs of four workgroups");
        assert!(!fits(3 * 4096, 7, 0..7 * 3 * 3 * 4096, 1 << 30), "runs of three workgroups");
        assert!(!fits(4096, 70_000, 0..70_000 * 4096, 1 << 40), "a period longer than a grid row");
        assert!(!fits(4096 * 32, 4096, 0..4096 * 4096 * 32, 1 << 40), "a period of more workgroups than a row");
        assert!(!fits(4096, 2, 0..2 * 4096 * 70_000, 1 << 40), "more periods than grid rows");
        assert!(!fits(4096, 0, 0..0, 1 << 30), "no channels (an empty X)");
        assert!(!fits(0, 4, 0..0, 1 << 30), "empty runs");
        assert_eq!(channel_grid(32, 1, 16), (16, 2));
        assert_eq!(channel_grid(5, 2, 7), (14, 1), "workgroups past the last one do nothing");
    }
}

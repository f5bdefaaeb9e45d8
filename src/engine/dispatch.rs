//! Recording a chain of steps into a command encoder: the windows that keep every binding within
//! `max_storage_buffer_binding_size`, the tail pass, the uniforms, and the bind groups. The steps'
//! checks, their slope access and the split into kernels that fit the device's binding limits
//! are planned in `dispatch/plan.rs`.

use std::num::NonZeroU64;
use std::ops::Range;

use super::activation::Activation;
use super::context::Context;
use super::pipelines::Kernel;
use super::pool::PooledBuffer;
use super::tensor::GpuTensor;
use crate::broadcast::{SlopeAccess, SlopePlan};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{KernelKey, MAX_CHAIN, Params, Pass, StepKind, Tuning, VECTOR_BYTES, binding};
use crate::ops::Step;
use crate::repr::Repr;

mod plan;

use plan::{Planned, base_params, channel_grid};

/// A PRelu step's slope as a job reads it: `tensor` holds the slope's flat elements
/// `first..first + tensor.len()` of a slope of `shape` (all of it, except for host arrays
/// processed in pieces).
#[derive(Clone, Copy)]
pub(crate) struct SlopeWindow<'a> {
    pub(crate) tensor: &'a GpuTensor,
    pub(crate) shape: &'a [usize],
    pub(crate) first: u64,
}

impl<'a> SlopeWindow<'a> {
    /// The whole of `slope`.
    pub(crate) fn whole(slope: &'a GpuTensor) -> Self {
        SlopeWindow { tensor: slope, shape: slope.shape(), first: 0 }
    }
}

/// Whole workgroups from which a tensor takes the straight-line form where it is the adapter's
/// default ([`crate::ContextOptions::with_straight_line`]). Four copies of a chain's math cost the
/// driver four times the compile of the loop's one: on lavapipe with two cores, 510 distinct
/// LeakyRelu and Elu chains (f32, 4096 elements) took 7.3 s to build with a warm driver cache and
/// 49.5 s cold in straight-line code, 1.8 s and 19 s in the loop. What the straight line gains
/// is a tenth of a pass over memory (2^22 f32: Elu 4.6 ms against 5.3 ms, Gelu 8.8 against 9.7)
/// and under 0.03 ms at 2^18 (64 workgroups): 10 ms of compile, warm, is repaid after some 70
/// calls at 2^20 elements of f32 (256 workgroups), after hundreds below it.
pub(crate) const STRAIGHT_LINE_MIN_WORKGROUPS: u64 = 256;

/// Whole workgroups below which a chain of unary steps runs as a step program where that is
/// the adapter's default ([`crate::ContextOptions::with_step_programs`]): one kernel for every
/// chain over the same operators. On lavapipe with two cores a kernel's first dispatch compiles
/// it, cold, in about 40 ms (f32) to 95 ms (f16 on words), 6 ms with a warm driver cache; the
/// program's loop and cases cost a call 0.03-0.05 ms at 2^14 f32 elements (4 workgroups),
/// 0.05-0.1 ms at 2^16 (16), and 0.7 ms at 2^18, where the written LeakyRelu f32 kernel takes
/// 0.5 ms (BENCHMARKS.md, "Many distinct kernels"). Below 16 workgroups, a warm compile is
/// repaid after some 75 calls, a cold one after hundreds.
pub(crate) const STEP_PROGRAM_MAX_WORKGROUPS: u64 = 16;

/// One step as the engine runs it.
pub(crate) type JobStep<'a> = Step<SlopeWindow<'a>>;

/// The steps of a chain of activations as a job runs them.
pub(crate) fn job_steps(chain: &[Activation]) -> Vec<JobStep<'_>> {
    chain.iter().map(|a| a.step().as_ref().map_slope(SlopeWindow::whole)).collect()
}

/// A chain over X into Y (the same tensor for in-place work).
pub(crate) struct Job<'a> {
    pub(crate) x: &'a GpuTensor,
    pub(crate) y: &'a GpuTensor,
    pub(crate) steps: &'a [JobStep<'a>],
    /// X's logical shape, for PRelu's broadcasting, and the flat index in it of X's first
    /// element (host arrays larger than one buffer run in pieces).
    pub(crate) shape: &'a [usize],
    pub(crate) element_base: u64,
}

/// The name errors about a chain use.
pub(crate) fn chain_name(steps: &[JobStep<'_>]) -> String {
    crate::ops::chain_label(steps.iter().map(|s| s.onnx_name()))
}

/// One dispatch's part of X: a window of whole Vectors (the main pass), or the elements after
/// the last whole Vector (the tail pass, on Words).
enum Piece {
    Vectors(Range<u64>),
    Tail { from_vector: u64, elements: u64 },
}

/// What every piece of a segment binds from: X, Y, and where X starts in the whole tensor.
struct PieceEnds<'a> {
    source: &'a GpuTensor,
    target: &'a GpuTensor,
    in_place: bool,
    repr: Repr,
    element_base: u64,
}

/// A segment's kernel and, where it is the first of two passes
/// ([`crate::kernel::Products::first_of_two_passes`]), the second's.
#[derive(Clone, Copy)]
struct Kernels<'k> {
    first: &'k Kernel,
    listed: Option<&'k Kernel>,
}

/// How many workgroups a dispatch runs: a grid, or what a buffer says at an offset.
enum Dispatch<'b> {
    Direct((u32, u32)),
    Indirect(&'b wgpu::Buffer, u64),
}

/// Per-call GPU resources that must live until the GPU has run the work recorded with them.
#[derive(Default)]
pub(crate) struct KeepAlive {
    pub(crate) buffers: Vec<PooledBuffer>,
    pub(crate) tensors: Vec<GpuTensor>,
}

impl Context {
    /// Checks `job` and records it into `encoder`. Nothing is submitted.
    pub(crate) fn encode_job(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        job: &Job<'_>,
        keep: &mut KeepAlive,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) -> Result<()> {
        let (x, y) = (job.x, job.y);
        self.check_owner(x)?;
        self.check_owner(y)?;
        let dtype = x.dtype();
        let op_name = chain_name(job.steps);
        if job.steps.len() > MAX_CHAIN {
            return Err(Error::ChainLength { steps: job.steps.len(), max: MAX_CHAIN });
        }
        if y.dtype() != dtype {
            return Err(Error::DTypeMismatch { expected: dtype, actual: y.dtype() });
        }
        if y.len() != x.len() {
            return Err(Error::ShapeMismatch {
                what: format!("{op_name} output"),
                expected: x.shape().to_vec(),
                actual: y.shape().to_vec(),
            });
        }
        let mut planned = Vec::with_capacity(job.steps.len());
        for step in job.steps {
            planned.push(self.plan_step(step, dtype, job)?);
        }
        // One grid per dispatch: a step whose channels it does not give takes the cursor.
        let mut grid_pattern = None;
        for p in &mut planned {
            if let (Step::Prelu(access @ SlopeAccess::ChannelGrid), Some(plan)) = (&mut p.kind, &p.plan) {
                let pattern = (plan.run_length, plan.channels);
                if *grid_pattern.get_or_insert(pattern) != pattern {
                    *access = SlopeAccess::ChannelUniform;
                }
            }
        }
        let repr = self.repr_for(job.steps.first().map_or("copy", |s| s.onnx_name()), dtype)?;
        keep.tensors.push(x.clone());
        keep.tensors.push(y.clone());
        if x.is_empty() {
            return Ok(());
        }
        let in_place = x.same_view(y);
        // Inputs at ranges of their own in Y's buffer (a framework's pooled allocations) are
        // bound writable: one dispatch cannot bind a buffer read-only beside writable.
        let mut inputs_in_output_buffer = !in_place && x.buffer() == y.buffer();
        if inputs_in_output_buffer && x.shares_words_with(y) {
            return Err(Error::InvalidBuffer {
                reason: format!(
                    "X and Y overlap in one buffer ({:?} and {:?}) without being the same tensor",
                    x.byte_range(),
                    y.byte_range()
                ),
            });
        }
        for p in &planned {
            if let Some(SlopeWindow { tensor: slope, .. }) = p.step.slope() {
                keep.tensors.push((*slope).clone());
                if slope.buffer() == y.buffer() {
                    if slope.shares_words_with(y) {
                        return Err(Error::InvalidBuffer {
                            reason: format!(
                                "{} overlaps the tensor the chain writes ({:?} and {:?})",
                                p.step.slope_name(),
                                slope.byte_range(),
                                y.byte_range()
                            ),
                        });
                    }
                    inputs_in_output_buffer = true;
                }
            }
        }
        let segments = self.segments(&planned, repr, in_place)?;
        let mut first_pass = true;
        let last = segments.len().saturating_sub(1);
        for (i, segment) in segments.iter().enumerate() {
            let (source, segment_in_place) = if i == 0 && !in_place { (x, false) } else { (y, true) };
            let kinds: Vec<StepKind> = segment.iter().map(|p| p.kind).collect();
            let key = KernelKey::new(repr, &kinds, segment_in_place, self.tuning_for(repr, x.len() as u64))
                .with_inputs_in_output_buffer(inputs_in_output_buffer);
            let kernel = self.kernel(&key)?;
            let listed =
                if key.tuning.products.first_of_two_passes() { Some(self.kernel(&key.listed())?) } else { None };
            let kernels = Kernels { first: &kernel, listed: listed.as_deref() };
            let writes = timestamps.map(|(set, base)| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: first_pass.then_some(base),
                end_of_pass_write_index: (i == last).then_some(base + 1),
            });
            self.encode_segment(encoder, kernels, repr, source, y, segment, job, keep, writes)?;
            first_pass = false;
        }
        if self.inner.options.corrupt_results {
            encoder.clear_buffer(y.buffer(), y.offset(), Some(4));
        }
        Ok(())
    }

    /// The context's kernel shape for a tensor of `elements`: where the straight-line form is
    /// the adapter's default (not asked for), a tensor of fewer than
    /// [`STRAIGHT_LINE_MIN_WORKGROUPS`] whole workgroups takes the smallest code instead, the
    /// loop with its groups in a loop too ([`Tuning::looped_groups`]).
    ///
    /// Where step programs are the adapter's default (CPU adapters, not asked for), a tensor
    /// takes one below [`STEP_PROGRAM_MAX_WORKGROUPS`] whole workgroups, except on the
    /// software-f64 path ([`Tuning::step_program`]).
    pub(crate) fn tuning_for(&self, repr: Repr, elements: u64) -> Tuning {
        let mut tuning = self.inner.tuning;
        let workgroup_elements = tuning.vectors_per_workgroup() * repr.spec().vector_lanes();
        let workgroups = elements / workgroup_elements;
        if tuning.straight_line
            && self.inner.options.straight_line.is_none()
            && workgroups < STRAIGHT_LINE_MIN_WORKGROUPS
        {
            tuning.straight_line = false;
            tuning.looped_groups = true;
        }
        if self.inner.options.step_programs.is_none() {
            let software_f64 = repr.dtype() == DType::F64 && !repr.spec().native;
            tuning.step_program &= workgroups < STEP_PROGRAM_MAX_WORKGROUPS && !software_f64;
        }
        tuning
    }

    /// Vectors one window (one dispatch) covers: within one binding, within one dispatch grid,
    /// and a whole number of binding offset alignments.
    pub(crate) fn window_vectors(&self) -> u64 {
        let align_vectors = self.offset_alignment() / VECTOR_BYTES;
        let binding = self.max_binding_bytes() / VECTOR_BYTES;
        let max_dim = u64::from(self.inner.info.limits.max_compute_workgroups_per_dimension.max(1));
        let grid = max_dim * max_dim * self.inner.tuning.vectors_per_workgroup();
        let vectors = binding.min(grid).min(1 << 30);
        (vectors / align_vectors * align_vectors).max(align_vectors)
    }

    #[allow(clippy::too_many_arguments, reason = "one segment's whole context; a struct would only rename them")]
    fn encode_segment(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kernels: Kernels<'_>,
        repr: Repr,
        source: &GpuTensor,
        target: &GpuTensor,
        segment: &[Planned<'_>],
        job: &Job<'_>,
        keep: &mut KeepAlive,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<()> {
        let limits = &self.inner.info.limits;
        let params_size = size_of::<Params>() as u64;
        if params_size > limits.max_uniform_buffer_binding_size {
            return Err(Error::Unsupported {
                op: "activation chain",
                dtype: repr.dtype(),
                reason: format!(
                    "the device's max_uniform_buffer_binding_size is {}, the kernels' parameters take {params_size} bytes",
                    limits.max_uniform_buffer_binding_size
                ),
            });
        }
        let lanes = repr.spec().vector_lanes();
        let len = source.len() as u64;
        let full = len / lanes;
        let window = self.window_vectors();
        let mut pieces: Vec<Piece> =
            (0..full.div_ceil(window)).map(|i| Piece::Vectors(i * window..((i + 1) * window).min(full))).collect();
        if !len.is_multiple_of(lanes) {
            pieces.push(Piece::Tail { from_vector: full, elements: len % lanes });
        }
        let mut slots = self.take_param_slots(pieces.len(), params_size, "wgpu-activations.params")?;
        let mut template = base_params(segment, self.inner.tuning.vector_stride() * lanes, repr.dtype());
        template.max_listed_groups = limits.max_compute_workgroups_per_dimension.max(1);
        let kernel = kernels.first;
        if kernel.key.tuning.step_program {
            template.program_steps = segment.len() as u32;
            for (k, p) in segment.iter().enumerate() {
                template.steps[k].slope[0] = kernel.key.program_case(p.kind);
            }
        }
        // Where steps take their channel from the grid (one pattern per job): the workgroups in
        // a run, a power of two whose log2 their kernel shifts by, and the channels.
        let mut grid_channels = None;
        for (k, p) in segment.iter().enumerate() {
            if let (Step::Prelu(SlopeAccess::ChannelGrid), Some(plan)) = (p.kind, &p.plan) {
                let run_groups = u64::from(plan.run_length) / (self.inner.tuning.vectors_per_workgroup() * lanes);
                template.steps[k].jump[3] = run_groups.trailing_zeros();
                grid_channels = Some((run_groups, u64::from(plan.channels)));
            }
        }
        let ends = PieceEnds { source, target, in_place: kernel.key.in_place, repr, element_base: job.element_base };
        // Where the kernel is the first of two passes, each window's marks (cleared below).
        let marks = match kernels.listed {
            Some(_) => Some(self.marks(&pieces)?),
            None => None,
        };
        let mut dispatches = Vec::with_capacity(pieces.len() * 2);
        for (i, piece) in pieces.iter().enumerate() {
            let (params, mut entries) = self.piece_bindings(&ends, segment, template, piece)?;
            entries.push((binding::PARAMS, slots.put(i, &params)));
            match piece {
                Piece::Vectors(w) => {
                    // Whole workgroups in main and the one after them in rest, where main is in
                    // straight-line code; otherwise main takes them all.
                    let (vectors, per_group) = (w.end - w.start, self.inner.tuning.vectors_per_workgroup());
                    let (main_groups, rest) = if kernel.key.straight_line() {
                        (vectors / per_group, !vectors.is_multiple_of(per_group))
                    } else {
                        (vectors.div_ceil(per_group), false)
                    };
                    // On the first of two passes, this window's marks, which the others read.
                    let region = marks.as_ref().and_then(|(buffer, regions)| Some((buffer, regions.get(i)?.clone())));
                    let marks_entry = region.as_ref().map(|(buffer, region)| {
                        (binding::MARKS, binding_of(buffer.buffer(), region.start, region.end - region.start))
                    });
                    let mut first_entries = entries.clone();
                    first_entries.extend(marks_entry.clone());
                    if main_groups > 0 {
                        let group = self.bind_group(kernel, Pass::Main, first_entries.clone())?;
                        let grid = match grid_channels {
                            Some((run_groups, channels)) => channel_grid(main_groups, run_groups, channels),
                            None => self.grid(main_groups),
                        };
                        dispatches.push((kernel, Pass::Main, group, Dispatch::Direct(grid)));
                    }
                    if rest {
                        let group = self.bind_group(kernel, Pass::Rest, first_entries)?;
                        dispatches.push((kernel, Pass::Rest, group, Dispatch::Direct((1, 1))));
                    }
                    if let (Some(listed), Some((buffer, region)), Some(marks_entry)) =
                        (kernels.listed, region, marks_entry)
                    {
                        entries.push(marks_entry);
                        let group = self.bind_group(listed, Pass::Listed, entries)?;
                        dispatches.push((
                            listed,
                            Pass::Listed,
                            group,
                            Dispatch::Indirect(buffer.buffer(), region.start),
                        ));
                    }
                }
                // The tail is a few elements: on a flushing device, exact products at once.
                Piece::Tail { .. } => {
                    let tail = kernels.listed.unwrap_or(kernel);
                    let group = self.bind_group(tail, Pass::Tail, entries)?;
                    dispatches.push((tail, Pass::Tail, group, Dispatch::Direct((1, 1))));
                }
            }
        }
        let uniform = slots.upload(&self.inner.queue);
        // Built before the pass opens (the tail and listed pipelines are built on first use).
        let pipelines: Vec<_> = dispatches
            .iter()
            .map(|(kernel, which, ..)| kernel.pipeline(&self.inner.device, *which))
            .collect::<Result<_>>()?;
        // Only the headers: the first pass writes every word the others read.
        if let Some((buffer, regions)) = &marks {
            for region in regions {
                encoder.clear_buffer(buffer.buffer(), region.start, Some(16));
            }
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&kernel.label),
            timestamp_writes: timestamps,
        });
        for ((_, _, bind_group, dispatch), pipeline) in dispatches.iter().zip(pipelines) {
            pass.set_pipeline(&pipeline.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            match dispatch {
                Dispatch::Direct((x, y)) => pass.dispatch_workgroups(*x, *y, 1),
                Dispatch::Indirect(buffer, offset) => pass.dispatch_workgroups_indirect(buffer, *offset),
            }
        }
        drop(pass);
        keep.buffers.push(uniform);
        if let Some((buffer, _)) = marks {
            keep.buffers.push(buffer);
        }
        Ok(())
    }

    /// A buffer of marks for the first of two passes (`driver/marks.wgsl`), and each Vectors
    /// piece's region of it (in piece order, aligned for binding): the second pass's dispatch
    /// size and the list of flagged invocations, room for every first-pass invocation.
    fn marks(&self, pieces: &[Piece]) -> Result<(PooledBuffer, Vec<Range<u64>>)> {
        let align = self.offset_alignment();
        let mut regions = Vec::with_capacity(pieces.len());
        let mut end = 0u64;
        for piece in pieces {
            if let Piece::Vectors(w) = piece {
                let vectors = w.end - w.start;
                let groups = vectors.div_ceil(self.inner.tuning.vectors_per_workgroup());
                let bytes = 16 + 8 * groups * u64::from(self.inner.tuning.workgroup_size);
                let start = end.next_multiple_of(align);
                regions.push(start..start + bytes);
                end = start + bytes;
            }
        }
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST;
        Ok((self.take_internal_buffer(end.max(16), usage, "wgpu-activations.marks")?, regions))
    }

    /// One dispatch's parameters and bindings (all but the parameters' own): its window of X
    /// and Y, as Vectors for the main pass or as Words for the tail, and each PRelu slope's
    /// part that the window reads.
    fn piece_bindings<'a>(
        &self,
        ends: &PieceEnds<'a>,
        segment: &[Planned<'a>],
        template: Params,
        piece: &Piece,
    ) -> Result<(Params, Vec<(u32, wgpu::BufferBinding<'a>)>)> {
        let spec = ends.repr.spec();
        let lanes = spec.vector_lanes();
        let elem = ends.repr.dtype().size_bytes() as u64;
        let align = self.offset_alignment();
        let mut params = template;
        let (x_binding, y_binding, byte_range, elements) = match piece {
            Piece::Vectors(w) => {
                params.vectors = (w.end - w.start) as u32;
                let first = ends.element_base + w.start * lanes;
                (
                    binding::X,
                    binding::Y,
                    w.start * VECTOR_BYTES..w.end * VECTOR_BYTES,
                    first..first + (w.end - w.start) * lanes,
                )
            }
            Piece::Tail { from_vector, elements } => {
                let start = from_vector * VECTOR_BYTES;
                let aligned = start / align * align;
                params.tail_word = ((start - aligned) / spec.word_bytes()) as u32;
                params.tail_elements = *elements as u32;
                let first = ends.element_base + from_vector * lanes;
                let end = ((from_vector * lanes + elements) * elem).next_multiple_of(4);
                (binding::X_WORDS, binding::Y_WORDS, aligned..end, first..first + elements)
            }
        };
        params.first_element = elements.start as u32;
        let bytes = byte_range.end - byte_range.start;
        let mut entries =
            vec![(x_binding, binding_of(ends.source.buffer(), ends.source.offset() + byte_range.start, bytes))];
        if !ends.in_place {
            entries.push((y_binding, binding_of(ends.target.buffer(), ends.target.offset() + byte_range.start, bytes)));
        }
        for (k, p) in segment.iter().enumerate() {
            let (Some(SlopeWindow { tensor: slope, shape, first }), Some(plan)) = (p.step.slope(), &p.plan) else {
                continue;
            };
            let main = matches!(piece, Piece::Vectors(_));
            if main && plan.access == SlopeAccess::Same {
                // Same shape as X: the slope's window is X's, read as Vectors.
                let offset = slope.offset() + (elements.start - first) * elem;
                if !offset.is_multiple_of(align) {
                    return Err(Error::Internal {
                        what: format!("PRelu slope window at byte {offset} is not aligned to {align}"),
                    });
                }
                params.steps[k].slope[2] = elements.start as u32;
                entries.push((binding::slope_vectors(k), binding_of(slope.buffer(), offset, bytes)));
            } else {
                let (range, z) = self.slope_words(slope, shape, *first, plan, &elements)?;
                params.steps[k].slope[2] = z as u32;
                // A trailing slope is bound whole (its pattern is not monotonic) from an
                // aligned offset, and its length is whole Vectors: the main pass reads it as
                // Vectors.
                let trailing = main && matches!(p.kind, Step::Prelu(SlopeAccess::Trailing));
                let number = if trailing { binding::slope_vectors(k) } else { binding::slope_words(k) };
                entries.push((number, binding_of(slope.buffer(), range.start, range.end - range.start)));
            }
        }
        Ok((params, entries))
    }

    /// The byte range of `slope` to bind as Words for X's flat `elements`, and the flat slope
    /// index of its first element: the window a monotonic pattern reads, else the whole slope.
    fn slope_words(
        &self,
        slope: &GpuTensor,
        shape: &[usize],
        first: u64,
        plan: &SlopePlan,
        elements: &Range<u64>,
    ) -> Result<(Range<u64>, u64)> {
        let total = element_count(shape).unwrap_or(usize::MAX) as u64;
        let needed = match plan.access {
            SlopeAccess::Scalar => 0..1,
            _ => plan.slope_window(elements).unwrap_or(0..total),
        };
        if needed.start < first || needed.end > first + slope.len() as u64 {
            return Err(Error::Internal {
                what: format!("PRelu slope elements {needed:?} are outside the uploaded part"),
            });
        }
        let elem = slope.dtype().size_bytes() as u64;
        let align = self.offset_alignment();
        let start = slope.offset() + (needed.start - first) * elem;
        let aligned = start / align * align;
        let end = (slope.offset() + (needed.end - first) * elem).next_multiple_of(4);
        if end - aligned > self.max_binding_bytes() {
            return Err(Error::TooLarge {
                what: "PRelu slope window (bytes in one storage binding)".into(),
                needed: end - aligned,
                limit: self.max_binding_bytes(),
            });
        }
        Ok((aligned..end, first + (aligned - slope.offset()) / elem))
    }

    /// Workgroups for `groups` in a grid within `max_compute_workgroups_per_dimension`.
    pub(crate) fn grid(&self, groups: u64) -> (u32, u32) {
        let max = u64::from(self.inner.info.limits.max_compute_workgroups_per_dimension.max(1));
        let x = groups.clamp(1, max);
        (x as u32, groups.div_ceil(x) as u32)
    }

    fn bind_group(
        &self,
        kernel: &Kernel,
        pass: Pass,
        mut entries: Vec<(u32, wgpu::BufferBinding<'_>)>,
    ) -> Result<wgpu::BindGroup> {
        entries.sort_by_key(|(b, _)| *b);
        let expected = kernel.key.bindings(pass);
        let numbers: Vec<u32> = entries.iter().map(|(b, _)| *b).collect();
        if numbers != expected {
            return Err(Error::Internal {
                what: format!("{} binds {numbers:?}, its pipeline reads {expected:?}", kernel.label),
            });
        }
        let layout = &kernel.pipeline(&self.inner.device, pass)?.layout;
        let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
            .into_iter()
            .map(|(binding, buffer)| wgpu::BindGroupEntry { binding, resource: wgpu::BindingResource::Buffer(buffer) })
            .collect();
        Ok(self.inner.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&kernel.label),
            layout,
            entries: &entries,
        }))
    }
}

fn binding_of(buffer: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding { buffer, offset, size: NonZeroU64::new(size) }
}

/// The product of `shape`, or `None` if it overflows.
pub(crate) fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

//! PRelu's slope broadcasting: the ONNX rules, and the collapsed plan the kernel reads.

use crate::error::{Error, Result};

/// Largest collapsed rank of the general slope pattern (the size of the kernels'
/// `Params.general_dims`).
pub(crate) const MAX_RANK: usize = 16;

/// Most elements in the block of [`SlopeAccess::Blocked`] (the size of the kernels'
/// `Params.block_offsets`).
pub(crate) const MAX_BLOCK: usize = 256;

/// The rule name quoted in [`Error::NotBroadcastable`] for opset 7+.
pub(crate) const UNIDIRECTIONAL_RULE: &str = "unidirectional broadcasting (ONNX PRelu-7+): slope \
    rank <= X rank, shapes aligned from the right, each slope dim equal to X's or 1";

/// The slope's shape aligned to X's rank (ones prepended), after checking ONNX's
/// unidirectional broadcasting rule (slope to X only).
pub fn unidirectional_slope_shape(x: &[usize], slope: &[usize]) -> Result<Vec<usize>> {
    let refuse = || Error::NotBroadcastable { x: x.to_vec(), slope: slope.to_vec(), rule: UNIDIRECTIONAL_RULE };
    if slope.len() > x.len() {
        return Err(refuse());
    }
    let mut aligned = vec![1; x.len() - slope.len()];
    aligned.extend_from_slice(slope);
    if aligned.iter().zip(x).any(|(&s, &d)| s != d && s != 1) {
        return Err(refuse());
    }
    Ok(aligned)
}

/// How the kernel gathers slope values for a group of consecutive X elements (shader text:
/// `slope_<kind>_K` in `shaders/ops/prelu_slope.wgsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SlopeAccess {
    /// One slope value for all of X.
    Scalar,
    /// The slope has X's (collapsed) shape: read as Vectors alongside X.
    Same,
    /// Slope index `(i / run_length) % channels`: the collapsed patterns [slope, broadcast],
    /// [broadcast, slope] and [broadcast, slope, broadcast] (per channel, trailing dims, ...).
    Channel,
    /// [`SlopeAccess::Channel`] where the run length is a multiple of a Vector's elements, so
    /// every Vector lies in one run and takes one slope value (the usual per-channel case).
    ChannelAligned,
    /// [`SlopeAccess::Channel`] where every invocation's Vectors lie in one run: one slope
    /// value per invocation.
    ChannelUniform,
    /// [`SlopeAccess::Channel`] where runs are a power of two of whole workgroups, every
    /// dispatch starts at channel 0, and the main pass's grid spans a period of the channels
    /// along x: the channel comes from the workgroup's x, with no division per invocation (the
    /// other passes take [`SlopeAccess::ChannelUniform`]'s).
    ChannelGrid,
    /// [`SlopeAccess::Channel`] with runs of one element (the slope covers X's trailing dims)
    /// and a period of whole Vectors: each Vector of X takes one whole Vector of the slope.
    Trailing,
    /// Any other pattern whose innermost elements split into blocks of an invocation's elements
    /// (CPU drivers) or of a Vector's (GPUs), at most [`MAX_BLOCK`]: a table of the slope
    /// offsets of one block, the same for every invocation, and a walk over the dims outside
    /// it (per invocation, or per Vector on GPUs). `run`: the lanes of a group that lie in one
    /// aligned run of this many elements (a power of two, at most a block) share one load,
    /// where X's innermost dim is broadcast ([`SlopePlan::innermost_run`]).
    Blocked { run: u8 },
    /// Any other pattern: a walk over the collapsed dims.
    General,
}

impl SlopeAccess {
    #[cfg(test)]
    pub(crate) const ALL: [SlopeAccess; 11] = [
        SlopeAccess::Scalar,
        SlopeAccess::Same,
        SlopeAccess::Channel,
        SlopeAccess::ChannelAligned,
        SlopeAccess::ChannelUniform,
        SlopeAccess::ChannelGrid,
        SlopeAccess::Trailing,
        SlopeAccess::Blocked { run: 1 },
        SlopeAccess::Blocked { run: 2 },
        SlopeAccess::Blocked { run: 4 },
        SlopeAccess::General,
    ];

    /// The name of its gather function in `prelu_slope.wgsl`.
    pub(crate) fn wgsl_name(self) -> &'static str {
        match self {
            SlopeAccess::Scalar => "scalar",
            SlopeAccess::Same => "same",
            SlopeAccess::Channel => "channel",
            SlopeAccess::ChannelAligned => "channel_aligned",
            SlopeAccess::ChannelUniform => "channel_uniform",
            SlopeAccess::ChannelGrid => "channel_grid",
            SlopeAccess::Trailing => "trailing",
            SlopeAccess::Blocked { .. } => "blocked",
            SlopeAccess::General => "general",
        }
    }
}

/// X's dims collapsed into runs with the same broadcast pattern, as the PRelu kernel reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlopePlan {
    /// Collapsed X extents, outermost first (dims of extent 1 dropped).
    pub(crate) dims: Vec<u32>,
    /// Slope stride of each collapsed dim; 0 where the slope is broadcast.
    pub(crate) slope_strides: Vec<u32>,
    /// The kernel's gather path for this pattern.
    pub(crate) access: SlopeAccess,
    /// For [`SlopeAccess::Channel`]: X elements per slope value, and slope values per period.
    pub(crate) run_length: u32,
    pub(crate) channels: u32,
    /// True when the slope index never decreases along X, so a window of X reads one
    /// contiguous window of the slope.
    pub(crate) monotonic: bool,
}

impl SlopePlan {
    /// The access a kernel uses whose Vectors hold `vector_lanes` elements and whose
    /// invocations each keep to an aligned block of `block_elements`: one slope value per
    /// invocation when runs are whole blocks, per Vector when runs are whole Vectors, a slope
    /// Vector per Vector when runs are single elements and the period whole Vectors, else the
    /// general channel path; for the general pattern, a table of `block_unit` elements where its
    /// innermost dims split into blocks of them ([`SlopePlan::block`]): an invocation's
    /// elements where its Vectors are consecutive, else a Vector's. (Windows, host pieces and blocks all start at multiples of their
    /// size, which every dispatch keeps.)
    pub(crate) fn access_for(&self, vector_lanes: u64, block_elements: u64, block_unit: u64) -> SlopeAccess {
        let run = u64::from(self.run_length);
        match self.access {
            SlopeAccess::Channel if run % block_elements == 0 => SlopeAccess::ChannelUniform,
            SlopeAccess::Channel if run % vector_lanes == 0 => SlopeAccess::ChannelAligned,
            SlopeAccess::Channel if run == 1 && u64::from(self.channels) % vector_lanes == 0 => SlopeAccess::Trailing,
            SlopeAccess::General if self.block(block_unit).is_some() => {
                SlopeAccess::Blocked { run: self.innermost_run(block_unit) }
            }
            access => access,
        }
    }

    /// The block of [`SlopeAccess::Blocked`]: the innermost `unit` elements (a power of two, at
    /// most [`MAX_BLOCK`]) of each run of them, as whole innermost dims and a part of the next
    /// one, which is split in two where `unit` ends inside it; `None` where no dims end there.
    pub(crate) fn block(&self, unit: u64) -> Option<SlopeBlock> {
        if unit > MAX_BLOCK as u64 {
            return None;
        }
        let mut inner = 1u64;
        for first in (0..self.dims.len()).rev() {
            if !unit.is_multiple_of(inner) {
                return None;
            }
            let (extent, stride) = (u64::from(self.dims[first]), self.slope_strides[first]);
            let part = unit / inner;
            if extent.is_multiple_of(part) {
                let mut dims = self.dims[..first].to_vec();
                let mut slope_strides = self.slope_strides[..first].to_vec();
                if extent > part {
                    dims.push((extent / part) as u32);
                    slope_strides.push(stride * part as u32);
                }
                dims.push(unit as u32);
                slope_strides.push(0);
                let mut block_dims = vec![part as u32];
                block_dims.extend_from_slice(&self.dims[first + 1..]);
                let mut block_strides = vec![stride];
                block_strides.extend_from_slice(&self.slope_strides[first + 1..]);
                let block = SlopePlan { dims: block_dims, slope_strides: block_strides, ..self.clone() };
                let offsets = (0..unit).map(|j| block.slope_index(j) as u32).collect();
                return (dims.len() <= MAX_RANK).then_some(SlopeBlock { dims, slope_strides, offsets });
            }
            inner *= extent;
        }
        None
    }

    /// Where the slope is broadcast along X's innermost (collapsed) dim, its values come in runs
    /// of that dim's extent: the largest power of two that divides both it and `block_unit` (so
    /// that blocks hold whole runs), at most 16 (lanes in a Vector); else 1.
    pub(crate) fn innermost_run(&self, block_unit: u64) -> u8 {
        match (self.dims.last(), self.slope_strides.last()) {
            (Some(&extent), Some(0)) => 1 << extent.trailing_zeros().min(block_unit.trailing_zeros()).min(4),
            _ => 1,
        }
    }

    /// The flat slope index of flat X index `i`, as the kernel computes it.
    pub(crate) fn slope_index(&self, i: u64) -> u64 {
        let mut rest = i;
        let mut s = 0;
        for (&extent, &stride) in self.dims.iter().zip(&self.slope_strides).rev() {
            s += (rest % u64::from(extent)) * u64::from(stride);
            rest /= u64::from(extent);
        }
        s
    }

    /// The slope elements X's flat range `xs` reads, when they form one contiguous window.
    pub(crate) fn slope_window(&self, xs: &std::ops::Range<u64>) -> Option<std::ops::Range<u64>> {
        (self.monotonic && !xs.is_empty()).then(|| self.slope_index(xs.start)..self.slope_index(xs.end - 1) + 1)
    }
}

/// The general pattern as [`SlopeAccess::Blocked`] walks it: the dims outside the block, then
/// the block as one dim the slope is broadcast over, and the slope offset of each of the
/// block's elements from its first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlopeBlock {
    pub(crate) dims: Vec<u32>,
    pub(crate) slope_strides: Vec<u32>,
    pub(crate) offsets: Vec<u32>,
}

/// Collapses `x` and the aligned slope shape (from [`unidirectional_slope_shape`]).
pub(crate) fn plan(x: &[usize], aligned_slope: &[usize]) -> Result<SlopePlan> {
    let x_len = x.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).unwrap_or(usize::MAX);
    if x_len > u32::MAX as usize {
        return Err(Error::TooLarge {
            what: "PRelu X element count (the kernel indexes the slope with u32)".into(),
            needed: x_len as u64,
            limit: u64::from(u32::MAX),
        });
    }
    // (extent, broadcast) runs, merged while the pattern repeats.
    let mut runs: Vec<(usize, bool)> = Vec::new();
    for (&extent, &s) in x.iter().zip(aligned_slope) {
        if extent == 1 {
            continue;
        }
        let broadcast = s == 1;
        match runs.last_mut() {
            Some((run, b)) if *b == broadcast => *run *= extent,
            _ => runs.push((extent, broadcast)),
        }
    }
    if runs.len() > MAX_RANK {
        return Err(Error::UnsupportedShape {
            what: format!("PRelu of X {x:?} and slope {aligned_slope:?}"),
            reason: format!(
                "the broadcast pattern alternates {} times; the kernel handles at most {MAX_RANK}",
                runs.len()
            ),
        });
    }
    let mut slope_strides = vec![0u32; runs.len()];
    let mut stride = 1usize;
    for (d, &(extent, broadcast)) in runs.iter().enumerate().rev() {
        if !broadcast {
            slope_strides[d] = stride as u32;
            stride *= extent;
        }
    }
    let dims: Vec<u32> = runs.iter().map(|&(e, _)| e as u32).collect();
    let pattern: Vec<bool> = runs.iter().map(|&(_, b)| b).collect();
    let (access, run_length, channels) = match pattern.as_slice() {
        _ if stride == 1 => (SlopeAccess::Scalar, 1, 1),
        [false] => (SlopeAccess::Same, 1, dims[0]),
        [false, true] => (SlopeAccess::Channel, dims[1], dims[0]),
        [true, false] => (SlopeAccess::Channel, 1, dims[1]),
        [true, false, true] => (SlopeAccess::Channel, dims[2], dims[1]),
        _ => (SlopeAccess::General, 1, 1),
    };
    let monotonic = matches!(pattern.as_slice(), [] | [false] | [false, true]) || stride == 1;
    Ok(SlopePlan { dims, slope_strides, access, run_length, channels, monotonic })
}

/// ONNX PRelu opsets 1 and 6: a slope of one element is shared, and a 1-D slope of length
/// `X.shape[1]` applies per channel along axis 1. Other shapes that the opset-7 rule
/// broadcasts (the `[C, 1, 1]` that exporters write) are taken as opset 7 takes them. Returns
/// the equivalent opset-7 slope shape.
pub fn per_channel_slope_shape(x: &[usize], slope: &[usize]) -> Result<Vec<usize>> {
    let rule = "per-channel slope (ONNX PRelu-1/6): one element, a 1-D slope of length X.shape[1], \
                or a shape that broadcasts to X";
    let refuse = || Error::NotBroadcastable { x: x.to_vec(), slope: slope.to_vec(), rule };
    if slope.iter().all(|&d| d == 1) {
        return Ok(vec![1; x.len()]);
    }
    match (slope, x.get(1)) {
        ([c], Some(&channels)) if *c == channels => {
            let mut shape = vec![1; x.len()];
            shape[1] = channels;
            Ok(shape)
        }
        _ => unidirectional_slope_shape(x, slope).map_err(|_| refuse()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(x: &[usize], s: &[usize]) -> SlopePlan {
        plan(x, &unidirectional_slope_shape(x, s).unwrap()).unwrap()
    }

    #[test]
    fn common_patterns_take_short_paths() {
        assert_eq!(planned(&[2, 3, 4], &[]).access, SlopeAccess::Scalar);
        assert_eq!(planned(&[2, 3, 4], &[1]).access, SlopeAccess::Scalar);
        assert_eq!(planned(&[2, 3, 4], &[2, 3, 4]).access, SlopeAccess::Same);
        let leading = planned(&[1, 3, 4, 5], &[3, 1, 1]);
        assert_eq!((leading.access, leading.run_length, leading.channels), (SlopeAccess::Channel, 20, 3));
        assert!(leading.monotonic);
        let trailing = planned(&[2, 3, 4, 5], &[4, 5]);
        assert_eq!((trailing.access, trailing.run_length, trailing.channels), (SlopeAccess::Channel, 1, 20));
        assert!(!trailing.monotonic);
        assert_eq!(trailing.access_for(4, 1024, 4), SlopeAccess::Trailing);
        assert_eq!(trailing.access_for(2, 512, 2), SlopeAccess::Trailing);
        assert_eq!(trailing.access_for(8, 2048, 8), SlopeAccess::Channel, "20 slope values are not whole Vectors of 8");
        assert_eq!(leading.access_for(4, 1024, 4), SlopeAccess::ChannelAligned);
        assert_eq!(leading.access_for(4, 20, 4), SlopeAccess::ChannelUniform);
        assert_eq!(leading.access_for(8, 2048, 8), SlopeAccess::Channel);
        let per_channel = planned(&[2, 3, 4, 5], &[1, 3, 1, 1]);
        assert_eq!((per_channel.access, per_channel.run_length, per_channel.channels), (SlopeAccess::Channel, 20, 3));
        assert_eq!(per_channel.dims, vec![2, 3, 20]);
        assert_eq!(per_channel.slope_strides, vec![0, 1, 0]);
        let outer = planned(&[6, 5, 4], &[6, 1, 1]);
        assert_eq!(outer.slope_window(&(19..41)), Some(0..3));
        assert_eq!(outer.slope_index(40), 2);
        assert_eq!(per_channel.slope_window(&(0..5)), None);
        let mixed = planned(&[2, 3, 4, 5, 6, 7], &[2, 1, 4, 1, 6, 1]);
        assert_eq!(mixed.access, SlopeAccess::General);
        assert_eq!(mixed.slope_strides, vec![24, 0, 6, 0, 1, 0]);
        assert_eq!(mixed.access_for(2, 1024, 2), SlopeAccess::General, "the innermost 7 elements end no block of 2");
        let even = planned(&[2, 3, 4, 5, 6, 8], &[2, 1, 4, 1, 6, 1]);
        assert_eq!(even.access_for(4, 16, 16), SlopeAccess::Blocked { run: 8 }, "blocks of 16, runs of 8");
        assert_eq!(even.access_for(4, 4, 4), SlopeAccess::Blocked { run: 4 }, "runs at most a block");
        let bench = planned(&[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1]);
        assert_eq!(bench.access_for(4, 16, 16), SlopeAccess::Blocked { run: 2 });
        let inner = planned(&[3, 8, 16, 2, 16], &[3, 1, 16, 1, 16]);
        assert_eq!(inner.access_for(4, 16, 16), SlopeAccess::Blocked { run: 1 }, "the innermost dim is the slope's");
        let split = planned(&[3, 2, 5, 24], &[3, 1, 5, 1]);
        assert_eq!(
            split.access_for(4, 12, 12),
            SlopeAccess::Blocked { run: 4 },
            "blocks of 12 hold whole runs of 4, not 8"
        );
    }

    #[test]
    fn a_block_walked_outside_and_tabled_inside_gives_every_slope_index() {
        let bench = planned(&[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1]);
        let odd = planned(&[5, 3, 6, 2, 3], &[5, 1, 6, 1, 3]);
        // (plan, unit, whether a block of it exists, the rank walked)
        let cases = [
            (&bench, 2, true, 6),
            (&bench, 4, true, 6),
            (&bench, 16, true, 6),
            (&bench, 32, true, 5),
            (&bench, 64, true, 4),
            (&bench, 256, true, 4),
            (&bench, 512, false, 0),
            (&odd, 2, false, 0),
            (&odd, 6, true, 4),
        ];
        for (plan, unit, exists, rank) in cases {
            let what = format!("{:?} in units of {unit}", plan.dims);
            let Some(block) = plan.block(unit) else {
                assert!(!exists, "{what}");
                continue;
            };
            assert!(exists, "{what}");
            assert_eq!((block.offsets.len(), block.dims.len()), (unit as usize, rank), "{what}");
            let walked =
                SlopePlan { dims: block.dims.clone(), slope_strides: block.slope_strides.clone(), ..plan.clone() };
            for i in 0..plan.dims.iter().product::<u32>() as u64 {
                let offset = u64::from(block.offsets[(i % unit) as usize]);
                assert_eq!(walked.slope_index(i) + offset, plan.slope_index(i), "element {i}, {what}");
            }
        }
    }

    #[test]
    fn refuses_what_onnx_refuses() {
        assert!(unidirectional_slope_shape(&[2, 3], &[3, 2]).is_err());
        assert!(unidirectional_slope_shape(&[3], &[1, 3]).is_err());
        assert!(unidirectional_slope_shape(&[2, 3], &[2]).is_err());
        let message = unidirectional_slope_shape(&[2, 3], &[2]).unwrap_err().to_string();
        assert!(message.contains("[2, 3]") && message.contains("[2]"), "{message}");
        assert_eq!(per_channel_slope_shape(&[2, 3, 4], &[3]).unwrap(), vec![1, 3, 1]);
        assert_eq!(per_channel_slope_shape(&[2, 3, 4], &[1, 1]).unwrap(), vec![1, 1, 1]);
        assert_eq!(per_channel_slope_shape(&[2, 3, 4], &[3, 1]).unwrap(), vec![1, 3, 1]);
        assert!(per_channel_slope_shape(&[2, 3, 4], &[5]).is_err());
        assert!(per_channel_slope_shape(&[2, 3], &[usize::MAX, 2]).is_err());
    }

    #[test]
    fn a_pattern_alternating_past_the_kernel_rank_is_an_error_value() {
        let x = vec![2usize; 20];
        let slope: Vec<usize> = (0..20).map(|i| if i % 2 == 0 { 2 } else { 1 }).collect();
        assert!(matches!(plan(&x, &slope), Err(Error::UnsupportedShape { .. })));
    }
}

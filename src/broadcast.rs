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
    /// Any other pattern whose innermost collapsed dims hold a whole number of Vectors in at
    /// most [`MAX_BLOCK`] elements: a table of the slope offsets of one such block, and a walk
    /// over the dims outside it (per invocation, or per Vector on GPUs).
    Blocked,
    /// Any other pattern: a walk over the collapsed dims.
    General,
}

impl SlopeAccess {
    #[cfg(test)]
    pub(crate) const ALL: [SlopeAccess; 9] = [
        SlopeAccess::Scalar,
        SlopeAccess::Same,
        SlopeAccess::Channel,
        SlopeAccess::ChannelAligned,
        SlopeAccess::ChannelUniform,
        SlopeAccess::ChannelGrid,
        SlopeAccess::Trailing,
        SlopeAccess::Blocked,
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
            SlopeAccess::Blocked => "blocked",
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
    /// general channel path; for the general pattern, a table over its innermost dims where
    /// they hold whole `block_unit`s in few elements ([`SlopePlan::block`]): an invocation's
    /// block where its Vectors are consecutive, else a Vector. (Windows, host pieces and blocks all start at multiples of their
    /// size, which every dispatch keeps.)
    pub(crate) fn access_for(&self, vector_lanes: u64, block_elements: u64, block_unit: u64) -> SlopeAccess {
        let run = u64::from(self.run_length);
        match self.access {
            SlopeAccess::Channel if run % block_elements == 0 => SlopeAccess::ChannelUniform,
            SlopeAccess::Channel if run % vector_lanes == 0 => SlopeAccess::ChannelAligned,
            SlopeAccess::Channel if run == 1 && u64::from(self.channels) % vector_lanes == 0 => SlopeAccess::Trailing,
            SlopeAccess::General if self.block(block_unit).is_some() => SlopeAccess::Blocked,
            access => access,
        }
    }

    /// The block of [`SlopeAccess::Blocked`]: the fewest innermost dims whose elements are a
    /// whole number of `unit`s, if at most [`MAX_BLOCK`].
    pub(crate) fn block(&self, unit: u64) -> Option<SlopeBlock> {
        let mut elements = 1u64;
        for first in (0..self.dims.len()).rev() {
            elements *= u64::from(self.dims[first]);
            if elements > MAX_BLOCK as u64 {
                return None;
            }
            if elements.is_multiple_of(unit) {
                let inner = SlopePlan {
                    dims: self.dims[first..].to_vec(),
                    slope_strides: self.slope_strides[first..].to_vec(),
                    ..self.clone()
                };
                let offsets = (0..elements).map(|j| inner.slope_index(j) as u32).collect();
                let mut dims = self.dims[..first].to_vec();
                let mut slope_strides = self.slope_strides[..first].to_vec();
                dims.push(elements as u32);
                slope_strides.push(0);
                return Some(SlopeBlock { dims, slope_strides, offsets });
            }
        }
        None
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
        assert_eq!(mixed.access_for(4, 1024, 4), SlopeAccess::General, "7, 42, 210: no whole Vectors of 4 in 256");
        assert_eq!(mixed.access_for(2, 1024, 2), SlopeAccess::Blocked, "42 elements are whole Vectors of 2");
    }

    #[test]
    fn a_block_walked_outside_and_tabled_inside_gives_every_slope_index() {
        let bench = planned(&[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1]);
        for (unit, elements) in [(2, 2), (4, 32), (8, 32), (16, 32), (64, 64), (128, 1024)] {
            let Some(block) = bench.block(unit) else {
                assert!(elements > MAX_BLOCK, "units of {unit}");
                continue;
            };
            assert_eq!(block.offsets.len(), elements, "units of {unit}");
            let walked =
                SlopePlan { dims: block.dims.clone(), slope_strides: block.slope_strides.clone(), ..bench.clone() };
            for i in 0..bench.dims.iter().product::<u32>() as u64 {
                let offset = u64::from(block.offsets[(i % elements as u64) as usize]);
                assert_eq!(walked.slope_index(i) + offset, bench.slope_index(i), "element {i}, units of {unit}");
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

//! PRelu's slope broadcasting: the ONNX rules, and the collapsed index plan the kernel uses.

use crate::error::{Error, Result};
use crate::shader::{MAX_RANK, SlopeIndex};

/// The rule name quoted in [`Error::NotBroadcastable`] for opset 7+.
pub(crate) const UNIDIRECTIONAL_RULE: &str = "unidirectional broadcasting (ONNX PRelu-7+): slope \
    rank <= X rank, shapes aligned from the right, each slope dim equal to X's or 1";

/// The slope's shape aligned to X's rank (ones prepended), after checking ONNX's
/// unidirectional broadcasting rule (slope to X only).
pub fn unidirectional_slope_shape(x: &[usize], slope: &[usize]) -> Result<Vec<usize>> {
    let refuse = || Error::NotBroadcastable {
        x: x.to_vec(),
        slope: slope.to_vec(),
        rule: UNIDIRECTIONAL_RULE,
    };
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

/// X's dims collapsed into runs with the same broadcast pattern, as the PRelu kernel reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlopePlan {
    /// Collapsed X extents, outermost first (dims of extent 1 dropped).
    pub(crate) dims: Vec<u32>,
    /// Slope stride of each collapsed dim; 0 where the slope is broadcast.
    pub(crate) slope_strides: Vec<u32>,
    /// The kernel's index path for this pattern.
    pub(crate) index: SlopeIndex,
}

impl SlopePlan {
    /// True when the slope index never decreases along X (no broadcast dim before a slope
    /// dim), so a window of X reads one contiguous window of the slope.
    pub(crate) fn is_monotonic(&self) -> bool {
        matches!(self.index, SlopeIndex::Scalar | SlopeIndex::Same | SlopeIndex::Outer)
    }

    /// The flat slope index of flat X index `i`, as the kernel computes it.
    pub(crate) fn slope_index(&self, i: usize) -> usize {
        let mut rest = i;
        let mut s = 0;
        for (&extent, &stride) in self.dims.iter().zip(&self.slope_strides).rev() {
            s += (rest % extent as usize) * stride as usize;
            rest /= extent as usize;
        }
        s
    }

    /// The slope elements X's flat range `xs` reads, when they form one contiguous window.
    pub(crate) fn slope_window(&self, xs: &std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
        (self.is_monotonic() && !xs.is_empty())
            .then(|| self.slope_index(xs.start)..self.slope_index(xs.end - 1) + 1)
    }
}

/// Collapses `x` and the aligned slope shape (from [`unidirectional_slope_shape`]).
pub(crate) fn plan(x: &[usize], aligned_slope: &[usize]) -> Result<SlopePlan> {
    let too_large = |what: &str, needed: usize| Error::TooLarge {
        what: format!("PRelu {what} (the kernel indexes with u32)"),
        needed: needed as u64,
        limit: u64::from(u32::MAX),
    };
    let x_len = x.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).unwrap_or(usize::MAX);
    if x_len > u32::MAX as usize {
        return Err(too_large("X element count", x_len));
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
        return Err(Error::TooLarge {
            what: "PRelu collapsed broadcast rank".into(),
            needed: runs.len() as u64,
            limit: MAX_RANK as u64,
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
    let pattern: Vec<bool> = runs.iter().map(|&(_, b)| b).collect();
    let index = match pattern.as_slice() {
        _ if stride == 1 => SlopeIndex::Scalar,
        [false] => SlopeIndex::Same,
        [false, true] => SlopeIndex::Outer,
        [true, false] => SlopeIndex::Inner,
        [true, false, true] => SlopeIndex::Middle,
        _ => SlopeIndex::General,
    };
    Ok(SlopePlan { dims: runs.iter().map(|&(e, _)| e as u32).collect(), slope_strides, index })
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
        assert_eq!(planned(&[2, 3, 4], &[]).index, SlopeIndex::Scalar);
        assert_eq!(planned(&[2, 3, 4], &[1]).index, SlopeIndex::Scalar);
        assert_eq!(planned(&[2, 3, 4], &[2, 3, 4]).index, SlopeIndex::Same);
        assert_eq!(planned(&[1, 3, 4, 5], &[3, 1, 1]).index, SlopeIndex::Outer);
        assert_eq!(planned(&[2, 3, 4, 5], &[5]).index, SlopeIndex::Inner);
        assert_eq!(planned(&[2, 3, 4, 5], &[4, 5]).index, SlopeIndex::Inner);
        let per_channel = planned(&[2, 3, 4, 5], &[1, 3, 1, 1]);
        assert_eq!(per_channel.index, SlopeIndex::Middle);
        assert_eq!(per_channel.dims, vec![2, 3, 20]);
        assert_eq!(per_channel.slope_strides, vec![0, 1, 0]);
        let outer = planned(&[6, 5, 4], &[6, 1, 1]);
        assert_eq!(outer.slope_window(&(19..41)), Some(0..3));
        assert_eq!(outer.slope_index(40), 2);
        assert_eq!(per_channel.slope_window(&(0..5)), None);
        let mixed = planned(&[2, 3, 4, 5, 6, 7], &[2, 1, 4, 1, 6, 1]);
        assert_eq!(mixed.index, SlopeIndex::General);
        assert_eq!(mixed.slope_strides, vec![24, 0, 6, 0, 1, 0]);
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
}

//! A chain of steps on the CPU, and the results a GPU may give for it.
//!
//! Each step is held to its own bound ([`crate::ops::UlpBounds`]) against the correctly rounded
//! result of its own input, and that input is whatever the step before gave. A chain's
//! allowed results are therefore not "the reference within a fixed number of ULPs": a step
//! that scales its input up (a PRelu slope of 40 after a LeakyRelu whose result is subnormal in
//! f16) scales up the earlier steps' rounding with it. [`allowed`] follows the set of values
//! each step may produce as a range in ULP order: every operator is monotonic on each side of
//! its break at 0, so the image of a range is spanned by the operator at the range's ends and
//! at 0, and rounding keeps that order.

use ndarray::ArrayViewD;

use crate::broadcast::{SlopePlan, plan, unidirectional_slope_shape};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::Step;
use crate::ulp;

use super::prelu_scalar;

/// A PRelu step's slope (or a SwiGLU step's B) as the reference reads it: the flat slope elements `first..`,
/// broadcast to X as `plan` says.
pub(crate) struct CpuSlope<'a, T> {
    pub(crate) values: &'a [T],
    pub(crate) first: u64,
    pub(crate) plan: SlopePlan,
}

impl<T: Copy> CpuSlope<'_, T> {
    /// The slope element for the element at flat index `index` of X, if this part holds it.
    fn at(&self, index: u64) -> Option<T> {
        self.values.get(self.plan.slope_index(index).saturating_sub(self.first) as usize).copied()
    }
}

/// One step of a chain as the reference runs it.
pub(crate) type CpuStep<'a, T> = Step<CpuSlope<'a, T>>;

impl<T: Element> CpuStep<'_, T> {
    /// This step on `value`, the element at flat index `index` of X, rounded to `T` once.
    fn apply(&self, value: T, index: u64) -> T {
        match self {
            Step::Unary(op, attributes) => super::unary_element(op, attributes, value),
            Step::Prelu(slope) => slope.at(index).map_or(value, |s| prelu_scalar(value, s)),
            Step::Swiglu(b, [alpha, ..]) => {
                b.at(index).map_or(value, |b| super::gated::element_of_any(value, b, *alpha))
            }
        }
    }
}

/// What a GPU may give for one element of a chain.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Allowed<T> {
    /// Every step correctly rounded.
    pub(crate) reference: T,
    /// The ULP keys ([`Element::ulp_key`]) of the allowed numbers; `None` while every step so
    /// far is exact, when only the reference itself is allowed (sign included).
    range: Option<(i128, i128)>,
    /// A NaN is allowed (some input in the range gives one).
    nan: bool,
}

impl<T: Element> Allowed<T> {
    /// True when `y` is allowed: the reference itself, sign included, or a number in the range.
    pub(crate) fn admits(&self, y: T) -> bool {
        if ulp::within_ulp(y, self.reference, 0) {
            return true;
        }
        match (y.ulp_key(), self.range) {
            (None, _) => self.nan,
            (Some(key), Some((lo, hi))) => (lo..=hi).contains(&key),
            (Some(_), None) => false,
        }
    }

    /// The farther end of the range from the reference, in ULPs: the bound this element is
    /// held to.
    pub(crate) fn bound(&self) -> u64 {
        match (self.range, self.reference.ulp_key()) {
            (Some((lo, hi)), Some(key)) => (key - lo).max(hi - key).unsigned_abs().min(u128::from(u64::MAX)) as u64,
            _ => 0,
        }
    }
}

/// The results a GPU may give for element `x` at flat index `index` of X after `steps`.
pub(crate) fn allowed<T: Element>(x: T, index: u64, steps: &[CpuStep<'_, T>]) -> Allowed<T> {
    let mut allowed = Allowed { reference: x, range: None, nan: false };
    for step in steps {
        allowed.reference = step.apply(allowed.reference, index);
        let image = match allowed.range {
            None => allowed.reference.ulp_key().map(|k| (k, k)),
            Some((lo, hi)) => {
                let mut ends: Option<(i128, i128)> = None;
                let zero = (lo..=hi).contains(&0).then_some(0);
                for key in [Some(lo), Some(hi), zero].into_iter().flatten() {
                    match step.apply(ulp::from_key::<T>(key), index).ulp_key() {
                        Some(k) => ends = Some(ends.map_or((k, k), |(l, h)| (l.min(k), h.max(k)))),
                        None => allowed.nan = true,
                    }
                }
                ends
            }
        };
        let widen = step.max_ulp().for_dtype(T::DTYPE);
        allowed.range = match (image, allowed.range) {
            (Some((lo, hi)), _) if widen > 0 => Some(widened::<T>(lo, hi, widen)),
            (image, Some(_)) => image,
            (_, None) => None,
        };
    }
    allowed
}

/// `lo - by ..= hi + by` in ULP keys, kept within ±infinity.
fn widened<T: Element>(lo: i128, hi: i128, by: u64) -> (i128, i128) {
    let by = i128::from(by);
    let mut low = lo - by;
    let mut high = hi + by;
    while low < lo && ulp::from_key::<T>(low).ulp_key().is_none() {
        low += 1;
    }
    while high > hi && ulp::from_key::<T>(high).ulp_key().is_none() {
        high -= 1;
    }
    (low, high)
}

/// One step of a chain for [`check_chain`]: a unary operator with its attributes, or PRelu with
/// its slope as a host view, broadcast to X by ONNX's unidirectional rule
/// ([`crate::Activation::reference_step`] gives the step of an activation).
pub type ChainStep<'a, T> = Step<ArrayViewD<'a, T>>;

/// Checks `y`, the result of `steps` on `x` (both read in logical order), element by element:
/// each step may be off by its own bound ([`crate::ops::UnaryOp::max_ulp`]) against the correctly rounded
/// result of whatever its input was, so earlier rounding is carried through later steps,
/// scaled as they scale it. The first element outside is [`Error::ValidationMismatch`].
pub fn check_chain<T: Element>(x: ArrayViewD<'_, T>, steps: &[ChainStep<'_, T>], y: ArrayViewD<'_, T>) -> Result<()> {
    let name = crate::ops::chain_label(steps.iter().map(|s| s.onnx_name()));
    if x.shape() != y.shape() {
        return Err(Error::ShapeMismatch { what: name, expected: x.shape().to_vec(), actual: y.shape().to_vec() });
    }
    let slopes: Vec<(Vec<T>, SlopePlan)> = steps
        .iter()
        .filter_map(|s| s.slope())
        .map(|slope| {
            let aligned = unidirectional_slope_shape(x.shape(), slope.shape())?;
            Ok((slope.iter().copied().collect(), plan(x.shape(), &aligned)?))
        })
        .collect::<Result<_>>()?;
    let mut slope_values = slopes.iter();
    let cpu_steps: Vec<CpuStep<'_, T>> = steps
        .iter()
        .filter_map(|s| {
            s.as_ref()
                .try_map_slope(|_| {
                    let (values, plan) = slope_values.next().ok_or(())?;
                    Ok::<_, ()>(CpuSlope { values, first: 0, plan: plan.clone() })
                })
                .ok()
        })
        .collect();
    let x: Vec<T> = x.iter().copied().collect();
    let y: Vec<T> = y.iter().copied().collect();
    compare(&name, &y, &x, 0, &cpu_steps)
}

/// Compares results `gpu` of a chain on `x` (flat elements `element_base..` of X) with what
/// the chain allows ([`allowed`]): the first element outside is the error.
pub(crate) fn compare<T: Element>(
    chain: &str,
    gpu: &[T],
    x: &[T],
    element_base: u64,
    steps: &[CpuStep<'_, T>],
) -> Result<()> {
    for (i, (&g, &v)) in gpu.iter().zip(x).enumerate() {
        let allowed = allowed(v, element_base + i as u64, steps);
        if !allowed.admits(g) {
            return Err(Error::ValidationMismatch {
                op: chain.to_string(),
                dtype: T::DTYPE,
                index: element_base as usize + i,
                gpu: format!("{g:?}"),
                reference: format!("{:?}", allowed.reference),
                bound: allowed.bound(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::LEAKY_RELU;
    use half::f16;
    use ndarray::{ArrayD, IxDyn, arr1};

    fn leaky<'a>(alpha: f32) -> ChainStep<'a, f16> {
        ChainStep::Unary(&LEAKY_RELU, crate::ops::attributes_from(&[alpha]))
    }

    #[test]
    fn rounding_that_a_later_step_scales_up_is_allowed_and_nothing_beyond_it() {
        // -0.001 x 0.01 is subnormal in f16, where one ULP is 2^-24 whatever the value; a
        // slope of 64 carries LeakyRelu's 1-ULP freedom into 2^-18, 8 ULPs of the (normal)
        // result, where a fixed bound for the chain would allow 2 x 1 + 2 = 4.
        let x = ArrayD::from_elem(IxDyn(&[1]), f16::from_f32(-0.001));
        let slope = arr1(&[f16::from_f32(64.0)]).into_dyn();
        let steps = [leaky(0.01), ChainStep::Prelu(slope.view())];
        let step = crate::cpu::leaky_relu_scalar(x[[0]], 0.01);
        assert!(step.is_subnormal());
        let off_by = |ulps: i128| {
            let intermediate = ulp::from_key::<f16>(step.ulp_key().unwrap() - ulps);
            ArrayD::from_elem(IxDyn(&[1]), prelu_scalar(intermediate, f16::from_f32(64.0)))
        };
        for ulps in [-1, 0, 1] {
            check_chain(x.view(), &steps, off_by(ulps).view()).unwrap();
        }
        for ulps in [-2, 2] {
            let refused = check_chain(x.view(), &steps, off_by(ulps).view());
            assert!(matches!(refused, Err(Error::ValidationMismatch { bound: 8, .. })), "{refused:?}");
        }
    }

    #[test]
    fn exact_chains_allow_the_reference_alone_sign_and_nan_included() {
        let slope = arr1(&[f16::from_f32(0.5)]).into_dyn();
        let steps = [ChainStep::Prelu(slope.view())];
        let x = arr1(&[f16::from_f32(-3.0), f16::NEG_ZERO, f16::NAN]).into_dyn();
        check_chain(x.view(), &steps, arr1(&[f16::from_f32(-1.5), f16::NEG_ZERO, f16::NAN]).into_dyn().view()).unwrap();
        for wrong in [[f16::from_f32(-1.5), f16::ZERO, f16::NAN], [f16::from_f32(-1.5), f16::NEG_ZERO, f16::ZERO]] {
            assert!(check_chain(x.view(), &steps, arr1(&wrong).into_dyn().view()).is_err());
        }
        let next = ulp::from_key::<f16>(f16::from_f32(-1.5).ulp_key().unwrap() - 1);
        assert!(check_chain(x.view(), &steps, arr1(&[next, f16::NEG_ZERO, f16::NAN]).into_dyn().view()).is_err());
    }

    #[test]
    fn a_range_that_reaches_an_operators_nan_allows_it() {
        // LeakyRelu with alpha 0 on -inf is NaN (0 x -inf); a range that reaches -inf after a
        // rounding step allows the NaN too.
        let x = arr1(&[f16::MIN]).into_dyn();
        let steps = [leaky(1.0), leaky(0.0)];
        check_chain(x.view(), &steps, arr1(&[f16::NAN]).into_dyn().view()).unwrap();
        let exact = [leaky(0.0)];
        assert!(check_chain(x.view(), &exact, arr1(&[f16::NAN]).into_dyn().view()).is_err());
    }

    #[test]
    fn keys_map_back_to_their_values() {
        for v in [f16::MIN, f16::from_f32(-1.0), f16::NEG_ZERO, f16::from_bits(1), f16::INFINITY] {
            let back = ulp::from_key::<f16>(v.ulp_key().unwrap());
            assert_eq!(back.ulp_key(), v.ulp_key());
        }
        assert_eq!(ulp::from_key::<f32>(-1.0f32.ulp_key().unwrap()), -1.0);
        assert_eq!(ulp::from_key::<i64>(-5), -5);
        assert_eq!(ulp::from_key::<u32>(u32::MAX.into()), u32::MAX);
    }
}

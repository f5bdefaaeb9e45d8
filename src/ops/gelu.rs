//! CPU twin of `shaders/ops/gelu.wgsl`: `Mul(Mul(0.5, X), Sum(1, Erf(Div(X, Sqrt(2)))))`, or
//! with `approximate = "tanh"` `Mul(Mul(0.5, X), Sum(1, Tanh(Mul(Sqrt(2/pi), Sum(X, Mul(0.044715,
//! Pow(X, 3)))))))`.

use super::{Attributes, GELU};
use crate::real::{Real, times_logistic};

/// 2 sqrt(2/pi) and 0.044715, the real numbers, each as two doubles.
const TWO_SQRT_TWO_OVER_PI: [f64; 2] = [1.595_769_121_605_730_8, -9.969_308_809_110_92e-17];
const CUBIC: [f64; 2] = [0.044_715, 2.196_021_142_708_559_5e-18];

/// Gelu of one element, in the form the kernel runs for `attributes` (its kernel variant):
/// `x Phi(x)`, or `x sigmoid(t)`, t = 2 sqrt(2/pi) (x + 0.044715 x^3), which never forms the
/// cancelling 1 + tanh; `None` (X passes through) for NaN.
pub(crate) fn gelu<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    let tanh_form = GELU.attribute("approximate").and_then(|a| a.value_of("tanh"));
    if tanh_form != Some(f32::from(GELU.kernel_variant(attributes))) {
        return Some(x * x.normal_cdf());
    }
    let pair = |[hi, lo]: [f64; 2]| R::from_f64(hi) + R::from_f64(lo);
    Some(times_logistic(x, pair(TWO_SQRT_TWO_OVER_PI) * (x + pair(CUBIC) * x * x * x)))
}

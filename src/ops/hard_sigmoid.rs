//! CPU twin of `shaders/ops/hard_sigmoid.wgsl`: `Max(Min(alpha * X + beta, 1), 0)`.

use super::{Attributes, ParameterBlock};
use crate::real::Real;

/// HardSigmoid of one element: `max(0, min(1, alpha * x + beta))` with the f32 attributes,
/// `None` (X passes through) for NaN. `alpha * x` of an f32 alpha and an f32, f16 or bf16 x is
/// exact in f64.
pub(crate) fn hard_sigmoid<R: Real>(x: R, attributes: &Attributes) -> Option<R> {
    if x.to_f64().is_nan() {
        return None;
    }
    let line = R::from_f64(f64::from(attributes[0])) * x + R::from_f64(f64::from(attributes[1]));
    Some(match line.to_f64() {
        v if v > 1.0 => R::from_f64(1.0),
        v if v < 0.0 => R::from_f64(0.0),
        _ => line,
    })
}

/// The attribute pairs whose line runs through its zero (`hard_sigmoid_through_zero`): alpha,
/// beta, the f32 z nearest the line's zero -beta / alpha, and alpha z + beta, exactly an f32.
/// There alpha (X - z) + (alpha z + beta) is within 1 ULP of the correctly rounded line over
/// every f32 X, checked by `cargo xtask sweep` (`over_every_f32_hard_sigmoid_lines`), where the
/// spec's body is off by up to 2.9 million ULP near the zero; a pair not listed has no such
/// check and runs the general kernel's exact multiply-add. ONNX's defaults (Keras's
/// hard_sigmoid) and PyTorch's Hardsigmoid (alpha the f32 nearest 1/6).
pub(crate) const LINES_THROUGH_THEIR_ZERO: [[f32; 4]; 2] = [
    [0.2, 0.5, -2.5, f32::from_bits(0xb200_0000)],        // -2^-27
    [0.166_666_67, 0.5, -3.0, f32::from_bits(0xb280_0000)], // -2^-26
];

/// The listed line of `attributes`' alpha and beta, if it is one.
fn line_through_zero(attributes: &Attributes) -> Option<[f32; 4]> {
    LINES_THROUGH_THEIR_ZERO.into_iter().find(|line| line[..2] == attributes[..2])
}

/// Whether `attributes` run the kernel of the line through its zero.
pub(crate) fn runs_through_zero(attributes: &Attributes) -> bool {
    line_through_zero(attributes).is_some()
}

/// The kernel's parameters: alpha and beta, and for a line through its zero its z and alpha z +
/// beta; but where beta is infinite and alpha finite and nonzero, an alpha of its sign and
/// magnitude 2^-126, so that the kernel's alpha X is finite (at most 4) for every finite X,
/// however the compute type would overflow alpha X, and beta decides, as in real arithmetic
/// (inf - inf must not come of it), while an infinite X still gives the body's inf + inf or inf
/// - inf.
pub(crate) fn hard_sigmoid_parameters(attributes: &Attributes) -> ParameterBlock {
    if let Some(line) = line_through_zero(attributes) {
        return line;
    }
    let [alpha, beta, ..] = *attributes;
    let beta_rules = beta.is_infinite() && alpha.is_finite() && alpha != 0.0;
    [if beta_rules { f32::MIN_POSITIVE.copysign(alpha) } else { alpha }, beta, 0.0, 0.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line's z is the f32 nearest its zero, and alpha z + beta is exactly the f32 listed
    /// (alpha z is exact in f64, and so is the sum: the two nearly cancel).
    #[test]
    fn each_line_through_its_zero_is_exact() {
        for [alpha, beta, z, at_zero] in LINES_THROUGH_THEIR_ZERO {
            let zero = -f64::from(beta) / f64::from(alpha);
            let below = f32::from_bits(z.to_bits() - 1);
            let above = f32::from_bits(z.to_bits() + 1);
            for neighbour in [below, above] {
                assert!((f64::from(z) - zero).abs() <= (f64::from(neighbour) - zero).abs(), "{alpha} {beta}");
            }
            assert_eq!(f64::from(alpha) * f64::from(z) + f64::from(beta), f64::from(at_zero), "{alpha} {beta}");
        }
        assert!(runs_through_zero(&crate::ops::HARD_SIGMOID.default_attributes()));
        assert!(!runs_through_zero(&crate::ops::attributes_from(&[0.2, 0.6])));
    }
}

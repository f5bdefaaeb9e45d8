//! Where a step needs no check on its products: for each operator, from its kernel parameters,
//! the magnitudes of x for which every product its kernel takes through `mul` (the products a
//! float unit that flushes subnormals may get wrong: `shaders/compute/f32_product_flag.wgsl`)
//! has normal or zero operands and a normal or zero result. There the float unit's product is
//! IEEE's on any unit, and a GPU that flushes computes the step's products without a check
//! (`shaders/compute/f32_products_guarded.wgsl`); outside, the exact products. The ranges are
//! conservative (a factor of two or more below each bound, which also covers attributes rounded
//! to a 16-bit X): a lane outside only costs the check. A product whose lane the operator
//! discards (the other side of a select) may be anything.

use super::ParameterBlock;

/// Magnitudes `lo..=hi` of x (as f32 bits in the kernel: a NaN lies above every range).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlainRange {
    pub(crate) lo: f32,
    pub(crate) hi: f32,
}

/// The least normal f32, 2^-126.
const NORMAL: f64 = f32::MIN_POSITIVE as f64;

impl PlainRange {
    /// No input: every product checked (an operator whose ranges are not worked out).
    pub(crate) const NEVER: PlainRange = PlainRange { lo: f32::INFINITY, hi: 0.0 };
    /// Every input, NaN aside: a kernel that takes no product through `mul` (Tanh).
    pub(crate) const ALWAYS: PlainRange = PlainRange { lo: 0.0, hi: f32::INFINITY };

    fn new(lo: Option<f64>, hi: f64) -> PlainRange {
        match lo {
            Some(lo) if lo <= hi => PlainRange { lo: round_up(lo), hi: hi.min(f64::from(f32::MAX)) as f32 },
            _ => PlainRange::NEVER,
        }
    }

    /// The range as the kernel reads it: the magnitudes' bits (`slope.yz` of a unary step).
    pub(crate) fn words(self) -> [u32; 2] {
        [self.lo.to_bits(), self.hi.to_bits()]
    }

    /// Whether the kernel takes the float unit's products for `x` (the twin of
    /// `in_plain_range`, lane by lane).
    #[cfg(test)]
    pub(crate) fn holds(self, x: f32) -> bool {
        let [lo, hi] = self.words();
        (lo..=hi).contains(&(x.to_bits() & 0x7fff_ffff))
    }
}

/// The f32 at or above `v`.
fn round_up(v: f64) -> f32 {
    let r = v as f32;
    if f64::from(r) < v { f32::from_bits(r.to_bits() + 1) } else { r }
}

/// The least |x| for which |x factor| / `slack` is normal, and x too: `None` where the factor
/// is subnormal (every product with it is checked). A zero factor makes zeros, which every unit
/// gets right; an infinite or NaN one infinities and NaNs, likewise.
fn normal_product_floor(factor: f32, slack: f64) -> Option<f64> {
    let f = f64::from(factor).abs();
    if factor.is_subnormal() {
        return None;
    }
    Some(if f == 0.0 || !f.is_finite() { NORMAL } else { (NORMAL * slack / f).max(NORMAL) })
}

fn max_floor(floors: &[Option<f64>]) -> Option<f64> {
    floors.iter().try_fold(NORMAL, |m, f| f.map(|f| m.max(f)))
}

/// LeakyRelu: x alpha.
pub(crate) fn leaky_relu(p: &ParameterBlock) -> PlainRange {
    PlainRange::new(normal_product_floor(p[0], 2.0), f64::INFINITY)
}

/// Elu: alpha expm1(x), |expm1(x)| >= min(|x|, 1) / 2 for x < 0.
pub(crate) fn elu(p: &ParameterBlock) -> PlainRange {
    PlainRange::new(normal_product_floor(p[0], 4.0), f64::INFINITY)
}

/// Selu: gamma x, and outer (inner expm1(x)) with inner = gamma alpha, outer = 1 where the
/// product is finite (`p[2]`), else inner = alpha, outer = gamma.
pub(crate) fn selu(p: &ParameterBlock) -> PlainRange {
    let [alpha, gamma, product_first, _] = *p;
    let (inner, outer) = if product_first != 0.0 { (alpha * gamma, 1.0) } else { (alpha, gamma) };
    let lost = alpha != 0.0 && gamma != 0.0 && product_first != 0.0 && (inner == 0.0 || inner.is_subnormal());
    if lost || alpha.is_subnormal() || gamma.is_subnormal() {
        return PlainRange::NEVER;
    }
    let both = (f64::from(inner) * f64::from(outer)) as f32;
    let floors = [normal_product_floor(gamma, 2.0), normal_product_floor(inner, 4.0), normal_product_floor(both, 8.0)];
    PlainRange::new(if both.is_subnormal() { None } else { max_floor(&floors) }, f64::INFINITY)
}

/// Celu: q = x / alpha (x times the f32 nearest 1 / alpha, `p[3]`), then alpha expm1(q).
pub(crate) fn celu(p: &ParameterBlock) -> PlainRange {
    let [alpha, _, _, reciprocal] = *p;
    let q = normal_product_floor(reciprocal, 2.0);
    let back = normal_product_floor((f64::from(alpha) * f64::from(reciprocal)) as f32, 8.0);
    PlainRange::new(max_floor(&[q, back]), f64::INFINITY)
}

/// HardSigmoid: x alpha in `mul_add` (none in the line through its zero, whose alpha bounds it
/// all the same).
pub(crate) fn hard_sigmoid(p: &ParameterBlock) -> PlainRange {
    PlainRange::new(normal_product_floor(p[0], 2.0), f64::INFINITY)
}

/// HardSwish: x gate, the gate 0 or above 2^-26 (its line through -3).
pub(crate) fn hard_swish(_: &ParameterBlock) -> PlainRange {
    PlainRange::new(Some(NORMAL * 4.0), f64::INFINITY)
}

/// Softsign: x y with y in (1/2, 1] below |x| = 1.
pub(crate) fn softsign(_: &ParameterBlock) -> PlainRange {
    PlainRange::new(Some(NORMAL * 4.0), f64::INFINITY)
}

/// Sigmoid and Softplus: scaled_once's product, a result of about e^-|x|, normal to |x| = 87.
pub(crate) fn exp_scaled(_: &ParameterBlock) -> PlainRange {
    PlainRange { lo: 0.0, hi: 86.0 }
}

/// Tanh, Shrink: no checked product.
pub(crate) fn always(_: &ParameterBlock) -> PlainRange {
    PlainRange::ALWAYS
}

/// Swish: t = alpha x, x 2^64 below |x| = 2^-100, and the result |x| sigmoid(alpha x), at least
/// |x| 2^-29 for |alpha x| <= 20 (alpha 1's own kernel takes fewer, within the same range).
pub(crate) fn swish(p: &ParameterBlock) -> PlainRange {
    PlainRange::new(max_floor(&[normal_product_floor(p[0], 4.0), Some(2f64.powi(-96))]), gate_top(p[0]))
}

/// The largest |x| whose sigmoid(alpha x) stays at or above 2^-29: |alpha x| <= 20.
fn gate_top(alpha: f32) -> f64 {
    let magnitude = f64::from(alpha).abs();
    if magnitude == 0.0 { f64::INFINITY } else { 20.0 / magnitude }
}

/// SwiGLU's (a b) sigmoid(alpha a), for a: t = alpha a normal (alpha 1's own kernel takes no
/// such product, within the same range) and at most 20 in magnitude, so that sigmoid(t) >= 2^-29.
/// The kernel tests a b apart: at least [`GATED_PRODUCT_FLOOR`] and finite, the result |a b| sigmoid(t)
/// stays normal, and `mul(x, 2^64)` (below 2^-100) is discarded; a flushed a b (a subnormal
/// factor) or a NaN fails that test.
pub(crate) fn swiglu(alpha: f32) -> PlainRange {
    PlainRange::new(normal_product_floor(alpha, 4.0), gate_top(alpha))
}

/// The least |a b| in a gated step's plain range (`in_gated_plain_range` in
/// `shaders/compute/f32_products_guarded.wgsl`, whose `GATED_PRODUCT_FLOOR` holds its bits).
#[cfg(test)]
pub(crate) const GATED_PRODUCT_FLOOR: f32 = f32::from_bits(0x0f80_0000); // 2^-96

/// Mish: the result about |x| e^x, normal to x = -80; x times a gate below |x| = 2^-100.
pub(crate) fn mish(_: &ParameterBlock) -> PlainRange {
    PlainRange::new(Some(2f64.powi(-96)), 80.0)
}

/// Gelu, both forms: the result |x| Phi(x) or |x| sigmoid(t), normal to x = -10 in both; x times
/// about 1/2 (or 2^64) for the smallest.
pub(crate) fn gelu(_: &ParameterBlock) -> PlainRange {
    PlainRange::new(Some(2f64.powi(-96)), 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_normal_magnitudes_or_never() {
        let lo = leaky_relu(&[0.01, 0.0, 0.0, 0.0]).lo;
        assert!((lo * 0.01).is_normal() && (lo * 0.006).is_normal() && (lo * 0.004) < f32::MIN_POSITIVE);
        assert_eq!(leaky_relu(&[0.0; 4]).lo, f32::MIN_POSITIVE);
        assert_eq!(leaky_relu(&[1e-39, 0.0, 0.0, 0.0]), PlainRange::NEVER);
        assert!(!PlainRange::NEVER.holds(1.0) && !PlainRange::NEVER.holds(0.0));
        assert!(PlainRange::ALWAYS.holds(f32::INFINITY) && !PlainRange::ALWAYS.holds(f32::NAN));
        let range = swish(&[1.702, 0.0, 0.0, 0.0]);
        assert!(range.holds(-5.0) && range.holds(11.0) && !range.holds(12.0) && !range.holds(1e-30));
        // Selu's defaults: gamma alpha is normal; a subnormal product of its attributes is never plain.
        assert!(
            selu(&super::super::selu::selu_parameters(&crate::ops::attributes_from(&[1.673_263_2, 1.050_701])))
                .holds(-3.0)
        );
        assert_eq!(
            selu(&super::super::selu::selu_parameters(&crate::ops::attributes_from(&[1e-20, 1e-20]))),
            PlainRange::NEVER
        );
        assert_eq!(round_up(0.1), f32::from_bits(0.1f32.to_bits() + u32::from(f64::from(0.1f32) < 0.1)));
        // SwiGLU's a: alpha a normal and |alpha a| <= 20; the floor of a b is the kernel's.
        let range = swiglu(1.702);
        assert!(range.holds(-11.0) && !range.holds(12.0) && !range.holds(1e-38) && range.holds(1e-37));
        assert!(swiglu(0.0).holds(1e30) && !swiglu(0.0).holds(1e-39));
        assert_eq!(swiglu(1e-40), PlainRange::NEVER);
        assert_eq!(GATED_PRODUCT_FLOOR, 2f32.powi(-96));
        let wgsl = include_str!("../../shaders/compute/f32_products_guarded.wgsl");
        let floor = format!("const GATED_PRODUCT_FLOOR: u32 = {:#010x}u;", GATED_PRODUCT_FLOOR.to_bits());
        assert!(wgsl.contains(&floor), "{floor}");
    }
}

//! CPU twin of the expm1 in `shaders/shared/expm1_half.wgsl` (f16 and bf16 Elu), and the proof
//! that its bound holds on every conforming driver: the kernel calls the driver's `exp()`, which
//! WGSL only bounds (3 + 2|x| ULP of f32), so the twin takes the exponential as a parameter and
//! the tests run it with both extremes of that bound, over every 16-bit pattern.

/// The twin: `exp` stands for the driver's exponential.
pub(crate) fn expm1_half(x: f32, exp: impl Fn(f32) -> f32) -> f32 {
    if x < -17.5 {
        return -1.0;
    }
    if x.abs() < 5.960_464_5e-8 {
        return x; // 2^-24: the series rounds to x (the WGSL returns x to keep a flushed sign)
    }
    if x.abs() < 0.015625 {
        return x + x * x * (0.5 + x * (1.0 / 6.0));
    }
    exp(x) - 1.0
}

/// The exponential of `x` moved by `ulps` of its own value (the spec allows 3 + 2|x|).
pub(crate) fn exp_off_by(x: f32, ulps: f32) -> f32 {
    let exact = (x as f64).exp();
    let ulp = f64::from(f32::from_bits(exact as f32 as u32 & 0x7f80_0000)) * f64::from(f32::EPSILON);
    (exact + f64::from(ulps) * ulp) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::FloatElement;
    use crate::ulp::within_ulp;
    use half::{bf16, f16};

    /// Elu(alpha) of every negative 16-bit value, with the driver's exp at either edge of what
    /// the spec allows, stays within 1 ULP of the correctly rounded result.
    fn every_pattern<T: FloatElement>(from_bits: fn(u16) -> T) {
        for alpha in [1.0f32, 0.7, 0.01, -2.5, 3.0] {
            for bits in 0x8001u16..=0xffff {
                let x = from_bits(bits);
                let v = x.to_f64() as f32;
                if !v.is_finite() || v >= 0.0 {
                    continue;
                }
                let exact = T::from_f64(f64::from(alpha) * (x.to_f64()).exp_m1());
                let allowed = 3.0 + 2.0 * v.abs();
                for ulps in [-allowed, 0.0, allowed] {
                    let computed = T::from_f64(f64::from(alpha * expm1_half(v, |t| exp_off_by(t, ulps))));
                    assert!(
                        within_ulp(computed, exact, 1),
                        "{} alpha {alpha} x {v:e} exp off by {ulps}: {computed:?} vs {exact:?}",
                        T::DTYPE
                    );
                }
            }
        }
    }

    #[test]
    fn f16_elu_within_one_ulp_for_any_conforming_exp() {
        every_pattern(f16::from_bits);
    }

    #[test]
    fn bf16_elu_within_one_ulp_for_any_conforming_exp() {
        every_pattern(bf16::from_bits);
    }
}

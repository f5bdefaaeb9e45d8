//! CPU twin of `shaders/math/common.wgsl`: the functions written on the Compute interface alone,
//! here generic over [`Steps`] (f32, f32 with a division off by up to 2 ULP, native f64 and
//! software f64), so that one check covers every arithmetic the kernels run them in.

use super::compute::Steps;

/// `clamp_to_unit` of `compute/f32.wgsl` and `compute/f64_lanes.wgsl`: max(0, min(1, c)), NaN
/// and -0.0 kept.
pub(crate) fn clamp_to_unit<S: Steps>(c: S) -> S {
    let (one, zero) = (S::constant(1.0), S::constant(0.0));
    let c = if c.greater(one) { one } else { c };
    if zero.greater(c) { zero } else { c }
}

/// `softsign_quotient`: x / (1 + |x|).
pub(crate) fn softsign_quotient<S: Steps>(x: S) -> S {
    let one = S::constant(1.0);
    let cap = S::constant(1_152_921_504_606_846_976.0); // 2^60
    let a = if x.absolute().greater(cap) { cap } else { x.absolute() };
    let y0 = one.quotient(one.add(a));
    let y = y0.add(y0.mul(a.negate().mul_add(y0, one.sub(y0))));
    if one.greater(a) {
        x.mul(y)
    } else if S::constant(0.0).greater(x) {
        one.sub(y).negate()
    } else {
        one.sub(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::compute::{F32OffByTwo, Soft};
    use crate::cpu::{Exact, Real};
    use crate::ulp::ulp_distance;

    fn softsign_exact(x: f64) -> f64 {
        let a = Exact::from_f64(x.abs());
        (a / (a + Exact::from_f64(1.0))).to_f64().copysign(x)
    }

    /// Every 997th f32 bit pattern (about 4.3 million, every magnitude), for both divisions.
    #[test]
    fn softsign_within_an_ulp_in_f32_for_any_conforming_division() {
        for i in 0..=u32::MAX / 997 {
            let x = f32::from_bits(i * 997);
            if x.is_nan() {
                continue;
            }
            let exact = softsign_exact(f64::from(x)) as f32;
            for got in [softsign_quotient(x), softsign_quotient(F32OffByTwo(x)).0] {
                let d = ulp_distance(got, exact).unwrap_or(u64::MAX);
                assert!(d <= 1, "softsign({x:e}) = {got:e}, correctly rounded {exact:e}");
            }
        }
    }

    #[test]
    fn softsign_within_an_ulp_in_f64_on_both_paths() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..1u32 << 17 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let magnitude =
                (1e-300f64.ln() + (1e300f64.ln() - 1e-300f64.ln()) * f64::from(i) / f64::from(1u32 << 17)).exp();
            for x in [magnitude, -magnitude, f64::from_bits(state)] {
                if x.is_nan() {
                    continue;
                }
                let exact = softsign_exact(x);
                for got in [softsign_quotient(x), softsign_quotient(Soft::constant(x)).value()] {
                    let d = ulp_distance(got, exact).unwrap_or(u64::MAX);
                    assert!(d <= 1, "softsign({x:e}) = {got:e}, correctly rounded {exact:e}");
                }
            }
        }
        for (x, want) in [(f64::INFINITY, 1.0f64), (f64::NEG_INFINITY, -1.0), (-0.0, -0.0), (5e-324, 5e-324)] {
            assert_eq!(softsign_quotient(x).to_bits(), want.to_bits(), "softsign({x})");
        }
    }

    #[test]
    fn clamp_keeps_nan_and_the_sign_of_zero() {
        assert!(clamp_to_unit(f64::NAN).is_nan());
        assert!(clamp_to_unit(-0.0f64).is_sign_negative());
        assert_eq!(clamp_to_unit(-3.0f32), 0.0);
        assert_eq!(clamp_to_unit(7.0f32), 1.0);
        assert_eq!(clamp_to_unit(0.25f32), 0.25);
    }

    /// Every f32 input, both divisions: `cargo xtask sweep`.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn softsign_over_every_f32() {
        let worst = std::thread::scope(|scope| {
            let halves = [0u32..=0x7fff_ffff, 0x8000_0000..=u32::MAX].map(|half| {
                scope.spawn(move || {
                    let mut worst = 0;
                    for bits in half {
                        let x = f32::from_bits(bits);
                        if x.is_nan() {
                            continue;
                        }
                        let exact = softsign_exact(f64::from(x)) as f32;
                        for got in [softsign_quotient(x), softsign_quotient(F32OffByTwo(x)).0] {
                            worst = worst.max(ulp_distance(got, exact).unwrap_or(u64::MAX));
                        }
                    }
                    worst
                })
            });
            halves.map(|h| h.join().expect("sweep thread")).into_iter().max().unwrap_or(0)
        });
        println!("math_common twin: softsign max error {worst} ULP over every f32, either division");
        assert!(worst <= 1);
    }
}

//! CPU twin of `shaders/math/f64.wgsl`, step for step, written once on [`Steps`] like the WGSL on
//! its `d_*` functions: with f64 steps it is the native path, with `Soft` steps (the twin of
//! `shared/soft_f64.wgsl`) the software path. Both arithmetics round correctly, so the two agree
//! bit for bit wherever the algorithm does not divide (the software path's quotient is its own
//! Newton iteration), and the tests hold both to the WGSL's bounds against [`super::Exact`].

#[cfg(test)]
use super::compute::Soft;
use super::compute::Steps;

/// The WGSL constants, in its order.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// 1/13! down to 1/2, the Horner coefficients.
const EXP_Q: [f64; 12] = [
    1.0 / 6_227_020_800.0,
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];
const EXPM1_SATURATION: f64 = -38.0;
const EXPM1_IDENTITY: f64 = -5.551_115_123_125_783e-17;
const TANH_IDENTITY: f64 = 7.450_580_596_923_828e-9;
const TANH_SATURATION: f64 = 19.1;
const SIGMOID_UNDERFLOW: f64 = 746.0;

fn c<S: Steps>(v: f64) -> S {
    S::constant(v)
}

/// `d_exp_parts`: `(k, p)` with e^x = 2^k (1 + p).
fn exp_parts<S: Steps>(x: S) -> (i32, S) {
    let k = x.mul(c(INV_LN2)).add(c(0.5)).floor_int();
    let kf = S::from_int(k);
    let r = x.sub(kf.mul(c(LN2_HI))).sub(kf.mul(c(LN2_LO)));
    let q = EXP_Q[1..].iter().fold(c::<S>(EXP_Q[0]), |q, &coefficient| c::<S>(coefficient).add(r.mul(q)));
    (k, r.add(r.mul(r).mul(q)))
}

/// `d_expm1`, for x <= 0.
pub(crate) fn expm1<S: Steps>(x: S) -> S {
    if x.less(c(EXPM1_SATURATION)) {
        return c(-1.0);
    }
    if c::<S>(EXPM1_IDENTITY).less(x) {
        return x;
    }
    let (k, p) = exp_parts(x);
    let two_k = S::power_of_two(k);
    p.mul(two_k).add(two_k.add(c(-1.0)))
}

/// `d_reciprocal_of_one_plus`, for 0 <= u <= 1.
fn reciprocal_of_one_plus<S: Steps>(u: S) -> S {
    let one = c::<S>(1.0);
    let y = one.quotient(one.add(u));
    let r = u.negate().mul_add(y, one.sub(y));
    y.add(y.mul(r))
}

/// `d_logistic`.
pub(crate) fn logistic<S: Steps>(x: S) -> S {
    let mut t = x.absolute().negate();
    if t.less(c(-SIGMOID_UNDERFLOW)) {
        t = c(-SIGMOID_UNDERFLOW);
    }
    let (k, p) = exp_parts(t);
    let e = c::<S>(1.0).add(p).mul(S::power_of_two(k.max(-1022)));
    let y = reciprocal_of_one_plus(e);
    if x.greater(c(0.0)) {
        return y;
    }
    let m = y.add(p.mul(y));
    let first = k.max(-1000);
    m.mul(S::power_of_two(first)).mul(S::power_of_two(k - first))
}

/// `d_hyperbolic_tangent`.
pub(crate) fn hyperbolic_tangent<S: Steps>(x: S) -> S {
    let a = x.absolute();
    if a.less(c(TANH_IDENTITY)) {
        return x;
    }
    let clamped = if c::<S>(TANH_SATURATION).less(a) { c(TANH_SATURATION) } else { a };
    let (k, p) = exp_parts(c::<S>(-2.0).mul(clamped));
    let two_k = S::power_of_two(k);
    let y = reciprocal_of_one_plus(c::<S>(1.0).add(p).mul(two_k));
    let t = p.mul(two_k).add(two_k.add(c(-1.0))).negate().mul(y);
    if x.less(c(0.0)) { t.negate() } else { t }
}

/// `d_softsign_quotient`.
pub(crate) fn softsign_quotient<S: Steps>(x: S) -> S {
    let one = c::<S>(1.0);
    let a = x.absolute();
    if a.greater(c(f64::MAX)) {
        return a.sub(a);
    }
    let y0 = one.quotient(one.add(a));
    let y = y0.add(y0.mul(a.negate().mul_add(y0, one.sub(y0))));
    match () {
        _ if a.less(one) => x.mul(y),
        _ if x.less(c(0.0)) => one.sub(y).negate(),
        _ => one.sub(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{Exact, Real};
    use crate::ulp::ulp_distance;

    /// Every `{{F64 ...}}` constant of the WGSL, in order (the comments' placeholders aside).
    fn wgsl_constants() -> Vec<f64> {
        let wgsl = include_str!("../../shaders/math/f64.wgsl");
        wgsl.split("{{F64 ")
            .skip(1)
            .filter_map(|rest| rest[..rest.find("}}").expect("closed")].trim().parse().ok())
            .collect()
    }

    #[test]
    fn constants_match_the_wgsl() {
        let mut expected = vec![LN2_HI, LN2_LO, INV_LN2, 0.5, 1.0, -1.0, f64::MAX];
        expected.extend(EXP_Q);
        expected.extend([EXPM1_SATURATION, EXPM1_IDENTITY, TANH_IDENTITY, TANH_SATURATION, SIGMOID_UNDERFLOW]);
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&wgsl_constants()[..expected.len()]), bits(&expected));
    }

    /// Log-spaced magnitudes of both signs from 1e-300 to 800, and random bit patterns within.
    fn inputs(n: usize) -> Vec<f64> {
        let (lo, hi) = (1e-300f64.ln(), 800f64.ln());
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut values = Vec::with_capacity(2 * n);
        for i in 0..n {
            let magnitude = (lo + (hi - lo) * i as f64 / n as f64).exp();
            values.push(if i % 2 == 0 { magnitude } else { -magnitude });
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.push(f64::from_bits(state & 0x408f_ffff_ffff_ffff | (state & 1 << 63)));
        }
        values
    }

    fn sigmoid_exact(x: f64) -> f64 {
        let one = Exact::from_f64(1.0);
        let e = Exact::from_f64(-x.abs()).exp();
        if x > 0.0 { (one / (one + e)).to_f64() } else { (e / (one + e)).to_f64() }
    }

    fn tanh_exact(x: f64) -> f64 {
        let t = Exact::from_f64(-2.0 * x.abs()).expm1();
        (-t / (Exact::from_f64(2.0) + t)).to_f64().copysign(x)
    }

    /// The worst ULP distance of `f` (on both arithmetics) from the correctly rounded result.
    fn worst(
        n: usize,
        f: fn(f64) -> f64,
        soft: fn(Soft) -> Soft,
        exact: fn(f64) -> f64,
        domain: fn(f64) -> bool,
    ) -> u64 {
        let mut worst = 0;
        for x in inputs(n).into_iter().filter(|&x| domain(x)) {
            let e = exact(x);
            for got in [f(x), soft(Soft::constant(x)).value()] {
                let d = ulp_distance(got, e).unwrap_or(u64::MAX);
                assert!(d <= 2, "{x:e}: {got:e}, correctly rounded {e:e}");
                worst = worst.max(d);
            }
        }
        worst
    }

    fn softsign_exact(x: f64) -> f64 {
        let a = Exact::from_f64(x.abs());
        (a / (a + Exact::from_f64(1.0))).to_f64().copysign(x)
    }

    fn check(n: usize) -> [u64; 4] {
        let negative = |x: f64| x <= 0.0;
        [
            worst(n, expm1::<f64>, expm1::<Soft>, |x| Exact::from_f64(x).expm1().to_f64(), negative),
            worst(n, logistic::<f64>, logistic::<Soft>, sigmoid_exact, |_| true),
            worst(n, hyperbolic_tangent::<f64>, hyperbolic_tangent::<Soft>, tanh_exact, |_| true),
            worst(n, softsign_quotient::<f64>, softsign_quotient::<Soft>, softsign_exact, |_| true),
        ]
    }

    #[test]
    fn within_their_bounds_on_both_paths() {
        let [expm1, sigmoid, tanh, softsign] = check(1 << 15);
        assert!(expm1 <= 1 && sigmoid <= 2 && tanh <= 2 && softsign <= 1, "{expm1} {sigmoid} {tanh} {softsign}");
    }

    #[test]
    fn the_two_paths_agree_bit_for_bit_where_nothing_divides() {
        for x in inputs(1 << 15).into_iter().filter(|&x| x <= 0.0) {
            assert_eq!(expm1::<f64>(x).to_bits(), expm1(Soft::constant(x)).value().to_bits(), "{x:e}");
        }
    }

    /// `cargo xtask sweep`: 2^22 inputs per function on both paths.
    #[test]
    #[ignore = "a sweep: cargo xtask sweep"]
    fn sweep_of_four_million_inputs() {
        let [expm1, sigmoid, tanh, softsign] = check(1 << 21);
        println!(
            "math_f64 twin over 2^22 inputs, native and software steps: expm1 {expm1} ULP, sigmoid {sigmoid} ULP, tanh {tanh} ULP, softsign {softsign} ULP"
        );
        assert!(expm1 <= 1);
    }
}

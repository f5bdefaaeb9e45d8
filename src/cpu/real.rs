//! The arithmetic the operators' CPU twins are written in (`src/ops/<op>.rs`), once, generic over
//! [`Real`]:
//!
//! - `f64`, the platform's arithmetic, fast, within about an ULP of f64: the reference of f32,
//!   f16 and bf16 results, which it rounds once (it is some 2^29 times finer than an f32 ULP);
//! - [`Exact`], a double-double (about 106 significant bits) with an exponent of its own, so
//!   that nothing underflows or overflows on the way: rounded once to f64 it is the correctly
//!   rounded f64 result, subnormal results included. The reference of f64 results.
//!
//! A twin is written without cancellation (`expm1(x)`, not `exp(x) - 1`), so that its formula
//! loses nothing in either arithmetic.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A real number type the twins compute in: `f64` or [`Exact`].
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    /// `v` exactly.
    fn from_f64(v: f64) -> Self;
    /// Rounded once to f64 (to nearest, ties to even).
    fn to_f64(self) -> f64;
    /// e^x - 1.
    fn expm1(self) -> Self;
    /// e^x.
    fn exp(self) -> Self;
    /// ln(1 + x), for x > -1.
    fn ln_1p(self) -> Self;
    /// True when below 0 (false for -0.0 and NaN).
    fn is_negative(self) -> bool {
        self.to_f64() < 0.0
    }
}

impl Real for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn expm1(self) -> Self {
        self.exp_m1()
    }
    fn exp(self) -> Self {
        f64::exp(self)
    }
    fn ln_1p(self) -> Self {
        f64::ln_1p(self)
    }
}

/// A real number as `(hi + lo) * 2^exponent`: `hi + lo` a normalised double-double (`|lo| <=
/// ulp(hi) / 2`) with `0.5 <= |hi| < 1`, or a zero, an infinity or a NaN in `hi` (then `lo` and
/// `exponent` are 0). About 106 significant bits, and an exponent that neither overflows nor
/// underflows within the twins' formulas.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exact {
    hi: f64,
    lo: f64,
    exponent: i64,
}

/// `a + b` as an exact sum `(s, e)`.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a + b` as an exact sum, for `|a| >= |b|` (or `a` zero).
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `a * b` as an exact sum.
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// 2^k for -1022 <= k <= 1023, exactly.
fn power_of_two(k: i64) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// `v * 2^k` for a normal `v` whose result stays normal, exactly (in two steps where 2^k alone
/// is out of range).
fn scaled(v: f64, k: i64) -> f64 {
    let first = k.clamp(-1000, 1000);
    v * power_of_two(first) * power_of_two(k - first)
}

/// ln 2 as three doubles; the first has 32 significant bits, so `k * LN2[0]` is exact for
/// |k| < 2^21.
const LN2: [f64; 3] = [0.693_147_180_369_123_8, 1.908_214_929_270_587_7e-10, 1.161_222_722_936_253_2e-26];

impl Exact {
    /// A double-double sum at scale `exponent`, normalised.
    fn from_parts(hi: f64, lo: f64, exponent: i64) -> Exact {
        let (hi, lo) = quick_two_sum(hi, lo);
        if hi == 0.0 || !hi.is_finite() {
            return Exact { hi, lo: 0.0, exponent: 0 };
        }
        // hi is normal: its exponent, and a scaling that moves it into [0.5, 1) exactly.
        let e = ((hi.to_bits() >> 52) & 0x7ff) as i64 - 1022;
        Exact { hi: scaled(hi, -e), lo: scaled_or_zero(lo, -e), exponent: exponent + e }
    }

    /// The value at scale 2^`exponent` as a double-double (nothing lost where it stays normal).
    fn at_scale(self, exponent: i64) -> (f64, f64) {
        let shift = self.exponent - exponent;
        if shift < -1100 {
            return (0.0, 0.0);
        }
        (scaled_or_zero(self.hi, shift), scaled_or_zero(self.lo, shift))
    }

    fn is_ordinary(self) -> bool {
        self.hi != 0.0 && self.hi.is_finite()
    }

    /// The value as a double-double at scale 1, for arguments that are moderate (|x| < 2^60).
    fn plain(self) -> (f64, f64) {
        if !self.is_ordinary() { (self.hi, 0.0) } else { self.at_scale(0) }
    }

    /// Division by a small integer `n`, to full precision.
    fn divided_by(self, n: f64) -> Exact {
        self / Exact::from_f64(n)
    }

    /// expm1 of a moderate argument (|x| <= 0.36) by its Taylor series, to full precision.
    fn expm1_series(self) -> Exact {
        let mut term = self;
        let mut sum = self;
        for n in 2..60 {
            term = (term * self).divided_by(f64::from(n));
            sum = sum + term;
            if !term.is_ordinary() || term.exponent < sum.exponent - 110 {
                break;
            }
        }
        sum
    }

    /// `(k, r)` with x = k ln2 + r, |r| <= ln2 / 2 (about), for |x| < 2^20.
    fn reduced(self) -> (i64, Exact) {
        let (hi, lo) = self.plain();
        let k = (hi / LN2[0]).round();
        let (p1, e1) = two_product(-k, LN2[1]);
        let r = Exact::from_parts(hi, lo, 0)
            + Exact::from_f64(-k * LN2[0]) // exact: k has at most 21 bits
            + Exact::from_parts(p1, e1, 0)
            + Exact::from_f64(-k * LN2[2]);
        (k as i64, r)
    }
}

/// `v * 2^k`, exact where the result is normal, rounded where it is subnormal (only for terms
/// far below the leading one), 0 below that.
fn scaled_or_zero(v: f64, k: i64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let e = ((v.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    if e + k < -1100 {
        return 0.0;
    }
    if e + k > 1100 {
        return v * f64::INFINITY;
    }
    scaled(v, k.clamp(-2000, 2000))
}

impl Real for Exact {
    fn from_f64(v: f64) -> Self {
        if v == 0.0 || !v.is_finite() {
            return Exact { hi: v, lo: 0.0, exponent: 0 };
        }
        // Subnormals are scaled up first, so that the exponent read from the bits is right.
        if v.abs() < f64::MIN_POSITIVE {
            let up = Exact::from_f64(v * power_of_two(600));
            return Exact { exponent: up.exponent - 600, ..up };
        }
        Exact::from_parts(v, 0.0, 0)
    }

    fn to_f64(self) -> f64 {
        if !self.is_ordinary() {
            return self.hi;
        }
        // |value| lies in [2^(exponent - 1), 2^exponent).
        if self.exponent > 1024 {
            return self.hi * f64::INFINITY;
        }
        if self.exponent >= -1021 {
            // Normal: hi is hi + lo rounded (the pair is normalised), and the scaling is exact.
            // The one inexact case, lo exactly half an ULP, is a tie that hi + lo settles.
            return scaled(self.hi + self.lo, self.exponent);
        }
        // Subnormal: round (hi + lo) * 2^(exponent + 1074) to an integer, ties to even.
        if self.exponent < -1080 {
            return 0.0 * self.hi;
        }
        let shift = self.exponent + 1074;
        let (hi, lo) = (self.hi * power_of_two(shift), self.lo * power_of_two(shift));
        // hi - n is exact, and a multiple of hi's ULP: only where it is half an integer can lo
        // (below half that ULP) decide the rounding.
        let mut n = hi.round_ties_even();
        let odd = n.rem_euclid(2.0) == 1.0;
        match hi - n {
            0.5 if lo > 0.0 || (lo == 0.0 && odd) => n += 1.0,
            -0.5 if lo < 0.0 || (lo == 0.0 && odd) => n -= 1.0,
            _ => {}
        }
        n * power_of_two(-1022) * power_of_two(-52)
    }

    fn expm1(self) -> Self {
        if !self.is_ordinary() {
            return Exact::from_f64(self.hi.exp_m1());
        }
        if self.exponent <= -2 {
            // |x| < 0.25
            return self.expm1_series();
        }
        self.exp() - Exact::from_f64(1.0)
    }

    fn exp(self) -> Self {
        if !self.is_ordinary() {
            return Exact::from_f64(self.hi.exp());
        }
        if self.exponent > 20 {
            // |x| >= 2^20: far beyond every f64 result
            return Exact::from_f64(if self.hi > 0.0 { f64::INFINITY } else { 0.0 });
        }
        if self.exponent < -60 {
            return Exact::from_f64(1.0) + self;
        }
        let (k, r) = self.reduced();
        let m = Exact::from_f64(1.0) + r.expm1_series();
        Exact { exponent: m.exponent + k, ..m }
    }

    /// Two Newton steps on expm1(y) = x from f64's ln_1p: each squares the relative error
    /// (2^-52, then beyond the double-double's 2^-106).
    fn ln_1p(self) -> Self {
        if !self.is_ordinary() {
            return Exact::from_f64(self.hi.ln_1p());
        }
        let mut y = Exact::from_f64(self.to_f64().ln_1p());
        for _ in 0..2 {
            y = y + (self - y.expm1()) * (-y).exp();
        }
        y
    }
}

impl Neg for Exact {
    type Output = Exact;
    fn neg(self) -> Exact {
        Exact { hi: -self.hi, lo: -self.lo, exponent: self.exponent }
    }
}

impl Add for Exact {
    type Output = Exact;
    fn add(self, other: Exact) -> Exact {
        if !self.is_ordinary() || !other.is_ordinary() {
            if self.hi == 0.0 && other.is_ordinary() {
                return other;
            }
            if other.hi == 0.0 && self.is_ordinary() {
                return self;
            }
            return Exact::from_f64(self.hi + other.hi);
        }
        let exponent = self.exponent.max(other.exponent);
        let (a_hi, a_lo) = self.at_scale(exponent);
        let (b_hi, b_lo) = other.at_scale(exponent);
        let (s, e) = two_sum(a_hi, b_hi);
        let (t, f) = two_sum(a_lo, b_lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (s, e) = quick_two_sum(s, e + f);
        Exact::from_parts(s, e, exponent)
    }
}

impl Sub for Exact {
    type Output = Exact;
    fn sub(self, other: Exact) -> Exact {
        self + (-other)
    }
}

impl Mul for Exact {
    type Output = Exact;
    fn mul(self, other: Exact) -> Exact {
        if !self.is_ordinary() || !other.is_ordinary() {
            return Exact::from_f64(self.hi * other.hi);
        }
        let (p, e) = two_product(self.hi, other.hi);
        let e = e + (self.hi * other.lo + self.lo * other.hi);
        Exact::from_parts(p, e, self.exponent + other.exponent)
    }
}

impl Div for Exact {
    type Output = Exact;
    fn div(self, other: Exact) -> Exact {
        if !self.is_ordinary() || !other.is_ordinary() {
            return Exact::from_f64(self.hi / other.hi);
        }
        // Three quotient digits, each from the remainder of the last: about 150 bits.
        let (a, b) = (Exact { exponent: 0, ..self }, Exact { exponent: 0, ..other });
        let q1 = a.hi / b.hi;
        let r = a - b * Exact::from_f64(q1);
        let q2 = r.to_f64() / b.hi;
        let r = r - b * Exact::from_f64(q2);
        let q3 = r.to_f64() / b.hi;
        let q = Exact::from_f64(q1) + Exact::from_f64(q2) + Exact::from_f64(q3);
        Exact { exponent: q.exponent + self.exponent - other.exponent, ..q }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    fn exact(v: f64) -> Exact {
        Exact::from_f64(v)
    }

    #[test]
    fn round_trips_and_rounds_subnormals_once() {
        for v in [1.0, -3.5, 1e300, -1e-300, 5e-324, -2.5e-320, f64::MAX, f64::MIN_POSITIVE, 0.1] {
            assert_eq!(exact(v).to_f64(), v, "{v:e}");
        }
        assert!(exact(-0.0).to_f64().is_sign_negative());
        assert!(exact(f64::NAN).to_f64().is_nan());
        // (1 + 2^-60) * 2^-1074 rounds to 2^-1074; (0.5 + 2^-60) * 2^-1074 rounds up to it too.
        let tiny = exact(5e-324);
        assert_eq!((tiny * (exact(1.0) + exact(2f64.powi(-60)))).to_f64(), 5e-324);
        assert_eq!((tiny * (exact(0.5) + exact(2f64.powi(-60)))).to_f64(), 5e-324);
        assert_eq!((tiny * exact(0.5)).to_f64(), 0.0, "a tie goes to the even 0");
        assert_eq!((tiny * exact(1.5)).to_f64(), 1e-323, "a tie goes to the even 2");
        // Far beyond f64: products and quotients keep every bit of their operands.
        let huge = exact(1e300) * exact(1e300) * exact(1e300);
        assert_eq!((huge / exact(1e300) / exact(1e300)).to_f64(), 1e300);
    }

    #[test]
    fn sums_keep_what_doubles_lose() {
        let one = exact(1.0);
        let small = exact(2f64.powi(-80));
        assert_eq!(((one + small) - one).to_f64(), 2f64.powi(-80));
        assert!((exact(1.0) / exact(3.0) * exact(3.0) - one).to_f64().abs() < 1e-30);
    }

    /// Values from mpmath at 300 bits (of the f64 inputs), rounded once to f64.
    #[test]
    fn ln_1p_inverts_expm1() {
        for x in [1e-300, 3e-20, 1e-9, 0.25, 0.5, 0.75, 1.0, 123.0, 1e300] {
            let y = exact(x).ln_1p();
            let back = (y.expm1() - exact(x)).to_f64().abs();
            assert!(back <= x * 1e-30, "{x:e}: expm1(ln_1p(x)) - x = {back:e}");
            assert!(crate::ulp::ulp_distance(y.to_f64(), x.ln_1p()).unwrap() <= 1, "{x:e}");
        }
    }

    #[test]
    fn exp_and_expm1_are_correctly_rounded_on_known_values() {
        let cases = [
            (1.0, 1.718_281_828_459_045_3, std::f64::consts::E),
            (-1.0, -0.632_120_558_828_557_7, 0.367_879_441_171_442_33),
            (1e-10, 1.000_000_000_05e-10, 1.000_000_000_1),
            (-20.0, -0.999_999_997_938_846_4, 2.061_153_622_438_558e-9),
            (0.3, 0.349_858_807_576_003_1, 1.349_858_807_576_003_2),
            (-745.1, -1.0, 5e-324),
            (700.0, 1.014_232_054_735_004_5e304, 1.014_232_054_735_004_5e304),
        ];
        for (x, expm1, exp) in cases {
            assert_eq!(exact(x).expm1().to_f64(), expm1, "expm1({x})");
            assert_eq!(exact(x).exp().to_f64(), exp, "exp({x})");
        }
    }

    #[test]
    fn agrees_with_the_platform_within_an_ulp() {
        let n = 1 << 14;
        let (lo, hi) = (1e-300f64.ln(), 700f64.ln());
        for i in 0..n {
            let magnitude = (lo + (hi - lo) * f64::from(i) / f64::from(n)).exp();
            for x in [magnitude, -magnitude] {
                let e = exact(x).expm1().to_f64();
                assert!(ulp_distance(e, x.exp_m1()).is_some_and(|d| d <= 1), "expm1({x:e}) = {e:e}");
                let e = exact(x).exp().to_f64();
                assert!(ulp_distance(e, x.exp()).is_some_and(|d| d <= 1), "exp({x:e}) = {e:e}");
            }
        }
    }
}

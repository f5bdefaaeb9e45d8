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

use crate::dtype::DType;

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
    /// Phi(x), the standard normal distribution function: erfc(-x / sqrt 2) / 2.
    fn normal_cdf(self) -> Self;
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
    /// From libm's erfc (fdlibm's, within an ULP): x / sqrt 2's rounding moves the result by
    /// about x^2 2^-53 relative, 2^-45 where f32's x Phi(x) leaves the subnormals.
    fn normal_cdf(self) -> Self {
        0.5 * libm::erfc(-self * std::f64::consts::FRAC_1_SQRT_2)
    }
}

/// An integer dtype as the operators' integer twins see it: every value exactly in i128, results
/// wrapped like the dtype (ONNX's Add, Sub and Neg on the integers, as numpy's and ONNX
/// Runtime's CPU provider's arithmetic does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntegerType {
    pub(crate) bits: u32,
    pub(crate) signed: bool,
}

impl IntegerType {
    /// `dtype`'s width and signedness; `None` for the floats.
    pub(crate) const fn of(dtype: DType) -> Option<Self> {
        let (bits, signed) = match dtype {
            DType::I8 => (8, true),
            DType::I16 => (16, true),
            DType::I32 => (32, true),
            DType::I64 => (64, true),
            DType::U8 => (8, false),
            DType::U16 => (16, false),
            DType::U32 => (32, false),
            DType::U64 => (64, false),
            DType::BF16 | DType::F16 | DType::F32 | DType::F64 => return None,
        };
        Some(IntegerType { bits, signed })
    }

    /// `v` cast to the type as Rust's `as` casts a float: toward zero, saturated at the type's
    /// ends, NaN to 0 (the kernels' `lanes_from_attribute`).
    pub(crate) fn saturated(self, v: f64) -> i128 {
        let (smallest, largest) = if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        };
        (v as i128).clamp(smallest, largest)
    }

    /// `v` modulo 2^bits, as the dtype reads those bits.
    pub(crate) const fn wrapped(self, v: i128) -> i128 {
        let shift = 128 - self.bits;
        if self.signed { (v << shift) >> shift } else { ((v << shift) as u128 >> shift) as i128 }
    }
}

/// x sigmoid(t), spelled `x / (1 + e^-t)` for t > 0 and `x (e^t / (1 + e^t))` otherwise: no
/// cancellation and no overflow in either arithmetic (Swish's and Gelu's tanh form's twins).
pub(crate) fn times_logistic<R: Real>(x: R, t: R) -> R {
    let one = R::from_f64(1.0);
    if t.to_f64() > 0.0 {
        x / (one + (-t).exp())
    } else {
        let e = t.exp();
        x * (e / (one + e))
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

    /// Phi(x) = 1/2 + phi(x) (x + x^3/3 + x^5/(3 5) + ...) for |x| < 4, every term of one sign
    /// (Phi(-4) = 3e-5 then costs 15 of the 106 bits); beyond, the upper tail phi(a) R(a), R(a) =
    /// 1 / (a + 1 / (a + 2 / (a + 3 / (a + ...)))) evaluated from depth 200 up.
    fn normal_cdf(self) -> Self {
        let x = self.to_f64();
        if !self.is_ordinary() {
            return Exact::from_f64(if x.is_nan() || x == 0.0 {
                0.5 + x
            } else if x > 0.0 {
                1.0
            } else {
                0.0
            });
        }
        let (half, one) = (Exact::from_f64(0.5), Exact::from_f64(1.0));
        let a = if x < 0.0 { -self } else { self };
        let square = a * a;
        let density = (-(square * half)).exp() * (Exact::from_f64(INV_SQRT_2PI[0]) + Exact::from_f64(INV_SQRT_2PI[1]));
        if x.abs() < NORMAL_CDF_SERIES_END {
            let (mut term, mut sum) = (a, a);
            for n in 1..200u32 {
                term = term * square / Exact::from_f64(f64::from(2 * n + 1));
                sum = sum + term;
                if (term / sum).to_f64() < 1e-36 {
                    break;
                }
            }
            let deviation = density * sum;
            return if x > 0.0 { half + deviation } else { half - deviation };
        }
        let mut fraction = a;
        for k in (1..=MILLS_RATIO_DEPTH).rev() {
            fraction = a + Exact::from_f64(f64::from(k)) / fraction;
        }
        let upper = density / fraction;
        if x > 0.0 { one - upper } else { upper }
    }
}

/// 1 / sqrt(2 pi) as a double-double.
const INV_SQRT_2PI: [f64; 2] = [0.398_942_280_401_432_7, -2.492_327_202_277_73e-17];
/// Below this |x|, Phi(x) from its series; above, from the Mills ratio's continued fraction.
const NORMAL_CDF_SERIES_END: f64 = 4.0;
/// The continued fraction's depth: at x = 4 its truncation is below 2^-149 relative.
const MILLS_RATIO_DEPTH: u32 = 200;

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

    /// Values from mpmath's ncdf at 300 bits, rounded once to f64; the series and the continued
    /// fraction meet at 4 within far less than an f64 ULP.
    #[test]
    fn normal_cdf_is_correctly_rounded_on_known_values() {
        let cases = [
            (-37.5, 4.605_353_009_581_955e-308),
            (-20.0, 2.753_624_118_606_233_7e-89),
            (-5.08, 1.887_174_341_580_601_3e-7),
            (-4.0, 3.167_124_183_311_992_4e-5),
            (-3.99, 3.303_664_762_940_242e-5),
            (-1.0, 0.158_655_253_931_457_05),
            (-0.3, 0.382_088_577_811_047_4),
            (0.7, 0.758_036_347_776_927),
            (4.5, 0.999_996_602_326_875_3),
            (1e-200, 0.5),
        ];
        for (x, phi) in cases {
            assert_eq!(exact(x).normal_cdf().to_f64(), phi, "Phi({x})");
            assert!((x.normal_cdf() / phi - 1.0).abs() < 2f64.powi(-40), "f64's Phi({x}): {:e}", x.normal_cdf());
        }
        let below = exact(4.0) - exact(2f64.powi(-60));
        let series = below.normal_cdf();
        let fraction = exact(4.0).normal_cdf();
        let gap = ((fraction - series) / Exact::from_f64(2f64.powi(-60))).to_f64();
        assert!((gap - 1.338_302_257_648_853_6e-4).abs() < 1e-12, "Phi's slope at 4 across the switch: {gap:e}");
        assert_eq!(exact(f64::NEG_INFINITY).normal_cdf().to_f64(), 0.0);
        assert_eq!(exact(f64::INFINITY).normal_cdf().to_f64(), 1.0);
        assert_eq!(exact(-0.0).normal_cdf().to_f64(), 0.5);
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

//! CPU twin of `shaders/math/f32.wgsl`, step for step in f32, so that the kernels' error bounds
//! can be checked over every f32 input (`cargo xtask sweep`). The functions that divide take the
//! device's division as a parameter: WGSL bounds it only at 2.5 ULP, and the bounds must hold for
//! any division within that ([`off_by_up_to_two_ulp`]).
//!
//! The WGSL's forms for the steps' plain ranges (`f_in_range`, the guarded kernels' plain side)
//! have no twin of their own: they leave out cases the ranges exclude, and give the full
//! functions' bits where the ranges hold, which the guarded suites check on the GPU against the
//! float unit's kernels.

use super::compute::product_error;

/// The WGSL constants, by their bits.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
const INV_LN2: f32 = std::f32::consts::LOG2_E;
/// The near-minimax coefficients of q beyond its constant 0.5, by their bits.
const Q: [u32; 5] = [0x3e2a_aaab, 0x3d2a_aa74, 0x3c08_8870, 0x3ab6_a1d8, 0x3950_92b6];
const EXPM1_SATURATION: f32 = -17.5;
const EXPM1_IDENTITY: f32 = -2.980_232_2e-8; // -2^-25
const TANH_IDENTITY: f32 = 0.000_244_140_62; // 2^-12
const TANH_SATURATION: f32 = 9.1;
const SIGMOID_UNDERFLOW: f32 = 104.0;
const LOG1P_IDENTITY: f32 = 5.960_464_5e-8; // 2^-24
const SQRT2: f32 = std::f32::consts::SQRT_2;
/// The twin of `SCALED_ONCE_F32_FIRST_FLOOR`: the least exponent of scaled_once's first step.
const SCALED_ONCE_FIRST_FLOOR: f32 = -100.0;
/// log1p's R(z) / z, c0..c2 (near-minimax on z = s^2 <= 0.0295), by their bits.
const LOG1P_R: [u32; 3] = [0x3f2a_aaae, 0x3ecc_be11, 0x3e97_7464];

/// A division as a device may compute it.
pub(crate) type Quotient = fn(f32, f32) -> f32;

/// The correctly rounded quotient (lavapipe's, SwiftShader's).
pub(crate) fn ieee_quotient(a: f32, b: f32) -> f32 {
    a / b
}

/// A quotient up to 2 ULP off in either direction, as WGSL allows (2.5): the correctly rounded
/// one moved by -2 to 2 ULP, chosen by a hash of the operands.
pub(crate) fn off_by_up_to_two_ulp(a: f32, b: f32) -> f32 {
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    let hash = (a.to_bits().wrapping_mul(0x9e37_79b1) ^ b.to_bits().wrapping_mul(0x85eb_ca77)) >> 13;
    let steps = (hash % 5) as i32 - 2;
    f32::from_bits((q.to_bits() as i32 + steps) as u32)
}

/// `(k, p)` with e^x = 2^k (1 + p).
fn exp_parts(x: f32) -> (f32, f32) {
    let k = (x * INV_LN2).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let r2 = r * r;
    (k, r + r2 * expm1_quotient(r, r2))
}

/// The twin of `expm1_quotient`: q(r) = (expm1(r) - r) / r^2, given r^2.
fn expm1_quotient(r: f32, r2: f32) -> f32 {
    let [q1, q2, q3, q4, q5] = Q.map(f32::from_bits);
    (0.5 + r * q1) + r2 * ((q2 + r * q3) + r2 * (q4 + r * q5))
}

/// 2^k for integral k in [-126, 127], from its bits: k + 127 in the low mantissa bits of k +
/// (2^23 + 127), shifted into the exponent field.
fn power_of_two(k: f32) -> f32 {
    f32::from_bits((k + 8_388_735.0).to_bits() << 23)
}

/// The twin of `scaled_once`: m 2^k in two exact steps.
fn scaled_once(m: f32, k: f32) -> f32 {
    let first = k.max(SCALED_ONCE_FIRST_FLOOR);
    (m * power_of_two(first)) * power_of_two(k - first)
}

/// The twin of `expm1`, for x < 0 (and x itself where the kernel keeps it; NaN for x > 0 or NaN,
/// whose lanes the operators replace).
pub(crate) fn expm1(x: f32) -> f32 {
    if x.is_nan() || x > 0.0 {
        return f32::NAN;
    }
    if x > EXPM1_IDENTITY {
        return x;
    }
    if x < EXPM1_SATURATION {
        return -1.0;
    }
    let (k, p) = exp_parts(x);
    let two_k = power_of_two(k.clamp(-64.0, 0.0));
    p * two_k + (two_k - 1.0)
}

/// The twin of `two_sum`: `(s, e)` with s = a + b rounded and a + b = s + e exactly (Knuth's,
/// for any order of magnitudes).
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let b_part = s - a;
    (s, (a - (s - b_part)) + (b - b_part))
}

/// Below or above these magnitudes of alpha, `expm1_of_quotient_product` scales alpha and x by
/// 2^64 or 2^-64 first, so that its products' errors are neither subnormal nor infinite.
const QUOTIENT_PRODUCT_TINY_ALPHA: f32 = 5.421_011e-20; // 2^-64
const QUOTIENT_PRODUCT_HUGE_ALPHA: f32 = 1.844_674_4e19; // 2^64

/// The twin of `fast_two_sum`: `(s, e)` with s = a + b rounded and a + b = s + e exactly, for
/// |a| >= |b| or a = 0 (Dekker's).
fn fast_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    (s, b - (s - a))
}

/// The twin of `expm1_of_quotient_product` (which is given q = x reciprocal, computed here):
/// alpha expm1(x / alpha) for x / alpha < 0, given `reciprocal`, 1 / alpha's nearest f32
/// (Celu's negative side; NaN where x / alpha > 0).
pub(crate) fn expm1_of_quotient_product(x: f32, alpha: f32, reciprocal: f32) -> f32 {
    let q = x * reciprocal;
    if q.is_nan() || q > 0.0 {
        return f32::NAN;
    }
    if q < EXPM1_SATURATION {
        return -alpha;
    }
    let magnitude = alpha.abs();
    let exponent = if magnitude < QUOTIENT_PRODUCT_TINY_ALPHA {
        64.0
    } else if magnitude > QUOTIENT_PRODUCT_HUGE_ALPHA {
        -64.0
    } else {
        0.0
    };
    let (scale, unscale) = (power_of_two(exponent), power_of_two(-exponent));
    let (x, alpha, reciprocal) = (x * scale, alpha * scale, reciprocal * unscale);
    let q_low = residual(x, q, alpha) * reciprocal;
    let k = (q * INV_LN2).round_ties_even();
    let (r, r_low) = two_sum(q - k * LN2_HI, q_low - k * LN2_LO);
    let r2 = r * r;
    let tail = r_low + r2 * expm1_quotient(r, r2);
    let two_k = power_of_two(k.clamp(-64.0, 0.0));
    let (c, c_low) = fast_two_sum(-alpha, alpha * two_k);
    let b = alpha * r;
    let (s, e) = fast_two_sum(c, b * two_k);
    (s + ((c_low + e) + two_k * (product_error(alpha, r, b) + alpha * tail))) * unscale
}

/// The twin of `residual`: c - a b rounded once, for c within a factor of two of a b.
fn residual(c: f32, a: f32, b: f32) -> f32 {
    let p = a * b;
    (c - p) - product_error(a, b, p)
}

/// The twin of `reciprocal_of_one_plus_rounded`: 1 / (1 + u) for 0 <= u <= 1, the residual's
/// product rounded.
fn reciprocal_of_one_plus_rounded(u: f32, quotient: Quotient) -> f32 {
    let y = quotient(1.0, 1.0 + u);
    y + y * ((1.0 - y) - u * y)
}

/// The twin of `sigmoid` (NaN for NaN, whose lanes the operator replaces).
pub(crate) fn logistic(x: f32, quotient: Quotient) -> f32 {
    if x.is_nan() {
        return x;
    }
    let (k, p) = exp_parts((-x.abs()).max(-SIGMOID_UNDERFLOW));
    let e = (1.0 + p) * power_of_two(k.max(SCALED_ONCE_FIRST_FLOOR));
    let y = reciprocal_of_one_plus_rounded(e, quotient);
    if x > 0.0 {
        return y;
    }
    scaled_once(y + p * y, k)
}

/// The twin of `hyperbolic_tangent`.
pub(crate) fn hyperbolic_tangent(x: f32, quotient: Quotient) -> f32 {
    let a = x.abs();
    if a < TANH_IDENTITY || x.is_nan() {
        return x;
    }
    let (k, p) = exp_parts(-2.0 * a.min(TANH_SATURATION));
    let two_k = power_of_two(k);
    let scaled_p = p * two_k;
    let y0 = quotient(1.0, 1.0 + (1.0 + p) * two_k);
    let r = ((1.0 - y0) - two_k * y0) - scaled_p * y0;
    let y = y0 + y0 * r;
    let t = -(scaled_p + (two_k - 1.0)) * y;
    t.copysign(x)
}

/// The twin of `log1p_of_unit`, for 0 <= e <= 1.
fn log1p_of_unit(e: f32, quotient: Quotient) -> f32 {
    let u = 1.0 + e;
    let lost = quotient(e - (u - 1.0), u);
    let above = u > SQRT2;
    let m = if above { u * 0.5 } else { u };
    let (ln2_hi, ln2_lo) = if above { (LN2_HI, LN2_LO) } else { (0.0, 0.0) };
    let f = m - 1.0;
    let half_square = 0.5 * f * f;
    let s = quotient(f, 2.0 + f);
    let z = s * s;
    let [c0, c1, c2] = LOG1P_R.map(f32::from_bits);
    let r = z * (c0 + z * (c1 + z * c2));
    ln2_hi - ((half_square - (s * (half_square + r) + (ln2_lo + lost))) - f)
}

/// The twin of `log_one_plus_exp` (softplus; NaN for NaN, whose lanes the operator replaces).
pub(crate) fn log_one_plus_exp(x: f32, quotient: Quotient) -> f32 {
    if x.is_nan() {
        return x;
    }
    let (k, p) = exp_parts((-x.abs()).max(-SIGMOID_UNDERFLOW));
    let e = (1.0 + p) * power_of_two(k.max(SCALED_ONCE_FIRST_FLOOR));
    let l = log1p_of_unit(e, quotient);
    if x > 0.0 {
        return x + l;
    }
    if e >= LOG1P_IDENTITY {
        return l;
    }
    scaled_once(1.0 + p, k)
}

const LOGISTIC_PRODUCT_SATURATION: f32 = 290.0;

/// The twin of `logistic_product`: x sigmoid(a x) (Swish; NaN for NaN).
pub(crate) fn logistic_product(x: f32, a: f32, quotient: Quotient) -> f32 {
    let t = a * x;
    logistic_of_sum_product(x, t, product_error(a, x, t), quotient)
}

const SELF_LOGISTIC_UNDERFLOW: f32 = 112.0;
const SELF_LOGISTIC_TINY: f32 = 7.888_609e-31; // 2^-100

/// The twin of `self_logistic_product`: x sigmoid(x) (Swish's alpha 1; NaN for NaN).
pub(crate) fn self_logistic_product(x: f32, quotient: Quotient) -> f32 {
    if x.is_nan() || x == f32::NEG_INFINITY {
        return f32::NAN;
    }
    let clamped = x.max(-SELF_LOGISTIC_UNDERFLOW);
    let a = clamped.abs();
    let (k, p) = exp_parts((-a).max(-SELF_LOGISTIC_UNDERFLOW));
    let e = (1.0 + p) * power_of_two(k.max(SCALED_ONCE_FIRST_FLOOR));
    let y = reciprocal_of_one_plus_rounded(e, quotient);
    let h = clamped * y;
    if a < SELF_LOGISTIC_TINY {
        clamped * 0.5
    } else if x > 0.0 {
        h
    } else {
        scaled_once(h + h * p, k)
    }
}

/// 2 sqrt(2/pi) and 2 sqrt(2/pi) 0.044715, each as two f32s, by bits.
const GELU_TANH_LINEAR: [u32; 2] = [0x3fcc_422a, 0xb342_bc9b];
const GELU_TANH_CUBIC: [u32; 2] = [0x3d92_2279, 0x3124_d8b5];

/// The twin of `two_sum_of_nonnegatives`: a + b rounded and its exact error, for a, b >= 0.
fn two_sum_of_nonnegatives(a: f32, b: f32) -> (f32, f32) {
    let (larger, smaller) = (a.max(b), a.min(b));
    let s = larger + smaller;
    (s, smaller - (s - larger))
}

/// The twin of `gelu_tanh_product`: x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)).
pub(crate) fn gelu_tanh_product(x: f32, quotient: Quotient) -> f32 {
    let [c1, c1_low] = GELU_TANH_LINEAR.map(f32::from_bits);
    let [c3, c3_low] = GELU_TANH_CUBIC.map(f32::from_bits);
    let square = x * x;
    let m = c3 * square;
    let (b, b_error) = two_sum_of_nonnegatives(c1, m);
    let b_low =
        b_error + (product_error(c3, square, m) + (c3 * product_error(x, x, square) + (c3_low * square + c1_low)));
    let t = x * b;
    logistic_of_sum_product(x, t, product_error(x, b, t) + x * b_low, quotient)
}

/// The twin of `logistic_of_sum_product`: x sigmoid(t + error).
fn logistic_of_sum_product(x: f32, t: f32, error: f32, quotient: Quotient) -> f32 {
    let saturated = t.abs() > LOGISTIC_PRODUCT_SATURATION;
    let d = if saturated { 0.0 } else { error };
    let (k, p) = exp_parts((-t.abs()).max(-LOGISTIC_PRODUCT_SATURATION));
    let e = (1.0 + p) * power_of_two(k.max(-126.0));
    let y = reciprocal_of_one_plus_rounded(e, quotient);
    let above = t > 0.0;
    if t.is_nan() || x.is_infinite() {
        return if above { x } else { f32::NAN };
    }
    if saturated && !above {
        return 0.0f32.copysign(x);
    }
    let q = if above { d * (e * y) } else { p + (d * y) * (1.0 + p) };
    let tiny = x.abs() < f32::from_bits(0x0d80_0000); // 2^-100
    let scaled_up = if tiny { x * f32::from_bits(0x5f80_0000) } else { x }; // 2^64
    let biased = ((scaled_up.to_bits() >> 23) & 0xff) as i32;
    let j = (biased - 127).min(126) as f32;
    let m = scaled_up * power_of_two(-j);
    let h = m * y;
    let mantissa = h + (product_error(m, y, h) + h * q);
    let exponent = j + if above { 0.0 } else { k } - if tiny { 64.0 } else { 0.0 };
    let first = exponent.clamp(-120.0, 120.0);
    ((mantissa * power_of_two(first)) * power_of_two((exponent - first).clamp(-126.0, 127.0))).copysign(x)
}

const MISH_UNDERFLOW: f32 = 112.0;
const MISH_SATURATION: f32 = 40.0;
const MISH_TINY: f32 = 7.888_609e-31; // 2^-100

/// The twin of `mish_product`: x tanh(log(1 + e^x)) (Mish; NaN for NaN).
pub(crate) fn mish_product(x: f32, quotient: Quotient) -> f32 {
    if x == f32::NEG_INFINITY || x.is_nan() {
        return f32::NAN;
    }
    if x < -MISH_UNDERFLOW {
        return -0.0;
    }
    if x > MISH_SATURATION {
        return x;
    }
    let (k, p) = exp_parts(x);
    let two_k = power_of_two(k.max(-126.0));
    let f = p + 0.5 * ((1.0 + p) * two_k) * (1.0 + p);
    let y0 = quotient(1.0, 1.0 + (1.0 + f) * two_k);
    let c = if k == 0.0 { 1.0 - 2.0 * y0 } else { (1.0 - y0) - two_k * y0 };
    let r = c - (two_k * f) * y0;
    if x.abs() < MISH_TINY {
        return x * ((1.0 + f) * (y0 + y0 * r));
    }
    let h = x * y0;
    let l = product_error(x, y0, h);
    if x > 0.0 { (x - h) - (l + h * r) } else { scaled_once(h + (l + h * (f + r * (1.0 + f))), k) }
}

const NORMAL_CDF_END: f32 = 14.5;
/// Below this |x|, x Phi(x) is taken as x / 2.
const NORMAL_CDF_TINY: f32 = 7.888_609e-31; // 2^-100
/// The fit of e^(a^2/2) Phi(-a) / t in t - 1/2, t = 1 / (1 + a/4), a in [0, 14.5], by bits,
/// highest degree first (`tools/fit_normal_cdf.py --f32`).
const PHI_TAIL: [u32; 10] = [
    0xbc2f_ae70,
    0x3ce0_e114,
    0x3c31_5999,
    0xbd55_9289,
    0xbd64_d709,
    0x3d77_1289,
    0x3e77_6459,
    0x3ebe_ffa0,
    0x3ec6_36dc,
    0x3e9b_9f1d,
];
const PHI_TAIL_CONSTANT: [u32; 2] = [0x3e41_5a5e, 0xb15a_cbfd];

/// The twin of `normal_cdf_product`: x Phi(x) (Gelu's erf form; NaN for NaN).
pub(crate) fn normal_cdf_product(x: f32, quotient: Quotient) -> f32 {
    let horner = |coefficients: &[u32], v: f32| coefficients.iter().fold(0.0f32, |acc, &c| acc * v + f32::from_bits(c));
    if x.is_nan() || x == f32::NEG_INFINITY {
        return f32::NAN;
    }
    if x < -NORMAL_CDF_END {
        return -0.0;
    }
    if x > NORMAL_CDF_END {
        return x;
    }
    if x.abs() < NORMAL_CDF_TINY {
        return x * 0.5;
    }
    let a = x.abs();
    let q = 0.25 * a;
    let (d, d_low) = two_sum_of_nonnegatives(1.0, q);
    let t0 = quotient(1.0, d);
    let r = residual(1.0, d, t0) - d_low * t0;
    let v = (t0 - 0.5) + t0 * r;
    let [hi, lo] = PHI_TAIL_CONSTANT.map(f32::from_bits);
    // Q = g + g_low, the last sum's error kept.
    let p1 = horner(&PHI_TAIL, v);
    let vp = v * p1;
    let g = hi + vp;
    let g_low = ((hi - g) + vp) + lo;
    let square = a * a;
    let square_error = product_error(a, a, square);
    let (k, p) = exp_parts(-0.5 * square);
    let m = x * t0;
    let h = m * g;
    let low = m * g_low + product_error(x, t0, m) * g + product_error(m, g, h);
    let correction = p + (r - 0.5 * square_error) * (1.0 + p);
    let tail = scaled_once(h + (h * correction + low * (1.0 + p)), k);
    if x > 0.0 { x - tail } else { tail }
}

/// The twin of `hard_swish_gate`: max(0, min(1, alpha x + 1/2)) for HardSwish's alpha, the f32
/// nearest 1/6, as alpha (x + 3) - 2^-26 (NaN for NaN).
pub(crate) fn hard_swish_gate(x: f32) -> f32 {
    clamped_line_through_zero(x, [0.166_666_67, 0.5, -3.0, -f32::from_bits(0x3280_0000)])
}

/// The twin of `clamped_line_through_zero`: max(0, min(1, alpha x + beta)) as alpha (x - z) +
/// at_zero, for a line listed with its zero z and its value there (NaN for NaN).
pub(crate) fn clamped_line_through_zero(x: f32, [alpha, _beta, zero, at_zero]: [f32; 4]) -> f32 {
    ((x - zero) * alpha + at_zero).clamp(0.0, 1.0)
}

/// The twin of `softsign_quotient`: x / (1 + |x|) (NaN for NaN).
pub(crate) fn softsign_quotient(x: f32, quotient: Quotient) -> f32 {
    let bits = x.to_bits() & 0x7fff_ffff;
    let a = f32::from_bits(bits);
    let y0 = quotient(1.0, 1.0 + a);
    let y = y0 + y0 * ((1.0 - y0) - a * y0);
    if bits >= 0x3f80_0000 { (1.0 - y).copysign(x) } else { x * y }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    /// The float literals of the WGSL statement that starts with `start`, as f32 bits.
    fn literals(start: &str) -> Vec<u32> {
        let wgsl = include_str!("../../shaders/math/f32.wgsl");
        let from = wgsl.find(start).expect("the statement is in the WGSL");
        let statement = &wgsl[from..from + wgsl[from..].find(';').expect("the statement ends")];
        statement
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
            .filter(|token| token.contains('.'))
            .map(|token| token.parse::<f32>().expect("a float literal").to_bits())
            .collect()
    }

    /// Celu's negative side over random alphas of every binade and sign, at quotients from -20
    /// to -2^-100: 1 ULP, 2 for subnormal results, where rounding x / alpha, expm1 and the
    /// product in turn reaches 3.
    #[test]
    fn expm1_of_quotient_product_is_within_an_ulp_for_any_alpha() {
        let mut next = crate::cpu::xorshift(0x1234_5678_9abc_def0);
        let (mut worst, mut worst_in_steps) = (0, 0);
        for _ in 0..1_000_000 {
            let sign = if next().is_multiple_of(2) { 1.0 } else { -1.0 };
            let alpha = sign * f32::from_bits(0x0080_0000 + (next() % 0x7e80_0000) as u32);
            let u = (next() % 1_000_000) as f32 / 1_000_000.0;
            let q = if next().is_multiple_of(2) { -u * u * 20.0 } else { -(2f32).powf(-u * 100.0) };
            let x = (q * alpha).clamp(f32::MIN, f32::MAX);
            let reciprocal = (1.0 / f64::from(alpha)) as f32;
            let exact = (f64::from(alpha) * (f64::from(x) / f64::from(alpha)).exp_m1()) as f32;
            let got = expm1_of_quotient_product(x, alpha, reciprocal);
            let distance = ulp_distance(got, exact).expect("a number");
            let bound = if exact.is_normal() { 1 } else { 2 };
            assert!(distance <= bound, "alpha {alpha:e}, x {x:e}: {got:e} where {exact:e} is correctly rounded");
            worst = worst.max(distance);
            let in_steps = alpha * expm1(x * reciprocal);
            worst_in_steps = worst_in_steps.max(ulp_distance(in_steps, exact).unwrap_or(u64::MAX));
        }
        assert_eq!((worst, worst_in_steps), (1, 3), "the sum of exact parts, and rounding in steps");
    }

    #[test]
    fn power_of_two_is_exact_over_its_range() {
        for k in -126..=127 {
            assert_eq!(power_of_two(k as f32), 2f32.powi(k), "2^{k}");
        }
    }

    #[test]
    fn constants_match_the_wgsl() {
        let mut q = vec![0.5f32.to_bits()];
        q.extend(Q);
        assert_eq!(literals("let q ="), q);
        assert_eq!(literals("let r = z *"), LOG1P_R);
        let gelu = [
            literals("let m = rounded_product(Compute(0.07"),
            literals("let b = two_sum_of_nonnegatives(Compute(1.59"),
            literals("let b_low =").to_vec(),
        ]
        .concat();
        // Literals by magnitude (the parser reads `- c` as c).
        let magnitudes = |bits: &[u32]| bits.iter().map(|b| b & 0x7fff_ffff).collect::<Vec<_>>();
        assert_eq!(
            magnitudes(&gelu),
            magnitudes(&[
                GELU_TANH_CUBIC[0],
                GELU_TANH_LINEAR[0],
                GELU_TANH_CUBIC[0],
                GELU_TANH_CUBIC[0],
                GELU_TANH_CUBIC[1],
                GELU_TANH_LINEAR[1]
            ])
        );
        let tail = [
            literals("let g0 ="),
            literals("let g1 ="),
            literals("let p1 ="),
            literals("let g = "),
            literals("let g_low =")[1..].to_vec(),
        ]
        .concat();
        assert_eq!(magnitudes(&tail), magnitudes(&[&PHI_TAIL[..], &PHI_TAIL_CONSTANT[..]].concat()));
        for (name, value) in [
            ("const LN2_HI", LN2_HI),
            ("const LN2_LO", LN2_LO),
            ("const INV_LN2", INV_LN2),
            ("const EXPM1_F32_SATURATION", EXPM1_SATURATION),
            ("const EXPM1_F32_IDENTITY", EXPM1_IDENTITY),
            ("const TANH_F32_IDENTITY", TANH_IDENTITY),
            ("const TANH_F32_SATURATION", TANH_SATURATION),
            ("const SIGMOID_F32_UNDERFLOW", SIGMOID_UNDERFLOW),
            ("const LOG1P_F32_IDENTITY", LOG1P_IDENTITY),
            ("const LOGISTIC_PRODUCT_F32_SATURATION", LOGISTIC_PRODUCT_SATURATION),
            ("const SELF_LOGISTIC_F32_UNDERFLOW", SELF_LOGISTIC_UNDERFLOW),
            ("const SELF_LOGISTIC_F32_TINY", SELF_LOGISTIC_TINY),
            ("const MISH_F32_UNDERFLOW", MISH_UNDERFLOW),
            ("const MISH_F32_SATURATION", MISH_SATURATION),
            ("const MISH_F32_TINY", MISH_TINY),
            ("const NORMAL_CDF_F32_END", NORMAL_CDF_END),
            ("const NORMAL_CDF_F32_TINY", NORMAL_CDF_TINY),
            ("const SQRT2_F32", SQRT2),
            ("const SCALED_ONCE_F32_FIRST_FLOOR", SCALED_ONCE_FIRST_FLOOR),
        ] {
            assert_eq!(literals(name), vec![value.to_bits()], "{name}");
        }
    }

    fn exact_sigmoid(x: f64) -> f64 {
        if x > 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            let e = x.exp();
            e / (1.0 + e)
        }
    }

    /// The worst ULP distance of `f` from `reference` rounded to f32, over `inputs`.
    fn worst(inputs: impl Iterator<Item = f32>, f: impl Fn(f32) -> f32, reference: fn(f64) -> f64) -> (u64, f32) {
        inputs
            .map(|x| (ulp_distance(f(x), reference(f64::from(x)) as f32).unwrap_or(u64::MAX), x))
            .fold((0, 0.0), |w, d| if d.0 > w.0 { d } else { w })
    }

    /// Every 997th f32 bit pattern: about 4.3 million inputs of every magnitude and sign.
    fn dense() -> impl Iterator<Item = f32> {
        (0..=u32::MAX / 997).map(|i| f32::from_bits(i * 997))
    }

    fn exact_softplus(x: f64) -> f64 {
        if x > 0.0 { x + (-x).exp().ln_1p() } else { x.exp().ln_1p() }
    }

    fn exact_mish(x: f64) -> f64 {
        // tanh(log(1 + w)) = u / (1 + u), u = w (1 + w / 2): no cancellation in f64 either.
        if x > 0.0 {
            let v = (-x).exp();
            x / (1.0 + 2.0 * v * v / (1.0 + 2.0 * v))
        } else {
            let w = x.exp();
            let u = w * (1.0 + w / 2.0);
            x * u / (1.0 + u)
        }
    }

    /// Gelu's own twin in f64 (the operator's reference) in form `approximate`: 0 the erf
    /// form, 1 the tanh form.
    fn gelu_twin(x: f64, approximate: f32) -> f64 {
        (crate::ops::GELU.twin.fast)(x, &crate::ops::attributes_from(&[approximate])).unwrap_or(x)
    }

    fn exact_normal_cdf_product(x: f64) -> f64 {
        gelu_twin(x, 0.0)
    }

    fn exact_gelu_tanh(x: f64) -> f64 {
        gelu_twin(x, 1.0)
    }

    /// HardSwish, the operator's own twin in exact arithmetic.
    fn exact_hard_swish(x: f64) -> f64 {
        use crate::real::{Exact, Real};
        let attributes = crate::ops::attributes_from(&[]);
        (crate::ops::HARD_SWISH.twin.exact)(Exact::from_f64(x), &attributes).map_or(f64::NAN, Real::to_f64)
    }

    /// A correctly rounded result's function, in f64.
    type Reference = fn(f64) -> f64;

    /// HardSigmoid with the attributes of `LINES_THROUGH_THEIR_ZERO`'s line `LINE`, the
    /// operator's own twin in exact arithmetic.
    fn exact_hard_sigmoid<const LINE: usize>(x: f64) -> f64 {
        use crate::real::{Exact, Real};
        let attributes = crate::ops::attributes_from(&crate::ops::HARD_SIGMOID_LINES_THROUGH_THEIR_ZERO[LINE]);
        (crate::ops::HARD_SIGMOID.twin.exact)(Exact::from_f64(x), &attributes).map_or(f64::NAN, Real::to_f64)
    }

    /// Each line through its zero, and its reference.
    fn hard_sigmoid_lines() -> [([f32; 4], Reference); 2] {
        let lines = crate::ops::HARD_SIGMOID_LINES_THROUGH_THEIR_ZERO;
        [(lines[0], exact_hard_sigmoid::<0>), (lines[1], exact_hard_sigmoid::<1>)]
    }

    fn exact_softsign(x: f64) -> f64 {
        use crate::real::{Exact, Real};
        let a = Exact::from_f64(x.abs());
        (a / (a + Exact::from_f64(1.0))).to_f64().copysign(x)
    }

    #[test]
    fn within_their_bounds_on_a_dense_sample_for_any_conforming_division() {
        for quotient in [ieee_quotient as Quotient, off_by_up_to_two_ulp] {
            let (d, x) = worst(dense().filter(|x| !x.is_nan()), |x| softsign_quotient(x, quotient), exact_softsign);
            assert!(d <= 1, "softsign: {d} ULP at {x:e}");
            for (line, exact) in hard_sigmoid_lines() {
                let near_its_zero = (line[2].to_bits() - 0x10000..line[2].to_bits() + 0x10000).map(f32::from_bits);
                let inputs = dense().filter(|x| !x.is_nan()).chain(near_its_zero);
                let (d, x) = worst(inputs, |x| clamped_line_through_zero(x, line), exact);
                assert!(d <= 1, "hard sigmoid {line:?}: {d} ULP at {x:e}");
            }
            let (d, x) = worst(dense().filter(|x| !x.is_nan()), |x| x * hard_swish_gate(x), exact_hard_swish);
            assert!(d <= 2, "hard swish: {d} ULP at {x:e}");
            let near_the_gates_zero = (0xC03F_FF00u32..0xC040_0100).map(f32::from_bits);
            assert!(worst(near_the_gates_zero, |x| x * hard_swish_gate(x), exact_hard_swish).0 <= 2);
            let negatives = (0x8000_0001u32..0xC1A0_0000).step_by(997).map(f32::from_bits);
            assert!(worst(negatives, expm1, f64::exp_m1).0 <= 1);
            let (d, x) = worst(dense(), |x| logistic(x, quotient), exact_sigmoid);
            assert!(d <= 2, "sigmoid: {d} ULP at {x:e}");
            let (d, x) = worst(dense(), |x| hyperbolic_tangent(x, quotient), f64::tanh);
            assert!(d <= 2, "tanh: {d} ULP at {x:e}");
            let (d, x) = worst(dense(), |x| log_one_plus_exp(x, quotient), exact_softplus);
            assert!(d <= 2, "softplus: {d} ULP at {x:e}");
            let (d, x) = worst(dense(), |x| mish_product(x, quotient), exact_mish);
            assert!(d <= 3, "mish: {d} ULP at {x:e}");
            let (d, x) = worst(dense(), |x| normal_cdf_product(x, quotient), exact_normal_cdf_product);
            assert!(d <= 3, "x Phi(x): {d} ULP at {x:e}");
            let (d, x) = worst(dense(), |x| gelu_tanh_product(x, quotient), exact_gelu_tanh);
            assert!(d <= 3, "Gelu tanh form: {d} ULP at {x:e}");
        }
    }

    fn exact_logistic_product(x: f64, a: f64) -> f64 {
        x * exact_sigmoid(a * x)
    }

    /// Swish's a = 1 over every 997th f32, and other values of a on a sample scaled to the same
    /// range of a x: the worst ULP distance and where.
    fn logistic_product_worst(stride: u32, quotient: Quotient) -> (u64, f32, f32) {
        let mut worst = (0, 0.0, 0.0);
        for a in [1.0f32, -1.0, 1.702, 0.25, -3.0, 1e-30, 1e-45, 3e38] {
            let scale = if a.abs() > 4.0 || a.abs() < 0.1 { 1.0 / f64::from(a) } else { 1.0 };
            for i in 0..=u32::MAX / stride {
                let x = (f64::from(f32::from_bits(i * stride)) * scale) as f32;
                if x.is_nan() {
                    continue;
                }
                let reference = exact_logistic_product(f64::from(x), f64::from(a)) as f32;
                let d = ulp_distance(logistic_product(x, a, quotient), reference).unwrap_or(u64::MAX);
                if d > worst.0 {
                    worst = (d, x, a);
                }
            }
        }
        worst
    }

    #[test]
    fn logistic_product_within_its_bound_for_any_conforming_division() {
        for quotient in [ieee_quotient as Quotient, off_by_up_to_two_ulp] {
            let (d, x, a) = logistic_product_worst(9973, quotient);
            assert!(d <= 3, "x sigmoid(a x): {d} ULP at x = {x:e}, a = {a:e}");
        }
        for quotient in [ieee_quotient as Quotient, off_by_up_to_two_ulp] {
            let (d, x) = worst(dense(), |x| self_logistic_product(x, quotient), |x| exact_logistic_product(x, 1.0));
            assert!(d <= 3, "x sigmoid(x): {d} ULP at {x:e}");
            let tail = (0xC2C8_0000u32..=0xC2E0_0000).map(f32::from_bits); // -100 to -112
            let (d, x) = worst(tail, |x| self_logistic_product(x, quotient), |x| exact_logistic_product(x, 1.0));
            assert!(d <= 3, "x sigmoid(x) where it is subnormal: {d} ULP at {x:e}");
        }
        assert!(self_logistic_product(f32::NEG_INFINITY, ieee_quotient).is_nan());
        assert_eq!(self_logistic_product(-1e30, ieee_quotient).to_bits(), (-0.0f32).to_bits());
        assert_eq!(self_logistic_product(-0.0, ieee_quotient).to_bits(), (-0.0f32).to_bits());
        assert_eq!(self_logistic_product(f32::INFINITY, ieee_quotient), f32::INFINITY);
        assert!(logistic_product(f32::NEG_INFINITY, 1.0, ieee_quotient).is_nan());
        assert_eq!(logistic_product(-1e30, 1.0, ieee_quotient).to_bits(), (-0.0f32).to_bits());
        assert_eq!(logistic_product(f32::INFINITY, 1.0, ieee_quotient), f32::INFINITY);
    }

    /// Every f32 bit pattern of `range`, on two threads: the worst ULP distance and where.
    fn sweep(
        range: std::ops::RangeInclusive<u32>,
        f: impl Fn(f32) -> f32 + Sync,
        reference: fn(f64) -> f64,
    ) -> (u64, f32) {
        let (start, end) = (*range.start(), *range.end());
        let middle = start + (end - start) / 2;
        std::thread::scope(|scope| {
            let f = &f;
            let halves = [start..=middle, middle + 1..=end]
                .map(|half| scope.spawn(move || worst(half.map(f32::from_bits), f, reference)));
            halves
                .map(|h| h.join().expect("sweep thread"))
                .into_iter()
                .fold((0, 0.0), |w, d| if d.0 > w.0 { d } else { w })
        })
    }

    /// Gelu's two forms over every f32 input, with the correctly rounded division and with one
    /// off by up to 2 ULP (a test of its own, `over_every_f32` in its name for `cargo xtask
    /// sweep`'s filter, so that it runs alone too).
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_f32_gelu_forms() {
        for (name, quotient) in [("IEEE", ieee_quotient as Quotient), ("off by up to 2 ULP", off_by_up_to_two_ulp)] {
            let (d, x) = sweep(0..=u32::MAX, |x| normal_cdf_product(x, quotient), exact_normal_cdf_product);
            println!("math_f32 twin, {name} division: x Phi(x) max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 3);
            let (d, x) = sweep(0..=u32::MAX, |x| gelu_tanh_product(x, quotient), exact_gelu_tanh);
            println!(
                "math_f32 twin, {name} division: Gelu tanh form max error {d} ULP over every f32 (worst at {x:e})"
            );
            assert!(d <= 3);
        }
    }

    /// HardSigmoid's lines through their zero over every f32 input.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_f32_hard_sigmoid_lines() {
        for (line, exact) in hard_sigmoid_lines() {
            let (d, x) = sweep(0..=u32::MAX, |x| clamped_line_through_zero(x, line), exact);
            println!(
                "math_f32 twin: HardSigmoid's line {line:?} through its zero, max error {d} ULP over every f32 (worst at {x:e})"
            );
            assert!(d <= 1);
        }
    }

    /// Swish's alpha 1 kernel (x sigmoid(x), self_logistic_product) over every f32 input, with
    /// the correctly rounded division and with one off by up to 2 ULP.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_f32_self_logistic_product() {
        for (name, quotient) in [("IEEE", ieee_quotient as Quotient), ("off by up to 2 ULP", off_by_up_to_two_ulp)] {
            let (d, x) =
                sweep(0..=u32::MAX, |x| self_logistic_product(x, quotient), |x| exact_logistic_product(x, 1.0));
            println!(
                "math_f32 twin, {name} division: self_logistic_product max error {d} ULP over every f32 (worst at {x:e})"
            );
            assert!(d <= 3);
        }
    }

    /// Max ULP error over every f32 input (every negative one for expm1), with the correctly
    /// rounded division and with one off by up to 2 ULP. Minutes on two cores: `cargo xtask sweep`.
    /// HardSwish's gate times x (the kernel's product, rounded once) over every f32 input.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_f32_hard_swish() {
        let (d, x) = sweep(0..=u32::MAX, |x| x * hard_swish_gate(x), exact_hard_swish);
        println!("math_f32 twin: x hard_swish_gate(x) max error {d} ULP over every f32 (worst at {x:e})");
        assert!(d <= 2);
    }

    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_f32() {
        let (d, x) = sweep(0x8000_0001..=0xff80_0000, expm1, f64::exp_m1);
        println!("math_f32 twin: expm1 max error {d} ULP over every negative f32 (worst at {x:e})");
        assert!(d <= 1);
        for (name, quotient) in [("IEEE", ieee_quotient as Quotient), ("off by up to 2 ULP", off_by_up_to_two_ulp)] {
            let (d, x) = sweep(0..=u32::MAX, |x| logistic(x, quotient), exact_sigmoid);
            println!("math_f32 twin, {name} division: sigmoid max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 2);
            let (d, x) = sweep(0..=u32::MAX, |x| hyperbolic_tangent(x, quotient), f64::tanh);
            println!("math_f32 twin, {name} division: tanh max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 2);
            let (d, x) = sweep(0..=u32::MAX, |x| softsign_quotient(x, quotient), exact_softsign);
            println!("math_f32 twin, {name} division: softsign max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 1);
            let (d, x) = sweep(0..=u32::MAX, |x| log_one_plus_exp(x, quotient), exact_softplus);
            println!("math_f32 twin, {name} division: softplus max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 2);
            let (d, x) = sweep(0..=u32::MAX, |x| mish_product(x, quotient), exact_mish);
            println!("math_f32 twin, {name} division: mish max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 3);
            let (d, x) =
                sweep(0..=u32::MAX, |x| logistic_product(x, 1.0, quotient), |x| exact_logistic_product(x, 1.0));
            println!("math_f32 twin, {name} division: x sigmoid(x) max error {d} ULP over every f32 (worst at {x:e})");
            assert!(d <= 3);
            let (d, x, a) = logistic_product_worst(97, quotient);
            println!(
                "math_f32 twin, {name} division: x sigmoid(a x) max error {d} ULP over 8 values of a (worst at x = {x:e}, a = {a:e})"
            );
            assert!(d <= 3);
        }
    }
}

//! The f64 math, written once on [`Steps`]: with f64 steps it is the native path's CPU twin,
//! with `Soft` steps (the twin of `shared/soft_f64.wgsl`) the software path's, and recorded
//! (`src/kernel/f64_program.rs`) it becomes the WGSL of both paths: straight-line code on the
//! native steps, a program for the software path's interpreter (`compute/f64_program.wgsl`).
//! Both arithmetics round correctly, so the paths agree bit for bit wherever the algorithm does
//! not divide (the software path's quotient is its own Newton iteration). Bounds against the
//! correctly rounded f64 result (the tests, against [`super::Exact`]):
//!   expm1 (x <= 0)          1 ULP
//!   logistic (sigmoid)      2 ULP, subnormal results included
//!   hyperbolic_tangent      2 ULP
//!   softsign_quotient       1 ULP (NaN for infinite x, as x / (1 + |x|) is)
//!   log_one_plus_exp        2 ULP (softplus), subnormal results included
//!   logistic_product        x sigmoid(a x) (Swish), 3 ULP, for any f32 a, subnormal results
//!                           included
//!   mish_product            x tanh(log(1 + e^x)) (Mish), 3 ULP, subnormal results included
//!   normal_cdf_product      x Phi(x) (Gelu's erf form), 3 ULP, subnormal results included
//!   gelu_tanh_product       x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (Gelu's tanh form,
//!                           the constants as real numbers), 3 ULP
//!
//! No branch depends on a value: both sides are computed, on inputs clamped to where the
//! steps are defined, and [`Steps::pick`] chooses. A NaN x gives an unspecified value (the
//! operators pass NaN through themselves).

#[cfg(test)]
use super::compute::Soft;
use super::compute::Steps;

pub(super) const LN2_HI: f64 = 6.931_471_803_691_238e-1; // 32 significant bits: k * LN2_HI is exact
pub(super) const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// 1/13! down to 1/2: the Taylor coefficients of q(r) = (expm1(r) - r) / r^2, Horner order.
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
/// Below this, e^x < 2^-54 and the correctly rounded expm1(x) is -1.
const EXPM1_SATURATION: f64 = -38.0;
/// Above this (toward 0) expm1(x) rounds to x; returning x keeps the sign of flushed inputs.
const EXPM1_IDENTITY: f64 = -5.551_115_123_125_783e-17; // -2^-54
/// Below this, tanh(x) rounds to x (x^3/3 is under half an ULP of x); above the next, to 1.
const TANH_IDENTITY: f64 = 7.450_580_596_923_828e-9; // 2^-27
const TANH_SATURATION: f64 = 19.1;
/// Below -this, logistic(x) < 2^-1075 rounds to 0 (and so does softplus(x)).
const SIGMOID_UNDERFLOW: f64 = 746.0;
/// fdlibm's log coefficients (e_log.c, Lg1..Lg7): log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))
/// with s = f / (2 + f), |R's error| < 2^-58.45 on |s| <= 0.1716.
const LOG_LG: [f64; 7] = [
    6.666_666_666_666_735e-1,
    3.999_999_999_940_942e-1,
    2.857_142_874_366_239e-1,
    2.222_219_843_214_978_4e-1,
    1.818_357_216_161_805e-1,
    1.531_383_769_920_937_3e-1,
    1.479_819_860_511_658_6e-1,
];
/// Below this, log1p(e) = e - e^2/2 rounds to e.
const LOG1P_IDENTITY: f64 = 1.110_223_024_625_156_5e-16; // 2^-53

pub(super) fn c<S: Steps>(v: f64) -> S {
    S::constant(v)
}

/// `max(x, lo)` (NaN stays NaN).
pub(super) fn at_least<S: Steps>(x: S, lo: f64) -> S {
    S::pick(x.less(c(lo)), c(lo), x)
}

/// `min(x, hi)` (NaN stays NaN).
pub(super) fn at_most<S: Steps>(x: S, hi: f64) -> S {
    S::pick(c::<S>(hi).less(x), c(hi), x)
}

/// `(k, p)` with e^x = 2^k (1 + p), for -746 <= x <= 710: k = round(x / ln2), r = x - k ln2
/// (Cody-Waite), |r| <= ln2/2, p = r + r^2 q(r) with q's Taylor series to degree 11
/// (truncation below 2e-17 relative).
pub(super) fn exp_parts<S: Steps>(x: S) -> (S::Int, S) {
    let k = x.mul(c(INV_LN2)).add(c(0.5)).floor_int();
    let kf = S::from_int(k);
    // The first difference opaque: NVIDIA's compiler rewrote (x - k HI) - k LO as x - k (HI + LO),
    // ln2 rounded to one double, 12 ULP off at x = -38 on an H200 (Gelu's tail 700).
    let r = x.sub(kf.mul(c(LN2_HI))).opaque().sub(kf.mul(c(LN2_LO)));
    let q = EXP_Q[1..].iter().fold(c::<S>(EXP_Q[0]), |q, &coefficient| c::<S>(coefficient).add(r.mul(q)));
    (k, r.add(r.mul(r).mul(q)))
}

/// expm1(x) for x <= 0: 2^k p + (2^k - 1), 2^k - 1 exact for k >= -53.
pub(crate) fn expm1<S: Steps>(x: S) -> S {
    let (k, p) = exp_parts(at_most(at_least(x, EXPM1_SATURATION), EXPM1_IDENTITY));
    let two_k = S::power_of_two_near(k);
    let y = p.mul(two_k).add(two_k.add(c(-1.0)));
    let y = S::pick(x.less(c(EXPM1_SATURATION)), c(-1.0), y);
    S::pick(c::<S>(EXPM1_IDENTITY).less(x), x, y)
}

/// m 2^k for k >= -1075, in two exact steps, so that a subnormal result is rounded once.
pub(super) fn scaled_once<S: Steps>(m: S, k: S::Int) -> S {
    let first = S::int_max(k, -1000);
    m.mul(S::power_of_two(first)).mul(S::power_of_two(S::int_sub(k, first)))
}

/// 1 / (1 + u) for 0 <= u <= 1: the quotient, corrected by its residual (1 - y) - u y.
fn reciprocal_of_one_plus<S: Steps>(u: S) -> S {
    let one = c::<S>(1.0);
    let y = one.quotient(one.add(u));
    let r = u.negate().mul_add(y, one.sub(y));
    y.add(y.mul(r))
}

/// logistic(x): 1 / (1 + e) for x > 0, else 2^k (y + p y) with e = e^-|x| = 2^k (1 + p), scaled
/// in two exact steps so that a subnormal result is rounded once.
pub(crate) fn logistic<S: Steps>(x: S) -> S {
    let t = at_least(x.absolute().negate(), -SIGMOID_UNDERFLOW);
    let (k, p) = exp_parts(t);
    let e = c::<S>(1.0).add(p).mul(S::power_of_two(S::int_max(k, -1022)));
    let y = reciprocal_of_one_plus(e);
    S::pick(x.greater(c(0.0)), y, scaled_once(y.add(p.mul(y)), k))
}

/// Beyond this |a x|, x sigmoid(a x) is x or 0 (below -this, |x| e^(a x) < 2^-1075 for every
/// |x| < 2^1024).
const LOGISTIC_PRODUCT_SATURATION: f64 = 1460.0;

/// x sigmoid(a x) (Swish) for an f32 a, with one rounding at the end. t = a x is rounded, but
/// a x = t + d exactly (`mul_add`, for a product that neither overflows nor underflows), and
/// sigmoid(t + d) = sigmoid(t) (1 + (1 - sigmoid(t)) d) to far below an ULP, the neglected term
/// being of order d^2. With e = e^-|t| = 2^k (1 + p) and y = 1 / (1 + e), sigmoid(a x) = y (1 +
/// q) 2^k': for t > 0, sigmoid(t) = y and 1 - sigmoid(t) = e y, so q = d e y and k' = 0; for t
/// <= 0, sigmoid(t) = 2^k (y + p y) and 1 - sigmoid(t) = y, so q = p + d y (1 + p) and k' = k.
/// x y + (x y) q is one `mul_add`, and 2^k' is applied in two exact steps. Where k < 0, |t| >
/// 0.34 and so |x| > 2^-130 (a is an f32): the product before scaling is normal; a k below
/// -1240 leaves a result below 2^-1075 (|x| < 1460 2^149 wherever t is not saturated). A
/// saturated negative t gives x 0 (a signed zero); an infinite x and a NaN t (0 x inf) give
/// the function body's x or NaN; a zero x, x itself.
pub(crate) fn logistic_product<S: Steps>(x: S, a: S) -> S {
    let t = a.mul(x);
    logistic_of_sum_product(x, t, a.mul_add(x, t.negate()))
}

/// sigmoid(t + error) for |t| up to `saturation` as y (1 + q) 2^k', k' = 0 where t > 0 (`above`)
/// and k elsewhere: [`logistic_product`]'s steps (the error is 0 beyond the saturation).
pub(super) struct LogisticParts<S: Steps> {
    pub(super) y: S,
    pub(super) q: S,
    pub(super) k: S::Int,
    pub(super) above: S::Mask,
    pub(super) saturated: S::Mask,
}

pub(super) fn logistic_parts<S: Steps>(t: S, error: S, saturation: f64) -> LogisticParts<S> {
    let one = c::<S>(1.0);
    let saturated = c::<S>(saturation).less(t.absolute());
    let d = S::pick(saturated, c(0.0), error);
    let (k, p) = exp_parts(at_least(t.absolute().negate(), -saturation));
    let e = one.add(p).mul(S::power_of_two(S::int_max(k, -1022)));
    let y = reciprocal_of_one_plus(e);
    let above = t.greater(c(0.0));
    let q = S::pick(above, d.mul(e.mul(y)), p.add(d.mul(y).mul(one.add(p))));
    LogisticParts { y, q, k, above, saturated }
}

/// x sigmoid(t + error) for a t and its small error: [`logistic_product`]'s core.
fn logistic_of_sum_product<S: Steps>(x: S, t: S, error: S) -> S {
    let one = c::<S>(1.0);
    let LogisticParts { y, q, k, above, saturated } = logistic_parts(t, error, LOGISTIC_PRODUCT_SATURATION);
    let product = x.mul_add(y, x.mul(y).mul(q));
    let k = S::int_max(k, -1240);
    let first = S::int_max(k, -880);
    let first_scale = S::pick(above, one, S::power_of_two(first));
    let rest_scale = S::pick(above, one, S::power_of_two(S::int_sub(k, first)));
    let result = product.mul(first_scale).mul(rest_scale);
    // The body's x 0 and x 1 (an infinite x has a saturated t).
    let result = S::pick(saturated, S::pick(above, result, times_zero(x)), result);
    let result = S::pick(x.absolute().greater(c(f64::MAX)), S::pick(above, x, result), result);
    // x's sign, which a zero (or a subnormal rounded to zero) may have lost in the sums.
    let result = S::pick(x.less(c(0.0)), result.absolute().negate(), S::pick(x.greater(c(0.0)), result, x));
    // A NaN t (a NaN a) is neither above 0 nor below 1: NaN, a zero x's included.
    S::pick(above, result, S::pick(t.less(c(1.0)), result, t))
}

/// x 0 as IEEE gives it, without a product (a compiler may fold one with 0): a zero of x's
/// sign, NaN for an infinite x (inf - inf).
pub(super) fn times_zero<S: Steps>(x: S) -> S {
    let infinite = x.absolute().greater(c(f64::MAX));
    S::pick(infinite, x.sub(x.opaque()), S::pick(x.less(c(0.0)), c(-0.0), c(0.0)))
}

/// Below -this, |x| e^x < 2^-1075; above this, tanh(log(1 + e^x)) rounds to 1; below this
/// magnitude the result is x times a factor rounded once.
const MISH_UNDERFLOW: f64 = 760.0;
const MISH_SATURATION: f64 = 40.0;
const MISH_TINY: f64 = 1.0e-270;

/// x tanh(log(1 + e^x)) (Mish), the f32 math's algorithm (`shaders/math/f32.wgsl`): with w =
/// e^x = 2^k (1 + p), tanh(log(1 + w)) = u / (1 + u), u = w (1 + w / 2) = 2^k (1 + f), f = p +
/// (w / 2)(1 + p); 1 / (1 + u) = y0 (1 + r), the residual r spelled with exact differences
/// ((1 - 2 y0) - f y0 where k = 0, i.e. 2^k is 1); then for x <= 0, x y0 (1 + f + r (1 + f)) as
/// one `mul_add`, scaled in two exact steps, and for x > 0, x - x y0 (1 + r) as one `mul_add`.
/// -0.0 below -760, x above 40, NaN for -inf (the body's -inf x tanh(0)).
pub(crate) fn mish_product<S: Steps>(x: S) -> S {
    let one = c::<S>(1.0);
    let (k, p) = exp_parts(at_most(at_least(x, -MISH_UNDERFLOW), MISH_SATURATION));
    let two_k = S::power_of_two(S::int_max(k, -1022));
    let f = p.add(c::<S>(0.5).mul(one.add(p).mul(two_k)).mul(one.add(p)));
    let y0 = one.quotient(one.add(one.add(f).mul(two_k)));
    let residual_at_zero = one.sub(c::<S>(2.0).mul(y0));
    let residual_elsewhere = one.sub(y0).sub(two_k.mul(y0));
    let k_is_zero = S::pick(c::<S>(0.75).less(two_k), residual_at_zero, residual_elsewhere);
    let r = two_k.mul(f).negate().mul_add(y0, S::pick(two_k.less(c(1.5)), k_is_zero, residual_elsewhere));
    let h = x.mul(y0);
    let below = scaled_once(x.mul_add(y0, h.mul(f.add(r.mul(one.add(f))))), k);
    let above = x.negate().mul_add(y0, x.sub(h.mul(r)));
    let result = S::pick(x.greater(c(0.0)), above, below);
    let result = S::pick(x.absolute().less(c(MISH_TINY)), x.mul(one.add(f).mul(y0.add(y0.mul(r)))), result);
    let result = S::pick(c::<S>(MISH_SATURATION).less(x), x, result);
    S::pick(x.less(c(-MISH_UNDERFLOW)), times_zero(x), result)
}

/// 2 sqrt(2/pi) and 2 sqrt(2/pi) 0.044715 (the real numbers), each as two doubles.
const GELU_TANH_LINEAR: [f64; 2] = [1.5957691216057308, -9.96930880911092e-17];
const GELU_TANH_CUBIC: [f64; 2] = [0.07135481627260025, -6.175149918155315e-19];

/// x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (Gelu's tanh form, x (1 + tanh(u)) / 2 with the
/// constants as real numbers): t = x b, b = c1 + c3 x^2 kept as a double-double (the products'
/// errors from `mul_add`, the constants' second halves added in), then [`logistic_product`]'s
/// core with t's error. Where x^2 overflows, t is infinite and saturates.
pub(crate) fn gelu_tanh_product<S: Steps>(x: S) -> S {
    let [c1, c1_low] = GELU_TANH_LINEAR;
    let [c3, c3_low] = GELU_TANH_CUBIC;
    let square = x.mul(x);
    // Products a sum takes the error of back are opaque: a driver that contracts a product into
    // a sum would count the error twice (compute/f32.wgsl's rounded_product). b_first too: NVIDIA's
    // compiler simplified b - (b - m) to m, dropping the sum's error (the f32 twin: 5 ULP on an
    // H200).
    let m = c::<S>(c3).mul(square).opaque();
    let b = c::<S>(c1).add(m).opaque();
    let b_first = b.sub(m).opaque();
    let sum_error = c::<S>(c1).sub(b_first).add(m.sub(b.sub(b_first)));
    let products_error = c::<S>(c3)
        .mul_add(square, m.negate())
        .add(c::<S>(c3).mul(x.mul_add(x, square.negate())).add(c::<S>(c3_low).mul_add(square, c(c1_low))));
    let b_low = sum_error.add(products_error);
    let t = x.mul(b);
    logistic_of_sum_product(x, t, x.mul_add(b, t.negate()).add(x.mul(b_low)))
}

/// Beyond this |x|, x Phi(x) is x, or below 2^-1075 and so a zero of x's sign.
const NORMAL_CDF_END: f64 = 38.6;
/// The fit of (Phi(x) - 1/2) / x in u = x^2 on [0, 1/4] (2^-66 relative), highest degree first
/// down to 1; its constant in two parts.
const PHI_SMALL: [f64; 8] = [
    2.1499707851381936e-09,
    -4.1169257607165196e-08,
    6.659548890968412e-07,
    -9.444654131624424e-06,
    0.00011543468743201385,
    -0.001187328215471495,
    0.009973557010035598,
    -0.06649038006690544,
];
const PHI_SMALL_CONSTANT: [f64; 2] = [0.3989422804014327, -2.4926453990129876e-17];
/// The fit of G(t) = e^(a^2/2) Phi(-a) / t in v = t - 1/2, t = 1 / (1 + a/4), a in [1/2, 38.6]
/// (2^-60.6 relative), highest degree first down to 1; its constant in two parts. Both fits
/// are least squares in relative error at Chebyshev nodes with mpmath, rounded to f64
/// (`tools/fit_normal_cdf.py`).
const PHI_TAIL: [f64; 22] = [
    -0.0028747801225205544,
    0.00034553141014944603,
    0.0053299623762598156,
    -0.002261383648072939,
    -0.005662654069386547,
    0.005191985426001297,
    0.004466126259886325,
    -0.008384212103922378,
    -0.0025808097746874005,
    0.012125904801989487,
    0.0007339892160368224,
    -0.01799415947217969,
    -0.0004885203065098381,
    0.02958015463299915,
    0.008534036183598274,
    -0.052186190706852174,
    -0.05567507788165968,
    0.06032151173456367,
    0.24158629956377609,
    0.3730437159193107,
    0.3871374007422144,
    0.30394832098594604,
];
const PHI_TAIL_CONSTANT: [f64; 2] = [0.18882128260393788, -5.519355812689563e-18];

/// `p(v)` for coefficients from the highest degree down to the constant.
fn horner<S: Steps>(coefficients: &[f64], v: S) -> S {
    coefficients[1..].iter().fold(c::<S>(coefficients[0]), |acc, &k| acc.mul(v).add(c(k)))
}

/// x Phi(x) (Gelu's erf form, x erfc(-x / sqrt 2) / 2), rounded once at the end. For |x| <= 1/2,
/// x (1/2 + x S(x^2)); beyond, with a = |x|, the tail x Phi(-a) = x e^(-a^2/2) t G(t), with
/// t = 1 / (1 + a/4) from the device's quotient t0 and its residual r (1 + a/4 is exact as a
/// double-double), G's last Horner step exact, a^2 = square + its error, and e^(-square/2) =
/// 2^k (1 + p): x t0 G (1 + p + (r - error/2)(1 + p)), every product's error carried, scaled in
/// two exact steps so that a subnormal result is rounded once; x Phi(x) = x - x Phi(-x) for x >
/// 0. x beyond 38.6, a zero of x's sign below -38.6 (NaN for -inf: the body's -inf x 0).
pub(crate) fn normal_cdf_product<S: Steps>(x: S) -> S {
    let one = c::<S>(1.0);
    let u = x.mul(x);
    let [small_hi, small_lo] = PHI_SMALL_CONSTANT;
    let slope = horner(&PHI_SMALL, u);
    let small = x.mul(c::<S>(0.5).add(x.mul(c::<S>(small_hi).add(u.mul_add(slope, c(small_lo))))));
    let a = at_most(x.absolute(), NORMAL_CDF_END);
    let q = c::<S>(0.25).mul(a);
    let d = one.add(q).opaque();
    let d_rest = d.sub(q).opaque();
    let d_low = one.sub(d_rest).add(q.sub(d.sub(d_rest)));
    let t0 = one.quotient(d);
    let r = d.negate().mul_add(t0, one).sub(d_low.mul(t0));
    let v = t0.sub(c(0.5)).add(t0.mul(r));
    let [tail_hi, tail_lo] = PHI_TAIL_CONSTANT;
    let p1 = horner(&PHI_TAIL, v);
    let vp = v.mul(p1).opaque(); // g_low takes its error back: see gelu_tanh_product
    let g = c::<S>(tail_hi).add(vp).opaque();
    let g_low = c::<S>(tail_hi).sub(g).add(vp).add(v.mul_add(p1, vp.negate()).add(c(tail_lo)));
    let square = a.mul(a);
    let square_error = a.mul_add(a, square.negate());
    let (k, p) = exp_parts(c::<S>(-0.5).mul(square));
    let h1 = x.mul(t0);
    let h = h1.mul(g);
    let h_low = h1.mul_add(g, h.negate()).add(x.mul_add(t0, h1.negate()).mul(g)).add(h1.mul(g_low));
    let correction = p.add(r.sub(c::<S>(0.5).mul(square_error)).mul(one.add(p)));
    let factor = one.add(correction).opaque();
    let factor_low = correction.sub(factor.sub(one));
    let hc = h.mul(factor).opaque();
    let low = h.mul_add(factor, hc.negate()).add(h.mul_add(factor_low, h_low.mul(factor)));
    let tail = scaled_once(hc.add(low), k);
    let result = S::pick(x.greater(c(0.0)), x.sub(tail), tail);
    let result = S::pick(c::<S>(0.5).less(x.absolute()), result, small);
    let result = S::pick(c::<S>(NORMAL_CDF_END).less(x), x, result);
    S::pick(x.less(c(-NORMAL_CDF_END)), times_zero(x), result)
}

/// log1p(e) for 0 <= e <= 1 (fdlibm's log1p): u = 1 + e rounded, c = (e - (u - 1)) / u the
/// rounding it lost (e - (u - 1) is exact), u = 2^k m with k in {0, 1} and m in [sqrt2/2,
/// sqrt2], f = m - 1 (exact), then log(m) from s = f / (2 + f); the quotients' errors reach only
/// terms of order f^3 and c. Within 1 ULP.
pub(super) fn log1p_of_unit<S: Steps>(e: S) -> S {
    let one = c::<S>(1.0);
    let u = one.add(e).opaque(); // a compiler would fold e - ((1 + e) - 1) to 0
    let lost = e.sub(u.sub(one)).quotient(u);
    let above = c::<S>(std::f64::consts::SQRT_2).less(u);
    let m = S::pick(above, u.mul(c(0.5)), u);
    let k = S::pick(above, one, c(0.0));
    let f = m.sub(one);
    let half_square = c::<S>(0.5).mul(f).mul(f);
    let s = f.quotient(c::<S>(2.0).add(f));
    let z = s.mul(s);
    let r = z.mul(LOG_LG[..6].iter().rev().fold(c::<S>(LOG_LG[6]), |q, &lg| c::<S>(lg).add(z.mul(q))));
    let tail = half_square.sub(s.mul(half_square.add(r)).add(k.mul(c(LN2_LO)).add(lost)));
    k.mul(c(LN2_HI)).sub(tail.sub(f))
}

/// log(1 + e^x) (softplus) = max(x, 0) + log1p(e) with e = e^-|x| = 2^k (1 + p): x + log1p(e) above 0;
/// below, log1p(e), or e itself where that is what it rounds to, scaled in two exact steps
/// so that a subnormal result is rounded once. Within 2 ULP; +inf for +inf, 0 for -inf.
pub(crate) fn log_one_plus_exp<S: Steps>(x: S) -> S {
    let one = c::<S>(1.0);
    let (k, p) = exp_parts(at_least(x.absolute().negate(), -SIGMOID_UNDERFLOW));
    let e = one.add(p).mul(S::power_of_two(S::int_max(k, -1022)));
    let l = log1p_of_unit(e);
    let below = S::pick(e.less(c(LOG1P_IDENTITY)), scaled_once(one.add(p), k), l);
    S::pick(x.greater(c(0.0)), x.add(l), below)
}

/// tanh(x): -expm1(-2|x|) / (1 + e^-2|x|), x's sign; x itself near 0.
pub(crate) fn hyperbolic_tangent<S: Steps>(x: S) -> S {
    let a = x.absolute();
    let (k, p) = exp_parts(c::<S>(-2.0).mul(at_most(a, TANH_SATURATION)));
    let two_k = S::power_of_two_near(k);
    let y = reciprocal_of_one_plus(c::<S>(1.0).add(p).mul(two_k));
    let t = p.mul(two_k).add(two_k.add(c(-1.0))).negate().mul(y);
    let t = S::pick(x.less(c(0.0)), t.negate(), t);
    S::pick(a.less(c(TANH_IDENTITY)), x, t)
}

/// x / (1 + |x|): the residual-corrected 1 / (1 + |x|), then x y below |x| = 1 and 1 - y (x's
/// sign) above; NaN for an infinite x.
pub(crate) fn softsign_quotient<S: Steps>(x: S) -> S {
    let one = c::<S>(1.0);
    let a = x.absolute();
    let y0 = one.quotient(one.add(a));
    let y = y0.add(y0.mul(a.negate().mul_add(y0, one.sub(y0))));
    let above = one.sub(y);
    let above = S::pick(x.less(c(0.0)), above.negate(), above);
    let y = S::pick(a.less(one), x.mul(y), above);
    S::pick(a.greater(c(f64::MAX)), a.sub(a.opaque()), y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::{Exact, Real};
    use crate::ulp::ulp_distance;

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
                assert!(d <= 3, "{x:e}: {got:e}, correctly rounded {e:e}");
                worst = worst.max(d);
            }
        }
        worst
    }

    fn softsign_exact(x: f64) -> f64 {
        let a = Exact::from_f64(x.abs());
        (a / (a + Exact::from_f64(1.0))).to_f64().copysign(x)
    }

    fn softplus_exact(x: f64) -> f64 {
        let e = Exact::from_f64(-x.abs()).exp().ln_1p();
        if x > 0.0 { (Exact::from_f64(x) + e).to_f64() } else { e.to_f64() }
    }

    fn check(n: usize) -> [u64; 5] {
        let negative = |x: f64| x <= 0.0;
        [
            worst(n, expm1::<f64>, expm1::<Soft>, |x| Exact::from_f64(x).expm1().to_f64(), negative),
            worst(n, logistic::<f64>, logistic::<Soft>, sigmoid_exact, |_| true),
            worst(n, hyperbolic_tangent::<f64>, hyperbolic_tangent::<Soft>, tanh_exact, |_| true),
            worst(n, softsign_quotient::<f64>, softsign_quotient::<Soft>, softsign_exact, |_| true),
            worst(n, log_one_plus_exp::<f64>, log_one_plus_exp::<Soft>, softplus_exact, |_| true),
        ]
    }

    #[test]
    fn within_their_bounds_on_both_paths() {
        let [expm1, sigmoid, tanh, softsign, softplus] = check(1 << 15);
        assert!(
            expm1 <= 1 && sigmoid <= 2 && tanh <= 2 && softsign <= 1 && softplus <= 2,
            "{expm1} {sigmoid} {tanh} {softsign} {softplus}"
        );
    }

    fn logistic_product_exact(x: f64, a: f64) -> f64 {
        let x = Exact::from_f64(x);
        crate::real::times_logistic(x, Exact::from_f64(a) * x).to_f64()
    }

    /// The worst ULP distance of `logistic_product` on both arithmetics over `n` inputs per a,
    /// for Swish's default a, Gelu's tanh-form slope and others down to f32's extremes (scaled
    /// so that a x sweeps the same range).
    fn logistic_product_worst(n: usize) -> u64 {
        let mut worst = 0;
        for a in [1.0f64, -1.0, 1.702, 0.25, -3.0, 1e-30, 1.401_298_464_324_817e-45, 3e38] {
            let a = f64::from(a as f32);
            for x in inputs(n).into_iter().map(|x| if a.abs() > 4.0 || a.abs() < 0.1 { x / a } else { x }) {
                let e = logistic_product_exact(x, a);
                for got in [logistic_product(x, a), logistic_product(Soft::constant(x), Soft::constant(a)).value()] {
                    let d = ulp_distance(got, e).unwrap_or(u64::MAX);
                    assert!(d <= 3, "a = {a:e}, x = {x:e}: {got:e}, correctly rounded {e:e}");
                    worst = worst.max(d);
                }
            }
        }
        worst
    }

    fn mish_exact(x: f64) -> f64 {
        let one = Exact::from_f64(1.0);
        let two = Exact::from_f64(2.0);
        let xe = Exact::from_f64(x);
        if x > 0.0 {
            let v = (-xe).exp();
            (xe / (one + two * v * v / (one + two * v))).to_f64()
        } else {
            let w = xe.exp();
            let u = w * (one + w / two);
            (xe * u / (one + u)).to_f64()
        }
    }

    #[test]
    fn mish_product_within_its_bound_on_both_paths() {
        let worst = worst(1 << 15, mish_product::<f64>, mish_product::<Soft>, mish_exact, |_| true);
        println!("mish_product: {worst} ULP");
        assert!(worst <= 3);
        assert!(mish_product(f64::NEG_INFINITY).is_nan());
        assert_eq!(mish_product(f64::INFINITY), f64::INFINITY);
        assert_eq!(mish_product(-0.0f64).to_bits(), (-0.0f64).to_bits());
        assert_eq!(mish_product(-800.0f64).to_bits(), (-0.0f64).to_bits());
    }

    /// Gelu's own twin in Exact (the operator's f64 reference) in form `approximate`: 0 the
    /// erf form, 1 the tanh form.
    fn gelu_twin(x: f64, approximate: f32) -> f64 {
        let attributes = crate::ops::attributes_from(&[approximate]);
        (crate::ops::GELU.twin.exact)(Exact::from_f64(x), &attributes).map_or(x, Exact::to_f64)
    }

    fn normal_cdf_product_exact(x: f64) -> f64 {
        gelu_twin(x, 0.0)
    }

    fn gelu_tanh_exact(x: f64) -> f64 {
        gelu_twin(x, 1.0)
    }

    /// The two forms of Gelu over `n` inputs of each sign, on both paths: their worst ULP.
    fn gelu_worst(n: usize) -> [u64; 2] {
        [
            worst(n, normal_cdf_product::<f64>, normal_cdf_product::<Soft>, normal_cdf_product_exact, |_| true),
            worst(n, gelu_tanh_product::<f64>, gelu_tanh_product::<Soft>, gelu_tanh_exact, |_| true),
        ]
    }

    #[test]
    fn gelu_products_within_their_bound_on_both_paths() {
        let [erf_form, tanh_form] = gelu_worst(1 << 14);
        println!("normal_cdf_product: {erf_form} ULP, gelu_tanh_product: {tanh_form} ULP");
        assert!(erf_form <= 3 && tanh_form <= 3);
        for f in [normal_cdf_product::<f64>, gelu_tanh_product::<f64>] {
            assert!(f(f64::NEG_INFINITY).is_nan());
            assert_eq!(f(f64::INFINITY), f64::INFINITY);
            assert_eq!(f(-0.0).to_bits(), (-0.0f64).to_bits());
            assert_eq!(f(-1e300).to_bits(), (-0.0f64).to_bits());
            assert_eq!(f(1e300), 1e300);
        }
    }

    #[test]
    fn logistic_product_within_its_bound_on_both_paths() {
        let worst = logistic_product_worst(1 << 13);
        println!("logistic_product: {worst} ULP");
        assert!(worst <= 3, "{worst}");
        for a in [1.0, -2.0] {
            assert!(logistic_product(f64::NEG_INFINITY, a).is_nan() == (a > 0.0));
            assert_eq!(logistic_product(f64::INFINITY, 1.0), f64::INFINITY);
            assert_eq!(logistic_product(-0.0, a).to_bits(), (-0.0f64).to_bits());
            assert!(logistic_product(0.0, f64::NAN).is_nan() && logistic_product(-2.0, f64::NAN).is_nan());
            assert_eq!(
                logistic_product(-1e300, a).to_bits(),
                if a > 0.0 { (-0.0f64).to_bits() } else { (-1e300f64).to_bits() }
            );
        }
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
        let [expm1, sigmoid, tanh, softsign, softplus] = check(1 << 21);
        println!(
            "math_f64 twin over 2^22 inputs, native and software steps: expm1 {expm1} ULP, sigmoid {sigmoid} ULP, tanh {tanh} ULP, softsign {softsign} ULP, softplus {softplus} ULP"
        );
        let mish = worst(1 << 21, mish_product::<f64>, mish_product::<Soft>, mish_exact, |_| true);
        println!("math_f64 twin over 2^22 inputs, native and software steps: x tanh(softplus(x)) {mish} ULP");
        let [erf_form, tanh_form] = gelu_worst(1 << 21);
        println!(
            "math_f64 twin over 2^22 inputs, native and software steps: x Phi(x) {erf_form} ULP, Gelu's tanh form {tanh_form} ULP"
        );
        let product = logistic_product_worst(1 << 18);
        println!("math_f64 twin over 2^22 inputs (8 values of a), both steps: x sigmoid(a x) {product} ULP");
        assert!(expm1 <= 1);
    }
}

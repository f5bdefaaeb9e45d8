// Accurate elementwise functions in f32 arithmetic, four lanes at a time, on the Compute
// interface of compute/f32.wgsl (shaders/README.md): the representations f32, f16 and bf16 use
// them. CPU twin, step for step in f32: src/cpu/math_f32.rs, whose checks over every f32 input
// run with `cargo xtask sweep`. Bounds against the correctly rounded f32 result, whatever the
// device's division within WGSL's 2.5 ULP:
//   expm1 (x <= 0)          1 ULP
//   expm1_of_quotient_product  alpha expm1(x / alpha) for x / alpha < 0 (Celu), 1 ULP,
//                           subnormal results 2
//   logistic (sigmoid)      2 ULP (almost all inputs within 1), subnormal results included
//   hyperbolic_tangent      2 ULP (almost all inputs within 1)
//   softsign_quotient       1 ULP (NaN for infinite x, as x / (1 + |x|) is)
//   log_one_plus_exp        2 ULP (softplus), subnormal results included
//   logistic_product        x sigmoid(a x) (Swish), 3 ULP for any f32 a, subnormal results
//                           included
//   self_logistic_product   x sigmoid(x) (Swish's alpha 1, SiLU), 3 ULP, subnormal results
//                           included
//   clamped_line_through_zero  HardSigmoid's max(0, min(1, alpha x + beta)) through its zero,
//                           for the lines listed in src/ops/hard_sigmoid.rs, 1 ULP
//   mish_product            x tanh(log(1 + e^x)) (Mish), 3 ULP, subnormal results included
//   normal_cdf_product      x Phi(x), Phi the standard normal distribution function (Gelu's
//                           erf form), 3 ULP, subnormal results included
//   gelu_tanh_product       x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (Gelu's tanh form,
//                           with its constants as real numbers), 3 ULP
// Branch-free: every lane computes every case, and the inputs a function is not defined for
// (NaN, or x > 0 for expm1) give garbage that the operators replace.
//
// WGSL's exp() only promises 3 + 2|x| ULP, its tanh() breaks down to NaN for large inputs on
// some drivers, and exp(x) - 1 loses all relative accuracy near 0: these use only + - *, the
// device's division corrected by a residual, and exact scaling by powers of two built from
// their bits (ldexp becomes a call per lane on some drivers).

// ln2 split so that k * LN2_HI is exact for |k| < 2^9: LN2_HI has its low 9 mantissa bits zero.
const LN2_HI: f32 = 0.693145751953125;
const LN2_LO: f32 = 1.4286068203094172e-6;
const INV_LN2: f32 = 1.4426950408889634;
// Below this, e^x < 2^-25 and the correctly rounded expm1(x) is -1.
const EXPM1_F32_SATURATION: f32 = -17.5;
// Above this (toward 0), x^2/2 is below half an ULP of x, so expm1(x) rounds to x. Returning
// x also keeps the sign where a device flushes a subnormal x to -0.0.
const EXPM1_F32_IDENTITY: f32 = -2.9802322387695312e-8; // -2^-25
// Below this, tanh(x) rounds to x: x^3/3 is under half an ULP of x.
const TANH_F32_IDENTITY: f32 = 0.000244140625; // 2^-12
// Above this, tanh(x) rounds to 1, and e^(-2x) no longer matters.
const TANH_F32_SATURATION: f32 = 9.1;
// Below -this, logistic(x) < 2^-150 rounds to 0 (and so does log(1 + e^x)).
const SIGMOID_F32_UNDERFLOW: f32 = 104.0;
// Below this, log1p(e) = e - e^2/2 rounds to e.
const LOG1P_F32_IDENTITY: f32 = 5.9604644775390625e-8; // 2^-24
const SQRT2_F32: f32 = 1.4142135623730951;
// scaled_once's first step scales by at least 2^-100, which keeps its mantissa normal.
const SCALED_ONCE_F32_FIRST_FLOOR: f32 = -100.0;

// e^x = 2^k (1 + p), for -104 <= x <= 89: k = round(x / ln2), r = x - k ln2 (Cody-Waite: the
// high product and the first difference are exact), |r| <= ln2/2, and p = expm1(r) = r +
// r^2 q(r), q of degree 5 near-minimax on |r| <= 1.001 ln2/2 (mpmath's chebyfit of (expm1(r) -
// r) / r^2 with 6 terms, coefficients rounded to f32): 1.9e-9 = 2^-29 relative. p is kept apart
// from the 1, so a caller can use 1 + p unrounded. q is evaluated by Estrin's scheme (pairs
// joined by powers of r^2), six steps deep where Horner's is ten: llvmpipe's 8-wide code waits
// on the chain (Softplus 0.60 -> 0.63 of the copy kernel on lavapipe, same operation count).
struct ExpParts {
    k: Compute,
    p: Compute,
}

fn exp_parts(x: Compute) -> ExpParts {
    let k = round(x * INV_LN2);
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let r2 = r * r;
    return ExpParts(k, r + r2 * expm1_quotient(r, r2));
}

// q(r) = (expm1(r) - r) / r^2 (exp_parts' polynomial), given r^2.
fn expm1_quotient(r: Compute, r2: Compute) -> Compute {
    let q = (0.5 + r * 0.16666667)
        + r2 * ((0.041666463 + r * 0.0083333105) + r2 * (0.0013933731 + r * 0.0001989108));
    return q;
}

// 2^k for integral k in [-126, 127], exactly, from its bits: k + (2^23 + 127) lies in [2^23,
// 2^24), where the ULP is 1, so its low mantissa bits hold k + 127 exactly, which the shift moves
// into the exponent field (dropping the rest). No float-to-integer conversion: WGSL's saturates,
// and Tint (Chromium's WebGPU) makes that compares and selects; in the browser on SwiftShader,
// ms per 4 dispatches of 2^22 f32, Elu 153-162 -> 134-137, Sigmoid 207-219 -> 147, Softplus
// 254-257 -> 197 (lavapipe and SwiftShader natively, through naga: within the noise).
fn power_of_two(k: Compute) -> Compute {
    return bitcast<Compute>(bitcast<vec4<u32>>(k + 8388735.0) << vec4(23u));
}

// m 2^k for k >= -150, in two exact steps, so that a subnormal result is rounded once (by mul,
// exact on a device that flushes).
fn scaled_once(m: Compute, k: Compute) -> Compute {
    let first = max(k, Compute(SCALED_ONCE_F32_FIRST_FLOOR));
    return mul(m * power_of_two(first), power_of_two(k - first));
}

// scaled_once's first step, 2^max(k, -100): also e^x's scale where 1 + e^x is what matters (e^x
// below 2^-100 is as invisible there as e^x itself), so that the compiler computes it once.
fn first_power_of_two(k: Compute) -> Compute {
    return power_of_two(max(k, Compute(SCALED_ONCE_F32_FIRST_FLOOR)));
}

// expm1(x) for x < 0: 2^k p + (2^k - 1), whose scaling is exact, 2^k - 1 exact for k >= -24, and
// one rounding joins them, so no step cancels (k = 0 gives p itself).
fn expm1(x: Compute) -> Compute {
    let parts = exp_parts(x);
    // Only lanes with -17.5 <= x < 0 are kept, where -26 <= k <= 0.
    let two_k = power_of_two(clamp(parts.k, Compute(-64.0), Compute(0.0)));
    var result = parts.p * two_k + (two_k - 1.0);
    result = select(result, Compute(-1.0), x < Compute(EXPM1_F32_SATURATION));
    return select(result, x, x > Compute(EXPM1_F32_IDENTITY));
}

// (s, e) with s = a + b rounded and a + b = s + e exactly (Knuth's two-sum, for any order of
// magnitudes), its sums hidden so that no compiler folds e to zero by the algebra of reals.
struct SumParts {
    s: Compute,
    e: Compute,
}

fn two_sum(a: Compute, b: Compute) -> SumParts {
    let s = hidden(a + b);
    let b_part = hidden(s - a);
    return SumParts(s, (a - (s - b_part)) + (b - b_part));
}

// two_sum's parts in three steps where |a| >= |b| or a = 0 (Dekker's fast two-sum).
fn fast_two_sum(a: Compute, b: Compute) -> SumParts {
    let s = hidden(a + b);
    return SumParts(s, b - (s - a));
}

// two_sum's parts for a, b >= 0: fast_two_sum with the larger first, the same exact error in
// four steps where two_sum takes six.
fn two_sum_of_nonnegatives(a: Compute, b: Compute) -> SumParts {
    return fast_two_sum(max(a, b), min(a, b));
}

// alpha expm1(x / alpha) for x / alpha < 0 (Celu's negative side), given q = mul(x, reciprocal)
// and reciprocal, 1 / alpha's nearest f32: 1 ULP over every alpha (a million random cases,
// `expm1_of_quotient_product` in src/cpu/math_f32.rs), subnormal results 2. Rounding in steps
// (q, then expm1(q), then the product) spans up to 3 ULP: a ULP of expm1(q) can be two of the
// product's. So nothing is rounded until the end: q carries its residual's correction, r = q -
// k ln2 its two-sum's error, and alpha expm1(q) = (2^k alpha - alpha) + 2^k alpha (r + r^2
// q(r)) is summed from exact sums and products and their errors. An alpha beyond 2^-64 to 2^64
// is first brought in range, with x, by an exact power of two.
const QUOTIENT_PRODUCT_F32_TINY_ALPHA: f32 = 0x1p-64f;
const QUOTIENT_PRODUCT_F32_HUGE_ALPHA: f32 = 0x1p64f;

fn expm1_of_quotient_product(x_given: Compute, q: Compute, alpha_given: Compute, reciprocal_given: Compute) -> Compute {
    // f16 and bf16 round the steps' 3 ULP of f32 away (their 1 ULP holds): for them, the steps,
    // at half the cost (lavapipe, 2^24 elements: 0.40 and 0.51 of the copy, where the sum of
    // exact parts took 0.19 and 0.23).
    if ELEMENT_BITS < 32u {
        return mul(alpha_given, expm1(q));
    }
    let magnitude = absolute(alpha_given);
    let exponent = select(
        select(Compute(0.0), Compute(-64.0), magnitude > Compute(QUOTIENT_PRODUCT_F32_HUGE_ALPHA)),
        Compute(64.0),
        magnitude < Compute(QUOTIENT_PRODUCT_F32_TINY_ALPHA)
    );
    let scale = power_of_two(exponent);
    let unscale = power_of_two(-exponent);
    let x = mul(x_given, scale);
    let alpha = mul(alpha_given, scale);
    let reciprocal = reciprocal_given * unscale;
    let q_low = residual(x, q, alpha) * reciprocal;
    let k = round(q * INV_LN2);
    let r_parts = two_sum(q - k * LN2_HI, q_low - k * LN2_LO);
    let r = r_parts.s;
    let r2 = r * r;
    let tail = r_parts.e + r2 * expm1_quotient(r, r2);
    // Only lanes with -17.5 <= q < 0 are kept, where -26 <= k <= 0: |alpha| >= |2^k alpha|, and
    // |2^k alpha - alpha| >= |2^k alpha r| (|r| <= ln2 / 2) but for k = 0, where it is 0.
    let two_k = power_of_two(clamp(k, Compute(-64.0), Compute(0.0)));
    let c = fast_two_sum(negate(alpha), alpha * two_k);
    let b = rounded_product(alpha, r);
    let sum = fast_two_sum(c.s, b * two_k);
    let low = (c.e + sum.e) + two_k * (product_error(alpha, r, b) + alpha * tail);
    let y = mul(sum.s + low, unscale);
    return select(y, negate(alpha_given), q < Compute(EXPM1_F32_SATURATION));
}

// c - a b rounded once, for a c within a factor of two of a b (a quotient's residual): with p =
// a b rounded, c - p is exact (Sterbenz's lemma) and p's error (product_error) comes off after.
// mul_add's result for such operands, without its cases for zeros, infinities and products a
// flushing device loses, which a residual never meets (Tanh f32 8% faster on lavapipe, when it
// took one).
fn residual(c: Compute, a: Compute, b: Compute) -> Compute {
    let p = rounded_product(a, b);
    return (c - p) - product_error(a, b, p);
}

// 1 / (1 + u) for 0 <= u <= 1: the device's quotient y, then the residual 1 - (1 + u) y = (1 -
// y) - u y (1 - y is exact for y >= 1/2) with its product rounded (its error, 2^-25 at most,
// moves y by a sixteenth of an ULP of the correction), then y + y r: within about an ULP, for
// the callers whose bound has room for it (logistic: 2 ULP over every f32 either way,
// measured), at a third of the cost of the residual's exact product.
fn reciprocal_of_one_plus_rounded(u: Compute) -> Compute {
    let y = quotient(Compute(1.0), 1.0 + u);
    return y + y * ((1.0 - y) - u * y);
}

// logistic(x) = 1 / (1 + e^-x). With e = e^-|x| = 2^k (1 + p): sigmoid(|x|) = 1 / (1 + e), and
// sigmoid(-|x|) = e / (1 + e) = 2^k (y + p y), the 2^k applied in two exact steps so that a
// subnormal result is rounded once (by mul, exact on a device that flushes).
fn logistic(x: Compute) -> Compute {
    let parts = exp_parts(max(-absolute(x), Compute(-SIGMOID_F32_UNDERFLOW)));
    // e^-|x|, its rounding (and its scale, held at 2^-100) all but invisible in 1 + e.
    let e = (1.0 + parts.p) * first_power_of_two(parts.k);
    let y = reciprocal_of_one_plus_rounded(e);
    let below = scaled_once(y + parts.p * y, parts.k);
    return select(below, y, is_positive_or_nan(x));
}

// tanh(x) = (1 - e) / (1 + e) with e = e^-2|x| = 2^k (1 + p): 1 - e = -expm1(-2|x|) =
// -(2^k p + (2^k - 1)) without cancellation, times y = 1 / (1 + e); the sign is x's. y is the
// device's quotient y0 corrected by its residual against 1 + 2^k (1 + p) unrounded, 1 - (1 +
// 2^k (1 + p)) y0 = ((1 - y0) - 2^k y0) - 2^k p y0, as in mish_product: 1 - y0 is exact (y0 >=
// 1/2), 2^k y0 too, their difference too (Sterbenz: their ratio is about 1 + p), and only the
// small last product is rounded, where the residual of u y0 took the whole product exactly
// (same 2 ULP over every f32, 12 steps fewer: 0.66-0.67 -> 0.71-0.72 of the copy on lavapipe).
fn hyperbolic_tangent(x: Compute) -> Compute {
    let a = absolute(x);
    let parts = exp_parts(-2.0 * min(a, Compute(TANH_F32_SATURATION)));
    let two_k = power_of_two(parts.k);
    let scaled_p = parts.p * two_k;
    let y0 = quotient(Compute(1.0), 1.0 + (1.0 + parts.p) * two_k);
    let y = y0 + y0 * (((1.0 - y0) - two_k * y0) - scaled_p * y0);
    let t = -(scaled_p + (two_k - 1.0)) * y;
    let signed = bitcast<Compute>(bitcast<vec4<u32>>(t) | (bitcast<vec4<u32>>(x) & vec4(0x80000000u)));
    return select(signed, x, a < Compute(TANH_F32_IDENTITY));
}

// log1p(e) for 0 <= e <= 1 (fdlibm's log1pf): u = 1 + e rounded, lost = (e - (u - 1)) / u the
// rounding it lost (e - (u - 1) is exact), u = 2^k m with k in {0, 1} and m in [sqrt2/2,
// sqrt2], f = m - 1 (exact), and log(m) = f - f^2/2 + s (f^2/2 + R(s^2)) with s = f / (2 + f),
// R(z) = z (c0 + c1 z + c2 z^2) (mpmath's chebyfit of R(z)/z on z <= 0.0295, rounded to f32;
// error below 6e-9 in R, 2^-35 of log(m): FreeBSD's logf takes a fourth term, for 2^-34, which
// f32's 2 ULP do not need), and k ln2 selected (k is 0 or 1: a step fewer than k times ln2).
// The device's quotients reach only the terms of order f^3 and the lost rounding. u is hidden
// from the compiler, which would fold e - ((1 + e) - 1) to 0 (lavapipe's does).
fn log1p_of_unit(e: Compute) -> Compute {
    let u = hidden(1.0 + e);
    let lost = quotient(e - (u - 1.0), u);
    let above = u > Compute(SQRT2_F32);
    let m = select(u, u * 0.5, above);
    let ln2_hi = select(Compute(0.0), Compute(LN2_HI), above);
    let ln2_lo = select(Compute(0.0), Compute(LN2_LO), above);
    let f = m - 1.0;
    let half_square = 0.5 * f * f;
    let s = quotient(f, 2.0 + f);
    let z = s * s;
    let r = z * (0.6666668653488159 + z * (0.3998875916004181 + z * 0.29580986499786377));
    return ln2_hi - ((half_square - (s * (half_square + r) + (ln2_lo + lost))) - f);
}

// log(1 + e^x) (softplus) = max(x, 0) + log1p(e) with e = e^-|x| = 2^k (1 + p): x + log1p(e)
// above 0; below, log1p(e), or e itself where that is what it rounds to, scaled in two exact
// steps so that a subnormal result is rounded once (by mul, exact on a device that flushes).
// +inf for +inf, 0 for -inf.
fn log_one_plus_exp(x: Compute) -> Compute {
    let parts = exp_parts(max(-absolute(x), Compute(-SIGMOID_F32_UNDERFLOW)));
    // e^-|x|, its scale held at 2^-100: below 2^-24, log1p(e) is not taken.
    let e = (1.0 + parts.p) * first_power_of_two(parts.k);
    let l = log1p_of_unit(e);
    let below = select(l, scaled_once(1.0 + parts.p, parts.k), e < Compute(LOG1P_F32_IDENTITY));
    return select(below, x + l, is_positive_or_nan(x));
}

// Beyond this |a x|, x sigmoid(a x) is x or 0: below -this, |x| 2^s e^(a x) < 2^-150 for every
// f32 x and scale exponent s <= 128 (SwiGLU's A B beyond f32's range).
const LOGISTIC_PRODUCT_F32_SATURATION: f32 = 290.0;

// x sigmoid(a x) (Swish) with one rounding at the end. t = a x is rounded, but a x = t + d
// exactly (product_error), and sigmoid(t + d) = sigmoid(t) (1 + (1 - sigmoid(t)) d) to far
// below an ULP. With e = e^-|t| = 2^k (1 + p) and y = 1 / (1 + e) (its residual's product
// rounded: 2 ULP either way, measured, for 12% more speed on lavapipe), sigmoid(a x) = y (1 + q) 2^k': for t
// > 0, sigmoid(t) = y and 1 - sigmoid(t) = e y, so q = d e y and k' = 0; for t <= 0, sigmoid(t)
// = 2^k (y + p y) and 1 - sigmoid(t) = y, so q = p + d y (1 + p) and k' = k. x = 2^j m with m in
// [1, 4) from its bits (a subnormal x scaled up first); m y = h + l exactly (product_error), h +
// (l + h q) is rounded once, and 2^(j + k') is applied in two steps, the first exact, so that
// a subnormal result is rounded once too. A saturated negative t gives x 0 (a signed zero); an
// infinite x and a NaN t (0 x inf) give the function body's x or NaN.
fn logistic_product(x: Compute, a: Compute) -> Compute {
    let t = mul(a, x);
    return logistic_of_sum_product(x, t, product_error(a, x, t));
}

// x sigmoid(t + error) for a t and its small error (what logistic_product computes from its a
// x, and gelu_tanh_product from its cubic).
fn logistic_of_sum_product(x: Compute, t: Compute, error: Compute) -> Compute {
    return logistic_of_scaled_sum_product(x, t, error, Compute(0.0));
}

// x 2^s sigmoid(t + error), rounded once, for an integral s in [0, 128]: SwiGLU's A B beyond
// f32's range, passed as (A 2^-64)(B 2^-64) with s = 128.
fn logistic_of_scaled_sum_product(x: Compute, t: Compute, error: Compute, s: Compute) -> Compute {
    let saturated = absolute(t) > Compute(LOGISTIC_PRODUCT_F32_SATURATION);
    let gate = logistic_gate(t, select(error, Compute(0.0), saturated));
    let tiny = absolute(x) < Compute(0x1p-100f);
    let scaled_up = select(x, mul(x, Compute(0x1p64f)), tiny);
    let j = binade(scaled_up);
    let exponent = j + s + gate.k - select(Compute(0.0), Compute(64.0), tiny);
    let scaled = scaled_gate_product(scaled_up * power_of_two(-j), gate, exponent);
    // x's sign, which a zero (or a subnormal rounded to zero) may have lost in the sums.
    let sign = bitcast<vec4<u32>>(x) & vec4(0x80000000u);
    let signed = bitcast<Compute>((bitcast<vec4<u32>>(scaled) & vec4(0x7fffffffu)) | sign);
    // The body's x 0 and x 1 (an infinite x has a saturated t).
    let above = is_positive_or_nan(t);
    let infinite = (bitcast<vec4<u32>>(x) & vec4(0x7fffffffu)) == vec4(0x7f800000u);
    let result = select(select(signed, times_zero(x), saturated & !above), x, infinite & above);
    return select(result, t, f32_is_nan(t));
}

// logistic_of_sum_product where its step's plain range holds (src/ops/plain_products.rs: Swish,
// Gelu's tanh form, SwiGLU): x finite with |x| >= 2^-96, |t| <= 88 and a normal result. No
// saturated t, tiny x or infinity meets it, and the result's sign is already x's: the same bits as
// logistic_of_scaled_sum_product with s = 0, without its cases' steps (the `_plain` copy is made
// from this, src/kernel/prune.rs). x = ±m 2^j is split on its bits, m in [1, 2), the sign going
// with 2^j; the full function scales x by 2^-j instead. Every step rounds alike at either scale
// (no value here is subnormal), so the bits are the same, in 5 steps where binade, 2^-j and the
// product took 11 (AMD's compiler, RADV).
fn logistic_of_sum_product_in_range(x: Compute, t: Compute, error: Compute) -> Compute {
    let gate = logistic_gate(t, error);
    let bits = bitcast<vec4<u32>>(x);
    let m = bitcast<Compute>((bits & vec4(0x007fffffu)) | vec4(0x3f800000u));
    // ±2^(j + k) from x's sign and exponent field plus k (power_of_two's bits of k, less the bias
    // they hold): j + k lies in [-125, 127] (|x| >= 2^-96 and |t| <= 20, or |x| <= 10 where t
    // reaches -88), and the result is normal, so one exact scaling gives what two give.
    let k_bits = (bitcast<vec4<u32>>(gate.k + 8388735.0) << vec4(23u)) - vec4(0x3f800000u);
    return gate_mantissa(m, gate) * bitcast<Compute>((bits & vec4(0xff800000u)) + k_bits);
}

// sigmoid(t + d) = y (1 + q) 2^k, for |t| <= 290 and d t's small error (logistic_product).
struct LogisticGate {
    y: Compute,
    q: Compute,
    k: Compute,
}

fn logistic_gate(t: Compute, d: Compute) -> LogisticGate {
    let parts = exp_parts(max(-absolute(t), Compute(-LOGISTIC_PRODUCT_F32_SATURATION)));
    let e = (1.0 + parts.p) * power_of_two(max(parts.k, Compute(-126.0)));
    let y = reciprocal_of_one_plus_rounded(e);
    let above = is_positive_or_nan(t);
    let q = select(parts.p + (d * y) * (1.0 + parts.p), d * (e * y), above);
    return LogisticGate(y, q, select(parts.k, Compute(0.0), above));
}

// j with x = 2^j m, m in [1, 4), for a normal x (j at most 126, so that 2^-j is an f32).
fn binade(x: Compute) -> Compute {
    let biased = vec4<i32>((bitcast<vec4<u32>>(x) >> vec4(23u)) & vec4(0xffu));
    return Compute(min(biased - vec4(127), vec4(126)));
}

// m y (1 + q) for m in (-4, 4) with |m| >= 1, rounded once: m y = h + l exactly, and h + (l + h q).
fn gate_mantissa(m: Compute, gate: LogisticGate) -> Compute {
    let h = rounded_product(m, gate.y);
    return h + (product_error(m, gate.y, h) + h * gate.q);
}

// gate_mantissa(m, gate) 2^exponent, 2^exponent applied in two steps, the first exact, so that a
// subnormal result is rounded once too.
fn scaled_gate_product(m: Compute, gate: LogisticGate, exponent: Compute) -> Compute {
    let mantissa = gate_mantissa(m, gate);
    let first = clamp(exponent, Compute(-120.0), Compute(120.0));
    return mul(mantissa * power_of_two(first), power_of_two(clamp(exponent - first, Compute(-126.0), Compute(127.0))));
}

// SwiGLU's (a b) sigmoid(alpha a): a b rounded once (exact for the 16-bit types; where it
// overflows, (a 2^-64)(b 2^-64), the 2^128 returned in logistic_of_scaled_sum_product's final
// scaling), then that function, which takes alpha a with its product's error and rounds the
// product with the sigmoid once (subnormal results included, also where the device flushes):
// within 4 ULP of the correctly rounded f32 result (3 ULP of the function and half an ULP of
// a b), 1 ULP for the 16-bit types. An infinite or NaN a b gives the function body's value.
fn gated_product(a: Compute, b: Compute, alpha: Compute) -> Compute {
    let t = mul(alpha, a);
    return gated_product_of(a, b, t, product_error(alpha, a, t));
}

// gated_product_of where its step's plain range holds (`in_gated_plain_range`): a b normal and
// finite, and a with it, so that none of its special values arise: the same bits.
fn gated_product_of_in_range(a: Compute, b: Compute, t: Compute, error: Compute) -> Compute {
    return logistic_of_sum_product(a * b, t, error);
}

// (a b) sigmoid(a) (SwiGLU's alpha 1): gated_product where alpha a is a itself, exact, so that
// its product and that product's error go (the error is 0 there: the same bits).
fn self_gated_product(a: Compute, b: Compute) -> Compute {
    return gated_product_of(a, b, a, Compute(0.0));
}

// gated_product from t + error = alpha a (t rounded, the error exact).
fn gated_product_of(a: Compute, b: Compute, t: Compute, error: Compute) -> Compute {
    let product = mul(a, b);
    // (a 2^-64)(b 2^-64) is exact but for its one rounding where a b overflows, below 2^128 for
    // every f32 a and b; the 2^128 returns in the final scaling. It is read only there, where
    // neither factor is below 1 and the product not below 1 either: the float unit's product is
    // IEEE's there on any device, and elsewhere (where it may be subnormal) it is unused, so
    // it needs no exact product nor a flag (a flag here marked nearly every element).
    let scaled = (a * 5.421010862427522e-20) * (b * 5.421010862427522e-20);
    let exponent = vec4(0x7f800000u);
    let in_range = (bitcast<vec4<u32>>(product) & vec4(0x7fffffffu)) < exponent;
    let x = select(scaled, product, in_range);
    let result = logistic_of_scaled_sum_product(x, t, error, select(Compute(128.0), Compute(0.0), in_range));
    // What the function leaves to SwiGLU, where a or b is infinite or NaN: a b (infinite or NaN)
    // times sigmoid(alpha a) is a b where the sigmoid is above 0, which it is for every finite
    // alpha a (t = -inf from a finite a is an overflow: the real alpha a is finite), and NaN
    // where alpha a is -inf (a infinite: sigmoid 0) or NaN.
    let magnitude_a = bitcast<vec4<u32>>(a) & vec4(0x7fffffffu);
    let magnitudes = max(magnitude_a, bitcast<vec4<u32>>(b) & vec4(0x7fffffffu));
    let no_sigmoid = f32_is_nan(t) | ((bitcast<vec4<u32>>(t) == vec4(0xff800000u)) & (magnitude_a == exponent));
    let nan = bitcast<Compute>(vec4(0x7fc00000u | opaque_zero));
    return select(result, select(product, nan, no_sigmoid), magnitudes >= exponent);
}

// Below -this, |x| e^x < 2^-150 for every f32 x, and x sigmoid(x) rounds to -0.0; below this
// magnitude, x sigmoid(x) = x (1/2 + x/4) rounds as x / 2 does.
const SELF_LOGISTIC_F32_UNDERFLOW: f32 = 112.0;
const SELF_LOGISTIC_F32_TINY: f32 = 7.888609e-31; // 2^-100

// x sigmoid(x) (Swish with alpha 1, SiLU): logistic_product where a x = x is exact, so that its
// error term and its scaling of x to [1, 4) go. x is clamped to -112, where the result has
// rounded to -0.0 already. With e = e^-|x| = 2^k (1 + p) and y = 1 / (1 + e) (the residual's
// product rounded, as in logistic_product): for x > 0 the result is x y rounded once; for x <= 0
// it is h (1 + p) 2^k with h = x y rounded, h + h p scaled in two exact steps so that a
// subnormal result is rounded once. x y kept exact (two more roundings' worth of steps) gave 2
// ULP over every f32 and 0.59-0.62 of the copy kernel on lavapipe; rounded, 3 ULP (the bound)
// and 0.64-0.65. A tiny x gives x / 2 (mul: exact where a device flushes); +inf gives +inf,
// -inf the body's NaN (-inf x 0).
fn self_logistic_product(x: Compute) -> Compute {
    // A select, not max: a device that flushes subnormals may flush them in max too (and a
    // compiler may still make this a max: the tiny results below take x itself).
    let clamped = select(x, Compute(-SELF_LOGISTIC_F32_UNDERFLOW), x < Compute(-SELF_LOGISTIC_F32_UNDERFLOW));
    var result = self_logistic_product_of(clamped);
    // x, not clamped: NVIDIA's compiler turns the clamp's select back into a max, which flushes.
    result = select(result, mul(x, Compute(0.5)), absolute(clamped) < Compute(SELF_LOGISTIC_F32_TINY));
    let negative_infinity = bitcast<vec4<u32>>(x) == vec4(0xff800000u);
    return bitcast<Compute>(select(bitcast<vec4<u32>>(result), vec4(0x7fc00000u), negative_infinity));
}

// self_logistic_product where Swish's plain range holds (src/ops/plain_products.rs: 2^-96 <=
// |x| <= 20 for alpha 1): x is neither clamped, tiny nor infinite, so the same bits without those
// cases' steps (the `_plain` copy is made from this, src/kernel/prune.rs).
fn self_logistic_product_in_range(x: Compute) -> Compute {
    return self_logistic_product_of(x);
}

// self_logistic_product for x from -112 on, neither tiny nor infinite.
fn self_logistic_product_of(x: Compute) -> Compute {
    let parts = exp_parts(max(-absolute(x), Compute(-SELF_LOGISTIC_F32_UNDERFLOW)));
    let e = (1.0 + parts.p) * first_power_of_two(parts.k);
    let y = reciprocal_of_one_plus_rounded(e);
    let h = x * y;
    return select(scaled_once(h + h * parts.p, parts.k), h, is_positive_or_nan(x));
}

// x 0 as IEEE gives it, on the bits (a compiler may fold a product with 0): a zero of x's sign,
// NaN for an infinite x. The NaN comes from a run-time select: a constant bitcast to NaN is a
// shader-creation error in Tint.
fn times_zero(x: Compute) -> Compute {
    let bits = bitcast<vec4<u32>>(x);
    let infinite = (bits & vec4(0x7fffffffu)) == vec4(0x7f800000u);
    return bitcast<Compute>(select(bits & vec4(0x80000000u), vec4(0x7fc00000u), infinite));
}

// Below -this, |x| e^x < 2^-150; above this, tanh(log(1 + e^x)) rounds to 1; below this
// magnitude x y0 may be subnormal.
const MISH_F32_UNDERFLOW: f32 = 112.0;
const MISH_F32_SATURATION: f32 = 40.0;
const MISH_F32_TINY: f32 = 7.888609e-31; // 2^-100

// x tanh(log(1 + e^x)) (Mish). With w = e^x, tanh(log(1 + w)) = ((1 + w)^2 - 1) / ((1 + w)^2 + 1) =
// u / (1 + u), u = w (1 + w / 2) = 2^k (1 + f) with w = 2^k (1 + p) and f = p + (w / 2)(1 + p):
// nothing cancels or overflows (x is clamped to [-112, 40], beyond which the result is -0.0 or x).
// 1 / (1 + u) = y0 (1 + r) with y0 the device's quotient and r = 1 - (1 + u) y0 its residual,
// spelled so that every difference but the last is exact: (1 - 2 y0) - f y0 where k = 0, (1 - y0) -
// 2^k y0 - 2^k f y0 elsewhere (Sterbenz's lemma), the last product rounded (r needs only a few
// correct bits: 2 ULP over every f32 either way, measured, and 10% more speed on lavapipe than the
// exact product). x y0 = h + l exactly (product_error), and the result, never rounding an
// intermediate factor: for x <= 0, x y0 (1 + r)(1 + f) 2^k = h + (l + h (f + r (1 + f))), scaled in
// two exact steps so that a subnormal result is rounded once; for x > 0, x (1 - y0 (1 + r)) = (x -
// h) - (l + h r). +inf for +inf; -inf gives the function body's NaN (-inf x tanh(0)).
fn mish_product(x: Compute) -> Compute {
    let parts = mish_parts(x, clamp(x, Compute(-MISH_F32_UNDERFLOW), Compute(MISH_F32_SATURATION)));
    var result = select(scaled_once(parts.below, parts.k), parts.above, is_positive_or_nan(x));
    result = select(result, mul(x, parts.gate), absolute(x) < Compute(MISH_F32_TINY));
    result = select(result, x, x > Compute(MISH_F32_SATURATION));
    // Below the clamp x 0: -0.0, and NaN for -inf.
    return select(result, times_zero(x), x < Compute(-MISH_F32_UNDERFLOW));
}

// mish_product where Mish's plain range holds (src/ops/plain_products.rs: 2^-96 <= |x| <= 80):
// neither tiny nor below the clamp, and k >= -116 with a normal result, so that 2^k scales
// once, exactly: the same bits without those cases' steps (the `_plain` copy is made from this,
// src/kernel/prune.rs).
fn mish_product_in_range(x: Compute) -> Compute {
    let parts = mish_parts(x, min(x, Compute(MISH_F32_SATURATION)));
    let result = select(parts.below * parts.two_k, parts.above, is_positive_or_nan(x));
    return select(result, x, x > Compute(MISH_F32_SATURATION));
}

// mish_product's parts for x from -112 to 40, given `clamped` (x clamped to that, the
// exponential's argument): x tanh(log(1 + e^x)) = below 2^k for x <= 0 (2^k also as two_k,
// where k >= -126), above for x > 0, and the gate tanh(log(1 + e^x)) for a tiny x.
struct MishParts {
    below: Compute,
    k: Compute,
    two_k: Compute,
    above: Compute,
    gate: Compute,
}

fn mish_parts(x: Compute, clamped: Compute) -> MishParts {
    let parts = exp_parts(clamped);
    let two_k = power_of_two(max(parts.k, Compute(-126.0)));
    let f = parts.p + 0.5 * ((1.0 + parts.p) * two_k) * (1.0 + parts.p);
    let y0 = quotient(Compute(1.0), 1.0 + (1.0 + f) * two_k);
    let c = select((1.0 - y0) - two_k * y0, 1.0 - 2.0 * y0, parts.k == Compute(0.0));
    let r = c - (two_k * f) * y0;
    let h = rounded_product(x, y0);
    let l = product_error(x, y0, h);
    let below = h + (l + h * (f + r * (1.0 + f)));
    return MishParts(below, parts.k, two_k, (x - h) - (l + h * r), (1.0 + f) * (y0 + y0 * r));
}

// Beyond this |x|, x Phi(x) is x, or below 2^-150 (and -0.0).
const NORMAL_CDF_F32_END: f32 = 14.5;

// Below this |x|, x Phi(x) = x / 2 + x^2 / sqrt(2 pi) rounds as x / 2 does (but at a subnormal
// tie, within an ULP).
const NORMAL_CDF_F32_TINY: f32 = 7.888609e-31; // 2^-100

// x Phi(x), Phi(x) = erfc(-x / sqrt2) / 2 (Gelu's erf form). With a = |x|: Phi(-a) = e^(-a^2/2) t
// Q(t), t = 1 / (1 + a / 4), Q the fit of e^(a^2/2) Phi(-a) / t on a in [0, 14.5] (in t - 1/2,
// 11 terms, each rounded to f32 and the lower refitted after it, the constant split in two f32s:
// 2^-28 relative, tools/fit_normal_cdf.py; Q = g + g_low, its last sum's error kept): a^2 = s +
// s' exactly (product_error), so e^(-a^2/2) = 2^k (1 + p)(1 - s'/2) loses nothing to the square,
// whose rounding would cost a^2 ULPs (hundreds in the tail) where erfc(-x / sqrt2) of a rounded
// quotient is taken; 1 + a/4 is kept exactly (as a rounded sum and its error), t = t0 (1 + r)
// from the device's quotient t0 and its residual r; x t0 = m + l1 and m g = h + l2 exactly (two
// product errors), and the result is h + (h (p + (r - s'/2)(1 + p)) + (m g_low + l1 g + l2)(1 +
// p)), rounded there, scaled in two exact steps (a subnormal result is rounded once); for x > 0
// it is x - x Phi(-x) (what is subtracted is at most half of x, so its error stays below the
// result's). One form from 0 on: the fit of (Phi(x) - 1/2) / x that took |x| <= 1/2 before, and
// its select, cost 9 steps an element (AMD's compiler). 2 ULP over every f32, with a correctly
// rounded division and with one off by 2 ULP (the twin). A tiny x gives x / 2 (mul: exact where
// a device flushes); x itself beyond 14.5, -0.0 below -14.5, NaN for -inf (the body's -inf x 0).
fn normal_cdf_product(x: Compute) -> Compute {
    let parts = normal_cdf_parts(x, min(absolute(x), Compute(NORMAL_CDF_F32_END)));
    var result = normal_cdf_join(x, scaled_once(parts.tail, parts.k));
    result = select(result, mul(x, Compute(0.5)), absolute(x) < Compute(NORMAL_CDF_F32_TINY));
    result = select(result, x, x > Compute(NORMAL_CDF_F32_END));
    // Below the end x 0: -0.0, and NaN for -inf.
    return select(result, times_zero(x), x < Compute(-NORMAL_CDF_F32_END));
}

// normal_cdf_product where Gelu's plain range holds (src/ops/plain_products.rs: 2^-96 <= |x| <=
// 10): within the ends, not tiny, and k >= -73 with a normal result, so that 2^k scales once,
// exactly: the same bits without those cases' steps (the `_plain` copy is made from this,
// src/kernel/prune.rs).
fn normal_cdf_product_in_range(x: Compute) -> Compute {
    let parts = normal_cdf_parts(x, absolute(x));
    return normal_cdf_join(x, parts.tail * power_of_two(parts.k));
}

// x Phi(-|x|) = tail 2^k, for |x| <= 14.5.
struct NormalCdfParts {
    tail: Compute,
    k: Compute,
}

// x Phi(x) from x Phi(-|x|), scaled.
fn normal_cdf_join(x: Compute, tail: Compute) -> Compute {
    return select(tail, x - tail, is_positive_or_nan(x));
}

// normal_cdf_product's parts for |x| <= 14.5, given a = |x|.
fn normal_cdf_parts(x: Compute, a: Compute) -> NormalCdfParts {
    let q = 0.25 * a;
    let d = two_sum_of_nonnegatives(Compute(1.0), q);
    let t0 = quotient(Compute(1.0), d.s);
    let r = residual_of_one(d.s, t0) - d.e * t0;
    let v = (t0 - 0.5) + t0 * r;
    let g0 = (((-0.0107227415 * v + 0.027451076) * v + 0.010824584) * v - 0.0521417) * v - 0.055869136;
    let g1 = (((g0 * v + 0.06032041) * v + 0.24159373) * v + 0.373044) * v + 0.3871373;
    let p1 = g1 * v + 0.3039483;
    let vp = rounded_product(v, p1);
    let g = hidden(0.18882129 + vp);
    let g_low = ((0.18882129 - g) + vp) + -3.183913e-09;
    let square = a * a;
    let square_error = product_error(a, a, square);
    let parts = exp_parts(-0.5 * square);
    let m = rounded_product(x, t0);
    let h = rounded_product(m, g);
    let low = m * g_low + product_error(x, t0, m) * g + product_error(m, g, h);
    let correction = parts.p + (r - 0.5 * square_error) * (1.0 + parts.p);
    return NormalCdfParts(h + (h * correction + low * (1.0 + parts.p)), parts.k);
}

// x sigmoid(t), t = 2 sqrt(2/pi) (x + 0.044715 x^3) = x (c1 + c3 x^2): Gelu's tanh form, 0.5 x
// (1 + tanh(t / 2)), with its constants as real numbers (c1 and c3 as two f32s each). t is
// carried as t + d to about 2^-44 relative (x^2 and c3 x^2 as exact products, c1 + c3 x^2 as an
// exact sum, x times it as an exact product): the gate's relative error grows with |t| times
// t's (|t| reaches 200 where the result is not yet 0), so a t rounded once would cost up to 100
// ULPs in the negative tail. Then logistic_of_sum_product rounds the result once.
fn gelu_tanh_product(x: Compute) -> Compute {
    let square = x * x;
    let m = rounded_product(Compute(0.071354814), square);
    // The sum hidden (in fast_two_sum): a compiler that simplifies b - (b - m) to m (NVIDIA's
    // Vulkan driver does) would drop the sum's error (5 ULP on an H200).
    let b = two_sum_of_nonnegatives(Compute(1.5957692), m);
    let b_error = b.e;
    let b_low = b_error + (product_error(Compute(0.071354814), square, m)
        + (0.071354814 * product_error(x, x, square) + (2.3988325e-09 * square + -4.534068e-08)));
    let t = x * b.s;
    return logistic_of_sum_product(x, t, product_error(x, b.s, t) + x * b_low);
}

// max(0, min(1, alpha x + beta)) for a line whose zero z (the f32 nearest -beta / alpha) has
// alpha z + beta = at_zero exactly (HardSigmoid's LINES_THROUGH_THEIR_ZERO, in
// src/ops/hard_sigmoid.rs, and HardSwish's gate): alpha (x - z) + at_zero, where x - z is exact near the zero
// (Sterbenz) and alpha x + beta would cancel, so that one rounding of alpha (x - z) is all the
// error there. Within 1 ULP of the correctly rounded line over every f32
// x for each listed line (the twin, src/cpu/math_f32.rs), where the body is 2.9 million ULP off
// near the zero; at the body's cost, where mul_add's exact product cost 6 points of the copy
// kernel's speed on lavapipe. x - z is hidden, so that no compiler distributes alpha over it.
// The line is NaN only for a NaN x and never -0.0, so the plain clamp serves.
fn clamped_line_through_zero(x: Compute, alpha: Compute, beta: Compute, zero: Compute, at_zero: Compute) -> Compute {
    return clamp(hidden(x - zero) * alpha + at_zero, Compute(0.0), Compute(1.0));
}

// HardSwish's gate, max(0, min(1, alpha x + 1/2)) for its alpha, the f32 nearest 1/6
// (0x3e2aaaab): PyTorch's HardSigmoid line, through its zero: 3 alpha = 1/2 + 2^-26, so alpha x +
// 1/2 = alpha (x + 3) - 2^-26 exactly, and no f32 lies closer to the zero than -3 (-2^-26) and
// -2.9999998 (2.5e-8). The line is NaN only for a NaN x (which HardSwish passes through). With
// the product by x, 2 ULP over every f32 (the twin, src/cpu/math_f32.rs). f32 alone: in f64
// many x lie where the two terms cancel (math/f64.wgsl's keeps mul_add).
fn hard_swish_gate(x: Compute) -> Compute {
    return clamped_line_through_zero(x, Compute(0.16666667), Compute(0.5), Compute(-3.0), Compute(-0x1p-26f));
}

// x / (1 + |x|): y = 1 / (1 + |x|) from the device's quotient corrected by its residual (1 - y)
// - |x| y, x y below |x| = 1 and 1 - y above, each rounded once. The residual's own product is
// rounded: its error, 2^-25 at most, moves y by a sixteenth of an ULP of the correction, and
// the bound holds over every f32 with a correctly rounded division and with one off by up to 2
// ULP (src/cpu/math_f32.rs); the exact product cost 8% of the kernel's speed on lavapipe. An
// infinite x gives NaN (inf x 0 in the residual), as the function body's inf / inf does; x y is
// `mul`, exact on a device that flushes subnormals, so a tiny x comes back as x itself. The
// comparison is on the bits of |x|.
fn softsign_quotient(x: Compute) -> Compute {
    let bits = bitcast<vec4<i32>>(x) & vec4(0x7fffffff);
    let a = bitcast<Compute>(bits);
    let y0 = quotient(Compute(1.0), 1.0 + a);
    let y = y0 + y0 * ((1.0 - y0) - a * y0); // reciprocal_of_one_plus_rounded, beyond u = 1
    let large = bitcast<Compute>(bitcast<vec4<u32>>(1.0 - y) | (bitcast<vec4<u32>>(x) & vec4(0x80000000u)));
    return select(mul(x, y), large, bits >= vec4(0x3f800000));
}

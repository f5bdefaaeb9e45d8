// expm1(x) for f64 x < 0, two lanes at a time, accurate to about 1 ULP. CPU twin:
// src/cpu/expm1_f64.rs.
//
// exp() on f64 compiles but is not valid SPIR-V for 64-bit floats (lavapipe returns 0.0), so
// this uses only + - *, floor and exact scaling by powers of two, exactly like expm1_f32:
//   k = round(x / ln2), r = x - k ln2 (Cody-Waite, k * LN2_HI exact), |r| <= ln2/2
//   p = expm1(r) by its Taylor series to degree 13 (truncation < 2e-17 relative)
//   expm1(x) = 2^k p + (2^k - 1), 2^k - 1 exact for k >= -53.

// fdlibm's split of ln2: LN2_HI has 32 significant bits, so k * LN2_HI is exact for |k| < 2^20.
const LN2_HI_F64: f64 = 6.93147180369123816490e-01;
const LN2_LO_F64: f64 = 1.90821492927058770002e-10;
const INV_LN2_F64: f64 = 1.44269504088896338700e+00;
// Below this, e^x < 2^-54 and the correctly rounded result is -1.
const EXPM1_F64_SATURATION: f64 = -38.0;
// Above this (toward 0) expm1(x) rounds to x; returning x keeps the sign of flushed inputs.
const EXPM1_F64_IDENTITY: f64 = -5.551115123125783e-17; // -2^-54

fn expm1_f64(x: vec2<f64>) -> vec2<f64> {
    let k = floor(x * INV_LN2_F64 + 0.5);
    let r = (x - k * LN2_HI_F64) - k * LN2_LO_F64;
    var q = vec2<f64>(1.0 / 6227020800.0);
    q = 1.0 / 479001600.0 + r * q;
    q = 1.0 / 39916800.0 + r * q;
    q = 1.0 / 3628800.0 + r * q;
    q = 1.0 / 362880.0 + r * q;
    q = 1.0 / 40320.0 + r * q;
    q = 1.0 / 5040.0 + r * q;
    q = 1.0 / 720.0 + r * q;
    q = 1.0 / 120.0 + r * q;
    q = 1.0 / 24.0 + r * q;
    q = 1.0 / 6.0 + r * q;
    q = 0.5 + r * q;
    let p = r + (r * r) * q;
    // Only lanes with -38 <= x < 0 are kept, where -55 <= k <= 0. 2^k is built as an f32 (no
    // reliable bitcast to f64 exists) and widened exactly.
    let ki = vec2<i32>(clamp(k, vec2(-64.0), vec2(0.0)));
    let two_k = vec2<f64>(bitcast<vec2<f32>>(vec2<u32>(ki + vec2(127)) << vec2(23u)));
    var result = p * two_k + (two_k - 1.0);
    result = select(result, vec2(-1.0), x < vec2(EXPM1_F64_SATURATION));
    return select(result, x, x > vec2(EXPM1_F64_IDENTITY));
}

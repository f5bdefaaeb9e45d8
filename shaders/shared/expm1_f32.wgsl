// expm1(x) for f32 x < 0, four lanes at a time, accurate to about 1 ULP. CPU twin:
// src/cpu/expm1_f32.rs, whose check over every negative f32 runs with `cargo xtask sweep`.
//
// WGSL's exp() only promises 3 + 2|x| ULP and exp(x) - 1 loses all relative accuracy near 0,
// so this uses only + - * and exact scaling by powers of two (built from their bits: ldexp
// becomes a call per lane on some drivers):
//   k = round(x / ln2), r = x - k ln2 (Cody-Waite, exact high part), |r| <= ln2/2
//   p = expm1(r) = r + r^2 q(r), q of degree 5 near-minimax on |r| <= 1.001 ln2/2 (mpmath's
//   chebyfit of (expm1(r) - r) / r^2 with 6 terms, coefficients rounded to f32): 1.9e-9 =
//   2^-29 relative, as accurate as the Taylor series one degree longer
//   expm1(x) = 2^k p + (2^k - 1): the scaling is exact, 2^k - 1 is exact for k >= -24, and one
//   rounding joins them, so no step cancels (k = 0 gives p itself).
// Branch-free: lanes that are not negative (the caller keeps X there) compute harmless garbage.

// ln2 split so that k * LN2_HI is exact for |k| < 2^8: LN2_HI has its low 9 mantissa bits zero.
const LN2_HI: f32 = 0.693145751953125;
const LN2_LO: f32 = 1.4286068203094172e-6;
const INV_LN2: f32 = 1.4426950408889634;
// Below this, e^x < 2^-25 and the correctly rounded result is -1.
const EXPM1_F32_SATURATION: f32 = -17.5;
// Above this (toward 0), x^2/2 is below half an ULP of x, so expm1(x) rounds to x. Returning
// x also keeps the sign where a device flushes a subnormal x to -0.0.
const EXPM1_F32_IDENTITY: f32 = -2.9802322387695312e-8; // -2^-25

fn expm1_f32(x: vec4<f32>) -> vec4<f32> {
    let k = round(x * INV_LN2);
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let q = 0.5 + r * (0.16666667 + r * (0.041666463 + r * (0.0083333105 + r * (0.0013933731
        + r * 0.0001989108))));
    let p = r + (r * r) * q;
    // Only lanes with -17.5 <= x < 0 are kept, where -26 <= k <= 0.
    let ki = vec4<i32>(clamp(k, vec4(-64.0), vec4(0.0)));
    let two_k = bitcast<vec4<f32>>(vec4<u32>(ki + vec4(127)) << vec4(23u));
    var result = p * two_k + (two_k - 1.0);
    result = select(result, vec4(-1.0), x < vec4(EXPM1_F32_SATURATION));
    return select(result, x, x > vec4(EXPM1_F32_IDENTITY));
}

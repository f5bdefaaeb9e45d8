// expm1(x) for f32 x < 0, accurate to about 1 ULP (the CPU twin is
// `wgpu_activations::shader_mirror::expm1_f32`; its exhaustive check over every negative f32
// runs with `cargo xtask sweep`).
//
// WGSL's exp() only promises 3 + 2|x| ULP and exp(x) - 1 loses all relative accuracy near 0,
// so this uses only + - * and ldexp, whose f32 rounding WGSL specifies:
//   k = round(x / ln2), r = x - k ln2 (Cody-Waite, exact high part), |r| <= ln2/2
//   p = expm1(r) by its Taylor series to degree 8 (truncation < 2e-10 relative on |r| <= 0.347)
//   expm1(x) = 2^k (p + 1) - 1, arranged per k so that no step cancels.

// ln2 split so that k * LN2_HI is exact for |k| < 2^8: LN2_HI has its low 9 mantissa bits zero.
const LN2_HI: f32 = 0.693145751953125;
const LN2_LO: f32 = 1.4286068203094172e-6;
const INV_LN2: f32 = 1.4426950408889634;
// Below this, e^x < 2^-25 and the correctly rounded result is -1.
const EXPM1_F32_SATURATION: f32 = -17.5;

// Above this (toward 0), x^2/2 is below half an ULP of x, so expm1(x) rounds to x. Returning
// x also keeps the sign where a device flushes a subnormal x to -0.0.
const EXPM1_F32_IDENTITY: f32 = -2.9802322387695312e-8; // -2^-25

fn expm1_f32(x: f32) -> f32 {
    if (x < EXPM1_F32_SATURATION) {
        return -1.0;
    }
    if (x > EXPM1_F32_IDENTITY) {
        return x;
    }
    let k = round(x * INV_LN2);
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let q = 0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0
        + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))));
    let p = r + (r * r) * q;
    let ki = i32(k);
    if (ki == 0) {
        return p;
    }
    if (ki == -1) {
        // 2^-1 (p + 1) - 1 = p/2 - 1/2: both terms exact, one rounding.
        return p * 0.5 - 0.5;
    }
    // k <= -2: rounding p + 1 costs at most 2^-24 * 2^k <= 1/4 ULP of the result.
    return ldexp(p + 1.0, ki) - 1.0;
}

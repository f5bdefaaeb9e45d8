//! CPU twin of `shaders/shared/expm1_f64.wgsl`, step for step in f64.

/// fdlibm's split of ln2 (bit patterns of the WGSL constants): LN2_HI has 32 significant bits.
pub(crate) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(crate) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INV_LN2: f64 = std::f64::consts::LOG2_E;

/// The twin of `expm1_f64`. Defined for x <= 0 (Elu's negative branch); NaN for positive x.
pub(crate) fn expm1_f64(x: f64) -> f64 {
    if let Some(y) = expm1_shortcut(x, -38.0, f64::from_bits(0x3c90_0000_0000_0000)) {
        return y; // -2^-54 < x <= 0 gives x
    }
    let k = (x * INV_LN2 + 0.5).floor();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let q = INV_FACTORIALS[1..].iter().fold(INV_FACTORIALS[0], |q, &c| c + r * q);
    let p = r + (r * r) * q;
    // 2^k, exact (-55 <= k <= 0); the kernel builds it as an f32 and widens it.
    let two_k = f64::from_bits(((1023 + k as i64) as u64) << 52);
    p * two_k + (two_k - 1.0)
}

/// The kernels' expm1 before its polynomial, in both widths: NaN for positive x or NaN, -1 below
/// `saturated`, x itself above `-tiny` (where the rounded result is x); none elsewhere.
pub(crate) fn expm1_shortcut(x: f64, saturated: f64, tiny: f64) -> Option<f64> {
    match x {
        _ if x > 0.0 || x.is_nan() => Some(f64::NAN),
        _ if x < saturated => Some(-1.0),
        _ if x > -tiny => Some(x),
        _ => None,
    }
}

/// 1/13! down to 1/2: the coefficients of the Horner evaluation, in the order the kernel uses.
pub(crate) const INV_FACTORIALS: [f64; 12] = [
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    #[test]
    fn within_two_ulp_of_exp_m1_on_a_dense_sample() {
        // Log-spaced from -1e-300 to -40. f64's own exp_m1 is within 1 ULP, so allow 2 against it.
        let n = 1 << 18;
        let (lo, hi) = (1e-300f64.ln(), 40f64.ln());
        let mut worst = 0;
        for i in 0..n {
            let x = -(lo + (hi - lo) * i as f64 / (n - 1) as f64).exp();
            worst = worst.max(ulp_distance(expm1_f64(x), x.exp_m1()).unwrap_or(u64::MAX));
        }
        assert!(worst <= 2, "max error {worst} ULP");
    }
}

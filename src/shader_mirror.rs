//! CPU twins of the shader algorithms, step for step in the same precision, so their error
//! bounds can be checked exhaustively on the CPU (`cargo xtask sweep`) as well as on the GPU.

/// The twin of `expm1_f32` in `shaders/shared/expm1_f32.wgsl`. Defined for x <= 0 (Elu's
/// negative branch); NaN for positive x.
pub fn expm1_f32(x: f32) -> f32 {
    // Bit patterns of the WGSL constants (decimal literals there, rounded the same way).
    const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
    const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
    const INV_LN2: f32 = std::f32::consts::LOG2_E;
    if x > 0.0 || x.is_nan() {
        return f32::NAN;
    }
    if x < -17.5 {
        return -1.0;
    }
    if x > -f32::from_bits(0x3300_0000) {
        return x; // -2^-25 < x <= 0
    }
    let k = (x * INV_LN2).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let q = 0.5
        + r * (1.0 / 6.0
            + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))));
    let p = r + (r * r) * q;
    let ki = k as i32;
    if ki == 0 {
        return p;
    }
    if ki == -1 {
        return p * 0.5 - 0.5;
    }
    ldexp_f32(p + 1.0, ki) - 1.0
}

/// The twin of `expm1_f64` in `shaders/shared/expm1_f64.wgsl`. Defined for x <= 0 (Elu's
/// negative branch); NaN for positive x.
pub fn expm1_f64(x: f64) -> f64 {
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const INV_LN2: f64 = std::f64::consts::LOG2_E;
    const INV_FACTORIALS: [f64; 12] = [
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
    if x > 0.0 || x.is_nan() {
        return f64::NAN;
    }
    if x < -38.0 {
        return -1.0;
    }
    if x > -f64::from_bits(0x3c90_0000_0000_0000) {
        return x; // -2^-54 < x <= 0
    }
    let k = (x * INV_LN2 + 0.5).floor();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let q = INV_FACTORIALS[1..].iter().fold(INV_FACTORIALS[0], |q, &c| c + r * q);
    let p = r + (r * r) * q;
    let ki = k as i32;
    if ki == 0 {
        return p;
    }
    if ki == -1 {
        return p * 0.5 - 0.5;
    }
    (p + 1.0) * f64::from_bits(((1023 + ki) as u64) << 52) - 1.0
}

fn ldexp_f32(v: f32, exponent: i32) -> f32 {
    // Exact for the range used here (results stay normal): scale by a power of two.
    v * f32::from_bits(((127 + exponent) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    #[test]
    fn expm1_f32_twin_is_within_one_ulp_on_a_dense_sample() {
        let mut worst = 0u64;
        let mut bits = 0x8000_0001u32;
        while bits < 0xC1A0_0000 {
            let x = f32::from_bits(bits);
            let exact = (x as f64).exp_m1() as f32;
            worst = worst.max(ulp_distance(expm1_f32(x), exact).unwrap_or(u64::MAX));
            bits += 997;
        }
        assert!(worst <= 1, "max error {worst} ULP");
    }

    /// Max ULP error of the f32 twin over every negative f32 (2^31 - 2^23 values), against
    /// f64's exp_m1 rounded once. Minutes on two cores: run by `cargo xtask sweep`.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn expm1_f32_twin_over_every_negative_f32() {
        let worst = std::thread::scope(|scope| {
            let halves = [0x8000_0001u32..0xC000_0000, 0xC000_0000..0xFF80_0001];
            let handles: Vec<_> = halves
                .into_iter()
                .map(|range| {
                    scope.spawn(move || {
                        range
                            .map(|bits| {
                                let x = f32::from_bits(bits);
                                let exact = (x as f64).exp_m1() as f32;
                                (ulp_distance(expm1_f32(x), exact).unwrap_or(u64::MAX), bits)
                            })
                            .max()
                            .unwrap_or((0, 0))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("sweep thread")).max().unwrap_or((0, 0))
        });
        println!("expm1_f32 twin: max error {} ULP over every negative f32 (worst at {:e})", worst.0, f32::from_bits(worst.1));
        assert!(worst.0 <= 1);
    }

    #[test]
    fn expm1_f64_twin_is_within_one_ulp_on_a_dense_sample() {
        // Log-spaced from -1e-300 to -40, against a double-double reference of exp_m1 where it
        // matters: f64's own exp_m1 is within 1 ULP, so allow 2 against it.
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

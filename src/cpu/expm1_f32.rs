//! CPU twin of `shaders/shared/expm1_f32.wgsl`, step for step in f32, so that the kernel's
//! error bound can be checked over every negative f32 (`cargo xtask sweep`).

use super::expm1_f64::expm1_shortcut;

/// The WGSL's near-minimax coefficients of q beyond its constant 0.5, by their bits.
const Q: [u32; 5] = [0x3e2a_aaab, 0x3d2a_aa74, 0x3c08_8870, 0x3ab6_a1d8, 0x3950_92b6];

/// The twin of `expm1_f32`. Defined for x <= 0 (Elu's negative branch); NaN for positive x.
pub(crate) fn expm1_f32(x: f32) -> f32 {
    // Bit patterns of the WGSL constants (decimal literals there, rounded the same way).
    const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
    const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
    const INV_LN2: f32 = std::f32::consts::LOG2_E;
    if let Some(y) = expm1_shortcut(f64::from(x), -17.5, f64::from(f32::from_bits(0x3300_0000))) {
        return y as f32; // exact: NaN, -1, or x itself (-2^-25 < x <= 0)
    }
    let k = (x * INV_LN2).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let [q1, q2, q3, q4, q5] = Q.map(f32::from_bits);
    let q = 0.5 + r * (q1 + r * (q2 + r * (q3 + r * (q4 + r * q5))));
    let p = r + (r * r) * q;
    // 2^k from its bits, exact for the k this range gives (-26 <= k <= 0).
    let two_k = f32::from_bits(((127 + k as i32) as u32) << 23);
    p * two_k + (two_k - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    /// The twin's coefficients are the WGSL's literals, rounded to f32.
    #[test]
    fn coefficients_match_the_wgsl() {
        let wgsl = include_str!("../../shaders/shared/expm1_f32.wgsl");
        let start = wgsl.find("let q =").expect("the WGSL computes q");
        let statement = &wgsl[start..start + wgsl[start..].find(';').expect("q's statement ends")];
        let literals: Vec<u32> = statement
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|token| token.contains('.'))
            .map(|token| token.parse::<f32>().expect("a float literal").to_bits())
            .collect();
        let mut expected = vec![0.5f32.to_bits()];
        expected.extend(Q);
        assert_eq!(literals, expected);
    }

    #[test]
    fn within_one_ulp_on_a_dense_sample() {
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

    /// Max ULP error over every negative f32 (2^31 - 2^23 values), against f64's exp_m1
    /// rounded once. Minutes on two cores: run by `cargo xtask sweep`.
    #[test]
    #[ignore = "exhaustive sweep: cargo xtask sweep"]
    fn over_every_negative_f32() {
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
        println!(
            "expm1_f32 twin: max error {} ULP over every negative f32 (worst at {:e})",
            worst.0,
            f32::from_bits(worst.1)
        );
        assert!(worst.0 <= 1);
    }
}

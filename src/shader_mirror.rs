//! CPU twins of the shader algorithms, step for step in the same precision, so their error
//! bounds can be checked exhaustively on the CPU (`cargo xtask sweep`) as well as on the GPU.

/// The twin of `expm1_f32` in `shaders/shared/expm1_f32.wgsl` (defined for x < 0).
pub fn expm1_f32(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_751_953_125;
    const LN2_LO: f32 = 1.428_606_820_309_417_2e-6;
    const INV_LN2: f32 = std::f32::consts::LOG2_E;
    if x < -17.5 {
        return -1.0;
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
}

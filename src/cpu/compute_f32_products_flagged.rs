//! CPU twin of `shaders/compute/f32_products_flagged.wgsl`: the first of two passes on a device
//! that flushes subnormals takes the float unit's product and raises the Vector's flag where it
//! may be wrong (`compute_f32_product_flag.rs`); the second pass computes the flagged Vectors
//! again with the exact products (`compute_f32_products_exact.rs`).

use super::compute_f32_product_flag::needs_exact;

/// The product as the first pass computes it on a unit whose product is `unit`: the unit's
/// own, with `flag` raised (never lowered) where it may be wrong.
pub(crate) fn mul(unit: super::compute_f32_product_flag::Unit, a: f32, b: f32, flag: &mut bool) -> f32 {
    let product = unit(a, b);
    *flag |= needs_exact(a, b, product);
    product
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::compute_f32_product_flag::{FLUSHING_UNITS, pattern};

    /// A Vector's products, as the first pass takes them: where its flag stays down, every one
    /// is the IEEE product, and once raised the flag stays up.
    #[test]
    fn an_unflagged_vector_holds_ieee_products() {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for (unit_name, unit) in FLUSHING_UNITS {
            for _ in 0..200_000 {
                let mut flag = false;
                let pairs: Vec<(f32, f32)> = (0..4).map(|_| (pattern(&mut state), pattern(&mut state))).collect();
                let products: Vec<f32> = pairs.iter().map(|&(a, b)| mul(unit, a, b, &mut flag)).collect();
                let raised = pairs.iter().zip(&products).any(|(&(a, b), &p)| needs_exact(a, b, p));
                assert_eq!(flag, raised, "{unit_name}: the flag is the OR of the Vector's");
                if !flag {
                    for (&(a, b), &p) in pairs.iter().zip(&products) {
                        let ieee = a * b;
                        assert!(
                            p.to_bits() == ieee.to_bits() || (p.is_nan() && ieee.is_nan()),
                            "{unit_name}: {a:e} x {b:e} gave {p:e} unflagged, IEEE {ieee:e}"
                        );
                    }
                }
            }
        }
    }
}

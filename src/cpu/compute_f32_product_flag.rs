//! CPU twin of `shaders/compute/f32_product_flag.wgsl`: where a float unit that flushes
//! subnormals may have got a product wrong (`needs_exact`, the twin of `product_may_be_wrong`),
//! and what such a unit does to a value (`flushed`). Both kinds of exact products rest on it: the
//! first of two passes raises it (`compute_f32_products_flagged.rs`), the one-pass products take
//! the integers only behind it (`compute_f32_products_exact.rs`). The tests show the claim they
//! rest on: wherever the flag stays down, the flushing unit's product is the IEEE product, bit for
//! bit, whichever way the unit flushes (operands, results, or both).

/// `x`, or a zero of its sign where it is subnormal: what a flushing float unit sees or gives.
pub(crate) fn flushed(x: f32) -> f32 {
    if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x }
}

/// Where a flushing unit's `product` of `a` and `b` may be wrong: a subnormal operand, or a
/// zero from two nonzero operands (as the shader decides it: the operands on their bits, the
/// zero by the float unit's compare).
pub(crate) fn needs_exact(a: f32, b: f32, product: f32) -> bool {
    let smaller = (a.to_bits() & 0x7fff_ffff).min(b.to_bits() & 0x7fff_ffff);
    smaller > 0 && (product == 0.0 || smaller < 0x0080_0000)
}

/// Bit patterns with exponents where the cases are: 0 (subnormals), around the boundary of
/// subnormal products, and anywhere.
#[cfg(test)]
pub(crate) fn pattern(state: &mut u64) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    let r = *state;
    let exponent = match r % 5 {
        0 => 0,
        1 => (r >> 8) % 4 + 1,
        2 => 60 + (r >> 8) % 10,
        3 => 255,
        _ => (r >> 8) % 256,
    } as u32;
    let fraction = match (r >> 20) % 4 {
        0 => (r >> 32) as u32 & 0xf,
        1 => 0x7f_fff0 | ((r >> 32) as u32 & 0xf),
        _ => (r >> 32) as u32 & 0x7f_ffff,
    };
    f32::from_bits(((r >> 63) as u32) << 31 | exponent << 23 | fraction)
}

/// The operand pairs the products' tests take: two million from [`pattern`] seeded with `seed`,
/// then every pair of zeros, the smallest normal and subnormals, infinity and ordinary values,
/// each also with the first negated.
#[cfg(test)]
pub(crate) fn operand_pairs(seed: u64) -> impl Iterator<Item = (f32, f32)> {
    let mut state = seed;
    let random = std::iter::repeat_with(move || (pattern(&mut state), pattern(&mut state))).take(2_000_000);
    let specials =
        [0.0f32, -0.0, f32::MIN_POSITIVE, f32::from_bits(1), f32::from_bits(0x8000_0001), f32::INFINITY, 0.5, 2.0];
    let pairs = specials.into_iter().flat_map(move |a| specials.into_iter().flat_map(move |b| [(a, b), (-a, b)]));
    random.chain(pairs)
}

/// A float unit's product.
#[cfg(test)]
pub(crate) type Unit = fn(f32, f32) -> f32;

/// The ways a float unit may flush: operands (DAZ), results (FTZ), or both.
#[cfg(test)]
pub(crate) const FLUSHING_UNITS: [(&str, Unit); 3] = [
    ("DAZ and FTZ", |a, b| flushed(flushed(a) * flushed(b))),
    ("DAZ", |a, b| flushed(a) * flushed(b)),
    ("FTZ", |a, b| flushed(a * b)),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn unflagged_products_are_ieee(a: f32, b: f32) {
        let ieee = a * b;
        for (unit, product) in FLUSHING_UNITS {
            let got = product(a, b);
            if !needs_exact(a, b, got) {
                assert!(
                    got.to_bits() == ieee.to_bits() || (got.is_nan() && ieee.is_nan()),
                    "{unit}: {a:e} x {b:e} gave {got:e} unflagged, IEEE {ieee:e}"
                );
            }
        }
    }

    #[test]
    fn where_the_flag_stays_down_a_flushing_unit_is_right() {
        for (a, b) in operand_pairs(0x2545_f491_4f6c_dd1d) {
            unflagged_products_are_ieee(a, b);
        }
    }

    #[test]
    fn the_flag_is_rare_on_ordinary_values_and_raised_where_it_must_be() {
        let tiny = f32::from_bits(0x8000_0001);
        let flush_both = FLUSHING_UNITS[0].1;
        assert!(needs_exact(tiny, 1.0, flush_both(tiny, 1.0)), "a subnormal operand");
        assert!(needs_exact(f32::MIN_POSITIVE, 0.5, flush_both(f32::MIN_POSITIVE, 0.5)), "a subnormal result");
        assert!(needs_exact(f32::INFINITY, tiny, flush_both(f32::INFINITY, tiny)), "infinity times a subnormal");
        assert!(!needs_exact(0.0, 3.0, 0.0) && !needs_exact(-2.0, -0.0, 0.0), "a zero operand's zero is right");
        assert!(!needs_exact(f32::NAN, 3.0, f32::NAN) && !needs_exact(f32::INFINITY, 0.0, f32::NAN), "NaN as IEEE's");
        assert!(!needs_exact(-3.5, 0.01, -3.5 * 0.01) && !needs_exact(1e30, 1e-30, 1e30 * 1e-30));
    }
}

//! CPU twin of `shaders/compute/f32_products_exact.wgsl`: the f32 product on a device that
//! flushes subnormals, correctly rounded all the same. The twin's "hardware" product flushes
//! as such a device does (subnormal operands and results become zeros of their sign), so the
//! tests below show the algorithm exact without any help from the CPU's subnormal support.

use super::compute_f32_product_flag::{flushed, needs_exact};

/// The product as the kernel computes it on a flushing device.
pub(crate) fn mul(a: f32, b: f32) -> f32 {
    let hardware = flushed(flushed(a) * flushed(b));
    if !needs_exact(a, b, hardware) {
        return hardware;
    }
    let (ua, ub) = (a.to_bits(), b.to_bits());
    let (ea, eb) = ((ua >> 23) & 0xff, (ub >> 23) & 0xff);
    let (magnitude_a, magnitude_b) = (ua & 0x7fff_ffff, ub & 0x7fff_ffff);
    let subnormal_a = ea == 0 && magnitude_a != 0;
    let subnormal_b = eb == 0 && magnitude_b != 0;
    let finite_nonzero = ea != 255 && eb != 255 && magnitude_a != 0 && magnitude_b != 0;
    if finite_nonzero && (subnormal_a || subnormal_b || ea + eb < 128) {
        return f32::from_bits(mul_on_integers(ua, ub));
    }
    if (magnitude_a == 0x7f80_0000 && subnormal_b) || (magnitude_b == 0x7f80_0000 && subnormal_a) {
        return f32::from_bits(((ua ^ ub) & 0x8000_0000) | 0x7f80_0000);
    }
    hardware
}

/// The correctly rounded product of two finite nonzero f32 bit patterns, on integers.
pub(crate) fn mul_on_integers(ua: u32, ub: u32) -> u32 {
    let (ea, eb) = ((ua >> 23) & 0xff, (ub >> 23) & 0xff);
    let significand = |bits: u32, e: u32| if e == 0 { bits & 0x7f_ffff } else { (bits & 0x7f_ffff) | 0x80_0000 };
    let exponents = (ea.max(1) + eb.max(1)) as i32;
    let p = u64::from(significand(ua, ea)) * u64::from(significand(ub, eb));
    let top = 63 - p.leading_zeros() as i32;
    let exponent = top + exponents - 173;
    let unit_exponent = exponent.max(1);
    let shift = (unit_exponent + 150 - exponents).max(0) as u32;
    ((ua ^ ub) & 0x8000_0000) + (((unit_exponent - 1) as u32) << 23) + round_shift(p, shift)
}

/// `p / 2^s` rounded to nearest, ties to even, for `p < 2^48`.
fn round_shift(p: u64, s: u32) -> u32 {
    if s == 0 {
        return p as u32;
    }
    if s > 49 {
        return 0;
    }
    let kept = (p >> s) as u32;
    let rest = p & ((1 << s) - 1);
    let half = 1u64 << (s - 1);
    kept + u32::from(rest > half || (rest == half && kept & 1 == 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::compute_f32_product_flag::operand_pairs;

    fn same(a: f32, b: f32) {
        let (got, want) = (mul(a, b), a * b);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{a:e} ({:#010x}) x {b:e} ({:#010x}): {got:e} ({:#010x}), IEEE {want:e} ({:#010x})",
            a.to_bits(),
            b.to_bits(),
            got.to_bits(),
            want.to_bits()
        );
    }

    #[test]
    fn products_are_ieee_products_bit_for_bit_on_a_flushing_unit() {
        for (a, b) in operand_pairs(0x9e37_79b9_7f4a_7c15) {
            same(a, b);
        }
        // The alphas the operators see on subnormals, both ways round.
        for alpha in [0.01f32, 1.0, 0.5, 1e30, 1e-30, 3.0] {
            for bits in (1..0x80_0000u32).step_by(997) {
                same(alpha, f32::from_bits(bits | 0x8000_0000));
                same(f32::from_bits(bits), -alpha);
            }
        }
    }

    #[test]
    fn a_flushing_unit_alone_would_not_be() {
        let tiny = f32::from_bits(0x8000_0001);
        assert_eq!(flushed(flushed(tiny) * 1.0).to_bits(), 0x8000_0000);
        assert_eq!(mul(tiny, 1.0).to_bits(), 0x8000_0001);
        assert_eq!(mul(f32::MIN_POSITIVE, 0.5).to_bits(), 0x0040_0000);
    }
}

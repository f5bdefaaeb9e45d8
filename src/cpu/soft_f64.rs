//! CPU twin of `shaders/shared/soft_f64.wgsl`: IEEE binary64 on (low, high) u32 pairs, for
//! adapters without `SHADER_F64`. Every function mirrors its WGSL namesake operation for
//! operation on u32 words (wrapping arithmetic, shifts below 32), so the tests here, against
//! the CPU's own f64 arithmetic, verify the algorithm the kernels run.
//!
//! Multiplication and addition are correctly rounded (to nearest, ties to even) with full
//! handling of NaN, infinities, signed zeros and subnormals, in the structure Berkeley
//! SoftFloat uses: significands with 10 extra low bits, shifts that "jam" lost bits into a
//! sticky bit, one rounding and packing step whose carry flows into the exponent.

/// A 64-bit value as (low, high) u32 words, like `vec2<u32>` in WGSL.
pub(crate) type U64 = [u32; 2];

/// `a + b` modulo 2^64.
pub(crate) fn u64_add(a: U64, b: U64) -> U64 {
    let low = a[0].wrapping_add(b[0]);
    let carry = u32::from(low < a[0]);
    [low, a[1].wrapping_add(b[1]).wrapping_add(carry)]
}

/// `a - b` modulo 2^64.
pub(crate) fn u64_sub(a: U64, b: U64) -> U64 {
    let borrow = u32::from(a[0] < b[0]);
    [a[0].wrapping_sub(b[0]), a[1].wrapping_sub(b[1]).wrapping_sub(borrow)]
}

/// `a < b`, unsigned.
pub(crate) fn u64_less(a: U64, b: U64) -> bool {
    a[1] < b[1] || (a[1] == b[1] && a[0] < b[0])
}

/// `a == 0`.
pub(crate) fn u64_is_zero(a: U64) -> bool {
    (a[0] | a[1]) == 0
}

/// `a << n` for n in 0..64.
pub(crate) fn u64_shl(a: U64, n: u32) -> U64 {
    if n == 0 {
        return a;
    }
    if n >= 32 {
        return [0, a[0] << (n - 32)];
    }
    [a[0] << n, (a[1] << n) | (a[0] >> (32 - n))]
}

/// `a >> n` for n in 0..64.
pub(crate) fn u64_shr(a: U64, n: u32) -> U64 {
    if n == 0 {
        return a;
    }
    if n >= 32 {
        return [a[1] >> (n - 32), 0];
    }
    [(a[0] >> n) | (a[1] << (32 - n)), a[1] >> n]
}

/// `a >> n` for any n, with the bits shifted out ORed into bit 0 ("jamming").
pub(crate) fn u64_shr_jam(a: U64, n: u32) -> U64 {
    if n == 0 {
        return a;
    }
    if n >= 64 {
        return [u32::from(!u64_is_zero(a)), 0];
    }
    let shifted = u64_shr(a, n);
    let lost = !u64_is_zero(u64_sub(a, u64_shl(shifted, n)));
    [shifted[0] | u32::from(lost), shifted[1]]
}

/// Leading zero bits of `a` (64 for zero).
pub(crate) fn u64_clz(a: U64) -> u32 {
    if a[1] != 0 { a[1].leading_zeros() } else { 32 + a[0].leading_zeros() }
}

/// The full 64-bit product of two u32, from 16-bit limbs (WGSL has no 64-bit integers).
pub(crate) fn mul_u32_wide(a: u32, b: u32) -> U64 {
    let (a0, a1, b0, b1) = (a & 0xffff, a >> 16, b & 0xffff, b >> 16);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let middle = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    let low = (p00 & 0xffff) | (middle << 16);
    let high = p11 + (p01 >> 16) + (p10 >> 16) + (middle >> 16);
    [low, high]
}

/// The 128-bit product of two 64-bit values as (low, high) halves.
pub(crate) fn u64_mul_wide(a: U64, b: U64) -> (U64, U64) {
    let p00 = mul_u32_wide(a[0], b[0]);
    let p01 = mul_u32_wide(a[0], b[1]);
    let p10 = mul_u32_wide(a[1], b[0]);
    let p11 = mul_u32_wide(a[1], b[1]);
    let mut low = p00;
    let mut high = p11;
    for cross in [p01, p10] {
        // (high, low) += cross << 32
        let added = u64_add(low, [0, cross[0]]);
        let carry = u32::from(u64_less(added, low));
        low = added;
        high = u64_add(high, [cross[1], 0]);
        high = u64_add(high, [carry, 0]);
    }
    (low, high)
}

const EXPONENT_MASK: u32 = 0x7ff;
const FRACTION_HIGH_MASK: u32 = 0x000f_ffff;
const IMPLICIT_BIT: U64 = [0, 0x0010_0000];
/// The quiet NaN invalid operations return.
pub(crate) const DEFAULT_NAN: U64 = [0, 0x7ff8_0000];

/// Sign bit of `a` (0 or 1).
pub(crate) fn f64_sign(a: U64) -> u32 {
    a[1] >> 31
}

/// Biased exponent of `a`.
pub(crate) fn f64_exponent(a: U64) -> u32 {
    (a[1] >> 20) & EXPONENT_MASK
}

/// Fraction bits of `a`.
pub(crate) fn f64_fraction(a: U64) -> U64 {
    [a[0], a[1] & FRACTION_HIGH_MASK]
}

/// Sign, exponent and significand added together, so a carry out of the significand moves
/// into the exponent.
pub(crate) fn f64_pack(sign: u32, exponent: u32, significand: U64) -> U64 {
    u64_add([0, (sign << 31).wrapping_add(exponent << 20)], significand)
}

/// True for NaN.
pub(crate) fn f64_is_nan(a: U64) -> bool {
    f64_exponent(a) == EXPONENT_MASK && !u64_is_zero(f64_fraction(a))
}

/// The quiet NaN an operation on NaN `a` or `b` returns: `a`'s if it is one, else `b`'s.
pub(crate) fn f64_propagate_nan(a: U64, b: U64) -> U64 {
    let nan = if f64_is_nan(a) { a } else { b };
    [nan[0], nan[1] | 0x0008_0000]
}

/// Rounds `significand` (leading bit at bit 62, 10 bits below the fraction) to nearest-even
/// and packs it with `sign` and `exponent` (the biased exponent less one, possibly out of
/// range: below 0 the result is subnormal or zero, above 0x7fc it may overflow to infinity).
pub(crate) fn f64_round_pack(sign: u32, exponent: i32, significand: U64) -> U64 {
    let mut e = exponent;
    let mut sig = significand;
    let mut round_bits = sig[0] & 0x3ff;
    if !(0..0x7fd).contains(&e) {
        if e < 0 {
            sig = u64_shr_jam(sig, (-e) as u32);
            e = 0;
            round_bits = sig[0] & 0x3ff;
        } else if e > 0x7fd || !u64_less(u64_add(sig, [0x200, 0]), [0, 0x8000_0000]) {
            return f64_pack(sign, EXPONENT_MASK, [0, 0]);
        }
    }
    sig = u64_shr(u64_add(sig, [0x200, 0]), 10);
    if round_bits == 0x200 {
        sig[0] &= !1; // a tie: to even
    }
    if u64_is_zero(sig) {
        e = 0;
    }
    f64_pack(sign, e as u32, sig)
}

/// The exponent and significand of a subnormal's fraction, normalized so that its leading bit
/// is the implicit bit (exponent below 1 as a signed value).
pub(crate) fn f64_normalize_subnormal(fraction: U64) -> (i32, U64) {
    let shift = u64_clz(fraction) - 11;
    (1 - shift as i32, u64_shl(fraction, shift))
}

/// `a * b`, correctly rounded.
pub(crate) fn f64_mul(a: U64, b: U64) -> U64 {
    let sign = f64_sign(a) ^ f64_sign(b);
    let (mut ea, mut fa) = (f64_exponent(a) as i32, f64_fraction(a));
    let (mut eb, mut fb) = (f64_exponent(b) as i32, f64_fraction(b));
    let a_zero = ea == 0 && u64_is_zero(fa);
    let b_zero = eb == 0 && u64_is_zero(fb);
    if ea == 0x7ff || eb == 0x7ff {
        if f64_is_nan(a) || f64_is_nan(b) {
            return f64_propagate_nan(a, b);
        }
        // An infinity: times zero is invalid, else infinite.
        if a_zero || b_zero {
            return DEFAULT_NAN;
        }
        return f64_pack(sign, EXPONENT_MASK, [0, 0]);
    }
    if a_zero || b_zero {
        return f64_pack(sign, 0, [0, 0]);
    }
    if ea == 0 {
        (ea, fa) = f64_normalize_subnormal(fa);
    }
    if eb == 0 {
        (eb, fb) = f64_normalize_subnormal(fb);
    }
    let e = ea + eb - 0x3ff;
    let sa = u64_shl([fa[0], fa[1] | IMPLICIT_BIT[1]], 10);
    let sb = u64_shl([fb[0], fb[1] | IMPLICIT_BIT[1]], 11);
    let (low, high) = u64_mul_wide(sa, sb);
    f64_round_pack_near(sign, e, [high[0] | u32::from(!u64_is_zero(low)), high[1]])
}

/// [`f64_round_pack`] for a significand whose leading bit is at bit 62 or 61 (a product or a
/// sum of two normalized significands), moved up a place in the second case.
fn f64_round_pack_near(sign: u32, exponent: i32, significand: U64) -> U64 {
    if significand[1] < 0x4000_0000 {
        return f64_round_pack(sign, exponent - 1, u64_shl(significand, 1));
    }
    f64_round_pack(sign, exponent, significand)
}

/// Normalizes `significand` (any leading bit) and rounds and packs it.
fn f64_normalize_round_pack(sign: u32, exponent: i32, significand: U64) -> U64 {
    let shift = u64_clz(significand) - 1;
    let e = exponent - shift as i32;
    if shift >= 10 && (0..0x7fd).contains(&e) {
        let e = if u64_is_zero(significand) { 0 } else { e as u32 };
        return f64_pack(sign, e, u64_shl(significand, shift - 10));
    }
    f64_round_pack(sign, e, u64_shl(significand, shift))
}

/// `a + b` for operands of the same sign `sign`.
fn f64_add_magnitudes(a: U64, b: U64, sign: u32) -> U64 {
    let (ea, eb) = (f64_exponent(a) as i32, f64_exponent(b) as i32);
    let (mut sa, mut sb) = (f64_fraction(a), f64_fraction(b));
    let difference = ea - eb;
    if difference == 0 {
        if ea == 0 {
            // Both subnormal or zero: the integer sum is the result, carry to normal included.
            return u64_add(a, sb);
        }
        if ea == 0x7ff {
            return if u64_is_zero(sa) && u64_is_zero(sb) { a } else { f64_propagate_nan(a, b) };
        }
        let sig = u64_shl(u64_add(u64_add([0, 0x0020_0000], sa), sb), 9);
        return f64_round_pack(sign, ea, sig);
    }
    sa = u64_shl(sa, 9);
    sb = u64_shl(sb, 9);
    let e;
    if difference < 0 {
        if eb == 0x7ff {
            return if u64_is_zero(sb) { f64_pack(sign, EXPONENT_MASK, [0, 0]) } else { f64_propagate_nan(a, b) };
        }
        e = eb;
        sa = if ea != 0 { u64_add(sa, [0, 0x2000_0000]) } else { u64_shl(sa, 1) };
        sa = u64_shr_jam(sa, (-difference) as u32);
    } else {
        if ea == 0x7ff {
            return if u64_is_zero(sa) { a } else { f64_propagate_nan(a, b) };
        }
        e = ea;
        sb = if eb != 0 { u64_add(sb, [0, 0x2000_0000]) } else { u64_shl(sb, 1) };
        sb = u64_shr_jam(sb, difference as u32);
    }
    f64_round_pack_near(sign, e, u64_add(u64_add([0, 0x2000_0000], sa), sb))
}

/// `a - b` in magnitude for operands of opposite signs, `sign` being `a`'s.
fn f64_subtract_magnitudes(a: U64, b: U64, sign: u32) -> U64 {
    let (mut ea, eb) = (f64_exponent(a) as i32, f64_exponent(b) as i32);
    let (mut sa, mut sb) = (f64_fraction(a), f64_fraction(b));
    let difference = ea - eb;
    let mut sign = sign;
    if difference == 0 {
        if ea == 0x7ff {
            return if u64_is_zero(sa) && u64_is_zero(sb) { DEFAULT_NAN } else { f64_propagate_nan(a, b) };
        }
        if u64_is_zero(u64_sub(sa, sb)) {
            return [0, 0]; // x - x is +0 when rounding to nearest
        }
        if ea != 0 {
            ea -= 1;
        }
        let mut magnitude = u64_sub(sa, sb);
        if u64_less(sa, sb) {
            sign ^= 1;
            magnitude = u64_sub(sb, sa);
        }
        let shift = u64_clz(magnitude) as i32 - 11;
        let mut e = ea - shift;
        let mut shift = shift;
        if e < 0 {
            shift = ea;
            e = 0;
        }
        return f64_pack(sign, e as u32, u64_shl(magnitude, shift as u32));
    }
    sa = u64_shl(sa, 10);
    sb = u64_shl(sb, 10);
    let (e, sig);
    if difference < 0 {
        sign ^= 1;
        if eb == 0x7ff {
            return if u64_is_zero(sb) { f64_pack(sign, EXPONENT_MASK, [0, 0]) } else { f64_propagate_nan(a, b) };
        }
        sa = if ea != 0 { u64_add(sa, [0, 0x4000_0000]) } else { u64_add(sa, sa) };
        sa = u64_shr_jam(sa, (-difference) as u32);
        sb = [sb[0], sb[1] | 0x4000_0000];
        e = eb;
        sig = u64_sub(sb, sa);
    } else {
        if ea == 0x7ff {
            return if u64_is_zero(sa) { a } else { f64_propagate_nan(a, b) };
        }
        sb = if eb != 0 { u64_add(sb, [0, 0x4000_0000]) } else { u64_add(sb, sb) };
        sb = u64_shr_jam(sb, difference as u32);
        sa = [sa[0], sa[1] | 0x4000_0000];
        e = ea;
        sig = u64_sub(sa, sb);
    }
    f64_normalize_round_pack(sign, e - 1, sig)
}

/// `a + b`, correctly rounded.
pub(crate) fn f64_add(a: U64, b: U64) -> U64 {
    if f64_sign(a) == f64_sign(b) {
        f64_add_magnitudes(a, b, f64_sign(a))
    } else {
        f64_subtract_magnitudes(a, b, f64_sign(a))
    }
}

/// `-a`.
pub(crate) fn f64_negate(a: U64) -> U64 {
    [a[0], a[1] ^ 0x8000_0000]
}

/// `floor(v)` for finite v with |v| < 2^31.
pub(crate) fn f64_floor_to_i32(v: U64) -> i32 {
    let e = f64_exponent(v) as i32 - 0x3ff;
    let negative = f64_sign(v) == 1;
    let nonzero = !u64_is_zero([v[0], v[1] & 0x7fff_ffff]);
    if e < 0 {
        return if negative && nonzero { -1 } else { 0 };
    }
    let significand = [v[0], (v[1] & FRACTION_HIGH_MASK) | IMPLICIT_BIT[1]];
    let whole = u64_shr(significand, (52 - e) as u32);
    let fractional = !u64_is_zero(u64_sub(significand, u64_shl(whole, (52 - e) as u32)));
    let magnitude = whole[0] as i32;
    if !negative {
        magnitude
    } else if fractional {
        -magnitude - 1
    } else {
        -magnitude
    }
}

/// `k` as an f64, exactly.
pub(crate) fn f64_from_i32(k: i32) -> U64 {
    if k == 0 {
        return [0, 0];
    }
    let sign = u32::from(k < 0);
    let magnitude = k.unsigned_abs();
    let shift = magnitude.leading_zeros() + 21; // leading bit to bit 52
    let significand = u64_shl([magnitude, 0], shift);
    f64_pack(sign, 0x3ff + 52 - shift - 1, significand)
}

/// An f32's bits as an f64, exactly (NaN stays NaN, quiet).
pub(crate) fn f64_from_f32_bits(bits: u32) -> U64 {
    let sign = bits >> 31;
    let exponent = (bits >> 23) & 0xff;
    let fraction = bits & 0x007f_ffff;
    if exponent == 0xff {
        let nan = if fraction != 0 { 0x0008_0000 } else { 0 };
        return [fraction << 29, (sign << 31) | 0x7ff0_0000 | (fraction >> 3) | nan];
    }
    if exponent == 0 {
        if fraction == 0 {
            return [0, sign << 31];
        }
        // Subnormal f32: normal in f64.
        let shift = fraction.leading_zeros() - 8; // leading bit to bit 23
        let normalized = (fraction << shift) & 0x007f_ffff;
        let e = 0x3ff - 126 - shift;
        return [normalized << 29, (sign << 31) | (e << 20) | (normalized >> 3)];
    }
    let e = exponent + 0x3ff - 0x7f;
    [fraction << 29, (sign << 31) | (e << 20) | (fraction >> 3)]
}

/// The significand of a normal value, its implicit bit included (53 bits).
fn f64_significand(a: U64) -> U64 {
    [a[0], (a[1] & FRACTION_HIGH_MASK) | IMPLICIT_BIT[1]]
}

/// `a * b - p` exactly, where `p = f64_mul(a, b)`, for normal a, b, p and a normal error; 0
/// elsewhere: the WGSL's steps.
pub(crate) fn f64_product_error(a: U64, b: U64, p: U64) -> U64 {
    let (ea, eb, ep) = (f64_exponent(a) as i32, f64_exponent(b) as i32, f64_exponent(p) as i32);
    let unit = ea + eb - 2150;
    if ea == 0 || eb == 0 || ep == 0 || ea == 0x7ff || eb == 0x7ff || ep == 0x7ff {
        return [0, 0];
    }
    let (full_low, full_high) = u64_mul_wide(f64_significand(a), f64_significand(b));
    let shift = (ep - 1075 - unit) as u32;
    let pm = f64_significand(p);
    let (p_high, p_low) = (u64_shr(pm, 64 - shift), u64_shl(pm, shift));
    let below = u64_less(full_high, p_high) || (full_high == p_high && u64_less(full_low, p_low));
    let magnitude = if below { u64_sub(p_low, full_low) } else { u64_sub(full_low, p_low) };
    if u64_is_zero(magnitude) {
        return [0, 0];
    }
    let leading = 63 - u64_clz(magnitude);
    let exponent = unit + leading as i32 + 1023;
    if exponent < 1 {
        return [0, 0];
    }
    let fraction = u64_shl(magnitude, 52 - leading);
    let sign = f64_sign(a) ^ f64_sign(b) ^ u32::from(below);
    [fraction[0], (sign << 31) | ((exponent as u32) << 20) | (fraction[1] & FRACTION_HIGH_MASK)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::{u64_of_words, words_of_u64};

    fn from(v: f64) -> U64 {
        words_of_u64(v.to_bits())
    }

    fn to(b: U64) -> f64 {
        f64::from_bits(u64_of_words(b))
    }

    /// Same value, or both NaN.
    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Values of every class: zeros, subnormals, normals near every boundary, infinities, NaNs.
    fn interesting() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::from_bits(0x8000_0000_0000_0001),
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            1.0,
            -1.0,
            0.5,
            1.0 + f64::EPSILON,
            1.0 - f64::EPSILON / 2.0,
            3.0,
            1e308,
            1e-308,
            2f64.powi(-1074),
            2f64.powi(-1022) * 1.5,
            0.1,
            -38.0,
        ];
        let more: Vec<f64> = v.iter().map(|x| -x).collect();
        v.extend(more);
        v
    }

    fn random(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let r = *state;
        match r % 4 {
            // Any bits: every exponent, NaNs and infinities included.
            0 => f64::from_bits(r.rotate_left(17)),
            // Moderate magnitudes, where products and sums stay normal.
            1 => (r >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0,
            // Near the bottom of the range: products underflow into subnormals.
            2 => f64::from_bits((r >> 12) | 0x0010_0000_0000_0000) * if r & 1 == 0 { 1.0 } else { -1.0 },
            _ => f64::from_bits(r >> 1 & 0x3ff0_0000_0000_0000 | r >> 20),
        }
    }

    /// Checks `soft` against the CPU's own `hard` on every pair of interesting values and on
    /// random pairs (with `extra`, a third operand derived from each random pair, also checked).
    fn check_correctly_rounded(
        name: &str,
        soft: fn(U64, U64) -> U64,
        hard: fn(f64, f64) -> f64,
        mut state: u64,
        extra: impl Fn(f64, u64) -> Option<f64>,
    ) {
        let check = |a: f64, b: f64| {
            let got = to(soft(from(a), from(b)));
            assert!(
                same(got, hard(a, b)),
                "{name}({a:e} ({:#x}), {b:e} ({:#x})): {got:e} vs {:e}",
                a.to_bits(),
                b.to_bits(),
                hard(a, b)
            );
        };
        let values = interesting();
        for &a in &values {
            for &b in &values {
                check(a, b);
            }
        }
        for _ in 0..2_000_000 {
            let (a, b) = (random(&mut state), random(&mut state));
            check(a, b);
            if let Some(c) = extra(a, state) {
                check(a, c);
            }
        }
    }

    #[test]
    fn multiplication_is_correctly_rounded() {
        check_correctly_rounded("mul", f64_mul, |a, b| a * b, 0x9e37_79b9_7f4a_7c15, |_, _| None);
    }

    #[test]
    fn addition_is_correctly_rounded() {
        // The extra operand is close to -a: the cancelling path.
        let close_opposite = |a: f64, state: u64| Some(-f64::from_bits(a.to_bits() ^ (state & 0xfff)));
        check_correctly_rounded("add", f64_add, |a, b| a + b, 0x2545_f491_4f6c_dd1d, close_opposite);
    }

    #[test]
    fn addition_aligns_every_exponent_difference() {
        let mut state = 0x1234_5678_9abc_def1u64;
        for _ in 0..20_000 {
            let a = random(&mut state);
            for shift in 0..70 {
                let b = a * 2f64.powi(-shift) * if shift % 2 == 0 { 1.0 } else { -1.0 };
                let b = f64::from_bits(b.to_bits() ^ (state >> (shift % 40) & 0x3ff));
                assert!(same(to(f64_add(from(a), from(b))), a + b), "{a:e} + {b:e}");
                assert!(same(to(f64_add(from(b), from(a))), b + a), "{b:e} + {a:e}");
            }
        }
    }

    #[test]
    fn conversions_and_floor_are_exact() {
        for k in -1100..1100 {
            assert_eq!(to(f64_from_i32(k)), f64::from(k));
        }
        assert_eq!(to(f64_from_i32(i32::MAX)), f64::from(i32::MAX));
        assert_eq!(to(f64_from_i32(i32::MIN + 1)), f64::from(i32::MIN + 1));
        let mut bits = 0u32;
        loop {
            let got = to(f64_from_f32_bits(bits));
            let want = f64::from(f32::from_bits(bits));
            assert!(same(got, want), "{bits:#x}");
            bits = bits.wrapping_add(0x3f01);
            if bits < 0x3f01 {
                break;
            }
        }
        for v in [-54.3, -0.5, -0.4999, 0.0, 0.5, 1.0, -1.0, -2.0, -2.5, 3.7, -1e-300, 1e-300, 123456.0, -123456.5] {
            assert_eq!(f64_floor_to_i32(from(v)), v.floor() as i32, "{v}");
        }
    }

    #[test]
    fn product_errors_are_exact() {
        let mut state = 0x6a09_e667_f3bc_c909u64;
        for _ in 0..1_000_000 {
            let (a, b) = (random(&mut state), random(&mut state));
            let p = a * b;
            let e = to(f64_product_error(from(a), from(b), from(p)));
            let exact = a.mul_add(b, -p);
            if a.is_normal() && b.is_normal() && p.is_normal() && (exact.is_normal() || exact == 0.0) {
                assert_eq!(e, exact, "{a:e} * {b:e}");
            } else {
                assert!(e == 0.0 || e.to_bits() == exact.to_bits(), "{a:e} * {b:e}: {e:e}");
            }
        }
    }
}

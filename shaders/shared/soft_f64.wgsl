// IEEE binary64 on (low, high) u32 pairs, for adapters without SHADER_F64 (repr/f64_soft.wgsl).
// Multiplication and addition are correctly rounded (to nearest, ties to even) with NaN,
// infinities, signed zeros and subnormals handled, in the structure Berkeley SoftFloat uses:
// significands with 10 extra low bits, shifts that jam lost bits into a sticky bit, and one
// rounding and packing step whose carry flows into the exponent. compute/f64_soft.wgsl builds
// the Compute interface on these operations. CPU twin, operation for operation, tested against
// the CPU's own f64 arithmetic: src/cpu/soft_f64.rs.

alias U64 = vec2<u32>;

fn u64_add(a: U64, b: U64) -> U64 {
    let low = a.x + b.x;
    let carry = select(0u, 1u, low < a.x);
    return U64(low, a.y + b.y + carry);
}

fn u64_sub(a: U64, b: U64) -> U64 {
    let borrow = select(0u, 1u, a.x < b.x);
    return U64(a.x - b.x, a.y - b.y - borrow);
}

fn u64_less(a: U64, b: U64) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn u64_is_zero(a: U64) -> bool {
    return (a.x | a.y) == 0u;
}

// a << n for n in 0..64 (WGSL takes shift amounts modulo 32, so the halves are shifted apart).
fn u64_shl(a: U64, n: u32) -> U64 {
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return U64(0u, a.x << (n - 32u));
    }
    return U64(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// a >> n for n in 0..64.
fn u64_shr(a: U64, n: u32) -> U64 {
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return U64(a.y >> (n - 32u), 0u);
    }
    return U64((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

// a >> n for any n, with the bits shifted out ORed into bit 0.
fn u64_shr_jam(a: U64, n: u32) -> U64 {
    if (n == 0u) {
        return a;
    }
    if (n >= 64u) {
        return U64(select(0u, 1u, !u64_is_zero(a)), 0u);
    }
    let shifted = u64_shr(a, n);
    let lost = !u64_is_zero(u64_sub(a, u64_shl(shifted, n)));
    return U64(shifted.x | select(0u, 1u, lost), shifted.y);
}

fn u64_clz(a: U64) -> u32 {
    if (a.y != 0u) {
        return countLeadingZeros(a.y);
    }
    return 32u + countLeadingZeros(a.x);
}

// The 128-bit product of two 64-bit values, as (low, high) halves in a vec4.
fn u64_mul_wide(a: U64, b: U64) -> vec4<u32> {
    let p00 = mul_u32_wide(a.x, b.x);
    let p01 = mul_u32_wide(a.x, b.y);
    let p10 = mul_u32_wide(a.y, b.x);
    let p11 = mul_u32_wide(a.y, b.y);
    var low = p00;
    var high = p11;
    for (var i = 0u; i < 2u; i++) {
        let cross = select(p01, p10, i == 1u);
        let added = u64_add(low, U64(0u, cross.x));
        let carry = select(0u, 1u, u64_less(added, low));
        low = added;
        high = u64_add(high, U64(cross.y, 0u));
        high = u64_add(high, U64(carry, 0u));
    }
    return vec4<u32>(low, high);
}

const F64_EXPONENT_MASK: u32 = 0x7ffu;
const F64_FRACTION_HIGH_MASK: u32 = 0x000fffffu;
const F64_IMPLICIT_HIGH: u32 = 0x00100000u;
// The quiet NaN invalid operations return.
const F64_DEFAULT_NAN: U64 = U64(0u, 0x7ff80000u);

fn f64_sign(a: U64) -> u32 {
    return a.y >> 31u;
}

fn f64_exponent(a: U64) -> u32 {
    return (a.y >> 20u) & F64_EXPONENT_MASK;
}

fn f64_fraction(a: U64) -> U64 {
    return U64(a.x, a.y & F64_FRACTION_HIGH_MASK);
}

// Sign, exponent and significand added, so a carry out of the significand moves into the exponent.
fn f64_pack(sign: u32, exponent: u32, significand: U64) -> U64 {
    return u64_add(U64(0u, (sign << 31u) + (exponent << 20u)), significand);
}

fn f64_is_nan(a: U64) -> bool {
    return f64_exponent(a) == F64_EXPONENT_MASK && !u64_is_zero(f64_fraction(a));
}

fn f64_propagate_nan(a: U64, b: U64) -> U64 {
    let nan = select(b, a, f64_is_nan(a));
    return U64(nan.x, nan.y | 0x00080000u);
}

// Rounds `significand` (leading bit at bit 62, 10 bits below the fraction) to nearest-even and
// packs it; `exponent` is the biased exponent less one, possibly out of range.
fn f64_round_pack(sign: u32, exponent: i32, significand: U64) -> U64 {
    var e = exponent;
    var sig = significand;
    var round_bits = sig.x & 0x3ffu;
    if (e < 0 || e >= 0x7fd) {
        if (e < 0) {
            sig = u64_shr_jam(sig, u32(-e));
            e = 0;
            round_bits = sig.x & 0x3ffu;
        } else if (e > 0x7fd || !u64_less(u64_add(sig, U64(0x200u, 0u)), U64(0u, 0x80000000u))) {
            return f64_pack(sign, F64_EXPONENT_MASK, U64(0u, 0u));
        }
    }
    sig = u64_shr(u64_add(sig, U64(0x200u, 0u)), 10u);
    if (round_bits == 0x200u) {
        sig.x &= ~1u;
    }
    if (u64_is_zero(sig)) {
        e = 0;
    }
    return f64_pack(sign, u32(e), sig);
}

// f64_round_pack for a significand whose leading bit is at bit 62 or 61 (a product or a sum
// of two normalized significands), moved up a place in the second case.
fn f64_round_pack_near(sign: u32, exponent: i32, significand: U64) -> U64 {
    if (significand.y < 0x40000000u) {
        return f64_round_pack(sign, exponent - 1, u64_shl(significand, 1u));
    }
    return f64_round_pack(sign, exponent, significand);
}

fn f64_normalize_round_pack(sign: u32, exponent: i32, significand: U64) -> U64 {
    let shift = u64_clz(significand) - 1u;
    let e = exponent - i32(shift);
    if (shift >= 10u && e >= 0 && e < 0x7fd) {
        let packed_exponent = select(u32(e), 0u, u64_is_zero(significand));
        return f64_pack(sign, packed_exponent, u64_shl(significand, shift - 10u));
    }
    return f64_round_pack(sign, e, u64_shl(significand, shift));
}

fn f64_mul(a: U64, b: U64) -> U64 {
    let sign = f64_sign(a) ^ f64_sign(b);
    var ea = i32(f64_exponent(a));
    var fa = f64_fraction(a);
    var eb = i32(f64_exponent(b));
    var fb = f64_fraction(b);
    let a_zero = ea == 0 && u64_is_zero(fa);
    let b_zero = eb == 0 && u64_is_zero(fb);
    if (ea == 0x7ff || eb == 0x7ff) {
        if (f64_is_nan(a) || f64_is_nan(b)) {
            return f64_propagate_nan(a, b);
        }
        if (a_zero || b_zero) {
            return F64_DEFAULT_NAN;
        }
        return f64_pack(sign, F64_EXPONENT_MASK, U64(0u, 0u));
    }
    if (a_zero || b_zero) {
        return f64_pack(sign, 0u, U64(0u, 0u));
    }
    if (ea == 0) {
        let shift = u64_clz(fa) - 11u;
        ea = 1 - i32(shift);
        fa = u64_shl(fa, shift);
    }
    if (eb == 0) {
        let shift = u64_clz(fb) - 11u;
        eb = 1 - i32(shift);
        fb = u64_shl(fb, shift);
    }
    let e = ea + eb - 0x3ff;
    let sa = u64_shl(U64(fa.x, fa.y | F64_IMPLICIT_HIGH), 10u);
    let sb = u64_shl(U64(fb.x, fb.y | F64_IMPLICIT_HIGH), 11u);
    let product = u64_mul_wide(sa, sb);
    let sig = U64(product.z | select(0u, 1u, !u64_is_zero(product.xy)), product.w);
    return f64_round_pack_near(sign, e, sig);
}

// a + b for operands of the same sign.
fn f64_add_magnitudes(a: U64, b: U64, sign: u32) -> U64 {
    let ea = i32(f64_exponent(a));
    let eb = i32(f64_exponent(b));
    var sa = f64_fraction(a);
    var sb = f64_fraction(b);
    let difference = ea - eb;
    if (difference == 0) {
        if (ea == 0) {
            // Both subnormal or zero: the integer sum is the result, a carry to normal included.
            return u64_add(a, sb);
        }
        if (ea == 0x7ff) {
            if (u64_is_zero(sa) && u64_is_zero(sb)) {
                return a;
            }
            return f64_propagate_nan(a, b);
        }
        let sig = u64_shl(u64_add(u64_add(U64(0u, 0x00200000u), sa), sb), 9u);
        return f64_round_pack(sign, ea, sig);
    }
    sa = u64_shl(sa, 9u);
    sb = u64_shl(sb, 9u);
    var e: i32;
    if (difference < 0) {
        if (eb == 0x7ff) {
            if (u64_is_zero(sb)) {
                return f64_pack(sign, F64_EXPONENT_MASK, U64(0u, 0u));
            }
            return f64_propagate_nan(a, b);
        }
        e = eb;
        sa = select(u64_shl(sa, 1u), u64_add(sa, U64(0u, 0x20000000u)), ea != 0);
        sa = u64_shr_jam(sa, u32(-difference));
    } else {
        if (ea == 0x7ff) {
            if (u64_is_zero(sa)) {
                return a;
            }
            return f64_propagate_nan(a, b);
        }
        e = ea;
        sb = select(u64_shl(sb, 1u), u64_add(sb, U64(0u, 0x20000000u)), eb != 0);
        sb = u64_shr_jam(sb, u32(difference));
    }
    return f64_round_pack_near(sign, e, u64_add(u64_add(U64(0u, 0x20000000u), sa), sb));
}

// a - b in magnitude for operands of opposite signs, `sign` being a's.
fn f64_subtract_magnitudes(a: U64, b: U64, sign_of_a: u32) -> U64 {
    var ea = i32(f64_exponent(a));
    let eb = i32(f64_exponent(b));
    var sa = f64_fraction(a);
    var sb = f64_fraction(b);
    let difference = ea - eb;
    var sign = sign_of_a;
    if (difference == 0) {
        if (ea == 0x7ff) {
            if (u64_is_zero(sa) && u64_is_zero(sb)) {
                return F64_DEFAULT_NAN;
            }
            return f64_propagate_nan(a, b);
        }
        if (u64_is_zero(u64_sub(sa, sb))) {
            // x - x is +0 when rounding to nearest.
            return U64(0u, 0u);
        }
        if (ea != 0) {
            ea -= 1;
        }
        var magnitude = u64_sub(sa, sb);
        if (u64_less(sa, sb)) {
            sign ^= 1u;
            magnitude = u64_sub(sb, sa);
        }
        var shift = i32(u64_clz(magnitude)) - 11;
        var e = ea - shift;
        if (e < 0) {
            shift = ea;
            e = 0;
        }
        return f64_pack(sign, u32(e), u64_shl(magnitude, u32(shift)));
    }
    sa = u64_shl(sa, 10u);
    sb = u64_shl(sb, 10u);
    var e: i32;
    var sig: U64;
    if (difference < 0) {
        sign ^= 1u;
        if (eb == 0x7ff) {
            if (u64_is_zero(sb)) {
                return f64_pack(sign, F64_EXPONENT_MASK, U64(0u, 0u));
            }
            return f64_propagate_nan(a, b);
        }
        sa = select(u64_add(sa, sa), u64_add(sa, U64(0u, 0x40000000u)), ea != 0);
        sa = u64_shr_jam(sa, u32(-difference));
        sb = U64(sb.x, sb.y | 0x40000000u);
        e = eb;
        sig = u64_sub(sb, sa);
    } else {
        if (ea == 0x7ff) {
            if (u64_is_zero(sa)) {
                return a;
            }
            return f64_propagate_nan(a, b);
        }
        sb = select(u64_add(sb, sb), u64_add(sb, U64(0u, 0x40000000u)), eb != 0);
        sb = u64_shr_jam(sb, u32(difference));
        sa = U64(sa.x, sa.y | 0x40000000u);
        e = ea;
        sig = u64_sub(sa, sb);
    }
    return f64_normalize_round_pack(sign, e - 1, sig);
}

fn f64_add(a: U64, b: U64) -> U64 {
    if (f64_sign(a) == f64_sign(b)) {
        return f64_add_magnitudes(a, b, f64_sign(a));
    }
    return f64_subtract_magnitudes(a, b, f64_sign(a));
}

fn f64_negate(a: U64) -> U64 {
    return U64(a.x, a.y ^ 0x80000000u);
}

// floor(v) for finite v with |v| < 2^31.
fn f64_floor_to_i32(v: U64) -> i32 {
    let e = i32(f64_exponent(v)) - 0x3ff;
    let negative = f64_sign(v) == 1u;
    let nonzero = !u64_is_zero(U64(v.x, v.y & 0x7fffffffu));
    if (e < 0) {
        return select(0, -1, negative && nonzero);
    }
    let significand = U64(v.x, (v.y & F64_FRACTION_HIGH_MASK) | F64_IMPLICIT_HIGH);
    let whole = u64_shr(significand, u32(52 - e));
    let fractional = !u64_is_zero(u64_sub(significand, u64_shl(whole, u32(52 - e))));
    let magnitude = i32(whole.x);
    if (!negative) {
        return magnitude;
    }
    if (fractional) {
        return -magnitude - 1;
    }
    return -magnitude;
}

// k as an f64, exactly.
fn f64_from_i32(k: i32) -> U64 {
    if (k == 0) {
        return U64(0u, 0u);
    }
    let sign = select(0u, 1u, k < 0);
    let magnitude = u32(abs(k));
    let shift = countLeadingZeros(magnitude) + 21u;
    let significand = u64_shl(U64(magnitude, 0u), shift);
    return f64_pack(sign, 0x3ffu + 52u - shift - 1u, significand);
}

// An f32's bits as an f64, exactly (NaN stays NaN, quiet).
fn f64_from_f32_bits(bits: u32) -> U64 {
    let sign = bits >> 31u;
    let exponent = (bits >> 23u) & 0xffu;
    let fraction = bits & 0x007fffffu;
    if (exponent == 0xffu) {
        let nan = select(0u, 0x00080000u, fraction != 0u);
        return U64(fraction << 29u, (sign << 31u) | 0x7ff00000u | (fraction >> 3u) | nan);
    }
    if (exponent == 0u) {
        if (fraction == 0u) {
            return U64(0u, sign << 31u);
        }
        let shift = countLeadingZeros(fraction) - 8u;
        let normalized = (fraction << shift) & 0x007fffffu;
        let e = 0x3ffu - 126u - shift;
        return U64(normalized << 29u, (sign << 31u) | (e << 20u) | (normalized >> 3u));
    }
    let e = exponent + 0x3ffu - 0x7fu;
    return U64(fraction << 29u, (sign << 31u) | (e << 20u) | (fraction >> 3u));
}

// The significand of a normal value, its implicit bit included (53 bits).
fn f64_significand(a: U64) -> U64 {
    return U64(a.x, (a.y & F64_FRACTION_HIGH_MASK) | F64_IMPLICIT_HIGH);
}

// a * b - p exactly, where p = f64_mul(a, b): the product's rounding error, from the 106-bit
// product of the significands less p's significand moved to its scale. For normal a, b and p
// whose error is normal too; 0 elsewhere (it is then below p's last bits by 2^53 or more, or
// there is no error to speak of: an infinite or NaN p).
fn f64_product_error(a: U64, b: U64, p: U64) -> U64 {
    let ea = i32(f64_exponent(a));
    let eb = i32(f64_exponent(b));
    let ep = i32(f64_exponent(p));
    // The full product's unit is 2^(ea + eb - 2150); p's significand sits `shift` bits above it.
    let unit = ea + eb - 2150;
    if (ea == 0 || eb == 0 || ep == 0 || ea == 0x7ff || eb == 0x7ff || ep == 0x7ff) {
        return U64(0u, 0u);
    }
    let full = u64_mul_wide(f64_significand(a), f64_significand(b));
    let shift = u32(ep - 1075 - unit);
    let pm = f64_significand(p);
    let p_high = u64_shr(pm, 64u - shift);
    let p_low = u64_shl(pm, shift);
    // |full - p << shift| < 2^shift <= 2^53: the low words hold the difference.
    let below = u64_less(full.zw, p_high) || (all(full.zw == p_high) && u64_less(full.xy, p_low));
    let magnitude = select(u64_sub(full.xy, p_low), u64_sub(p_low, full.xy), below);
    if (u64_is_zero(magnitude)) {
        return U64(0u, 0u);
    }
    let leading = 63u - u64_clz(magnitude);
    let exponent = unit + i32(leading) + 1023;
    if (exponent < 1) {
        return U64(0u, 0u);
    }
    let fraction = u64_shl(magnitude, 52u - leading);
    let sign = f64_sign(a) ^ f64_sign(b) ^ select(0u, 1u, below);
    return U64(fraction.x, (sign << 31u) | (u32(exponent) << 20u) | (fraction.y & F64_FRACTION_HIGH_MASK));
}

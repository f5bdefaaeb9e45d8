//! CPU twins of the Compute interface's steps (`shaders/compute/`): f32's `mul_add`
//! (`compute/f32.wgsl`), and [`Steps`], the scalar steps the f64 math is written on, native
//! (`compute/f64.wgsl`) and in software ([`Soft`], `compute/f64_soft.wgsl`).

#[cfg(test)]
use super::soft_f64::{self, U64};

#[cfg(test)]
/// `a` with its low 12 significand bits cleared.
fn high_half(a: f32) -> f32 {
    f32::from_bits(a.to_bits() & 0xffff_f000)
}

#[cfg(test)]
/// The rounding error of `p = a * b` (Dekker's): the WGSL's `product_error`.
pub(crate) fn product_error(a: f32, b: f32, p: f32) -> f32 {
    let (ah, bh) = (high_half(a), high_half(b));
    let (al, bl) = (a - ah, b - bh);
    ((ah * bh - p) + ah * bl + al * bh) + al * bl
}

#[cfg(test)]
/// The rounding error of `p = a * b` from an fma that rounds once: the WGSL's `product_error`
/// in `compute/f32_product_error_fused.wgsl`.
pub(crate) fn product_error_fused(a: f32, b: f32, p: f32) -> f32 {
    a.mul_add(b, -p)
}

#[cfg(test)]
/// `a * b + c` within an ULP, correctly rounded where it cancels: the WGSL's steps.
pub(crate) fn mul_add(a: f32, b: f32, c: f32) -> f32 {
    let p = a * b;
    let e = product_error(a, b, p);
    match () {
        _ if c == 0.0 && p != 0.0 => p,
        _ if !p.is_finite() || e == 0.0 => c + p,
        _ => (c + p) + e,
    }
}

/// The scalar f64 steps of `compute/f64.wgsl` and `compute/f64_soft.wgsl`, which the f64 math
/// (`math_f64.rs`) is written on. The math has no branches on values: a choice is a
/// [`Steps::pick`] between both sides, so that it can be recorded as one straight program
/// (`src/kernel/f64_program.rs`) and run the same way on every path.
pub(crate) trait Steps: Copy {
    /// An integer (an exponent) of the arithmetic.
    type Int: Copy;
    /// A comparison's outcome.
    type Mask: Copy;
    fn constant(v: f64) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn negate(self) -> Self;
    fn absolute(self) -> Self;
    fn quotient(self, b: Self) -> Self;
    /// `self < b`; false when either is NaN.
    fn less(self, b: Self) -> Self::Mask;
    /// ONNX `Greater`: false when either is NaN.
    fn greater(self, b: Self) -> Self::Mask;
    /// `if m { t } else { f }`.
    fn pick(m: Self::Mask, t: Self, f: Self) -> Self;
    /// `floor(self)` for |self| < 2^31 (an unspecified integer elsewhere).
    fn floor_int(self) -> Self::Int;
    fn from_int(k: Self::Int) -> Self;
    /// 2^k for -1022 <= k <= 1023, exactly.
    fn power_of_two(k: Self::Int) -> Self;
    /// 2^k for -126 <= k <= 127, exactly (the native path builds it from an f32).
    fn power_of_two_near(k: Self::Int) -> Self {
        Self::power_of_two(k)
    }
    /// `max(k, floor)`.
    fn int_max(k: Self::Int, floor: i32) -> Self::Int;
    /// `a - b`.
    fn int_sub(a: Self::Int, b: Self::Int) -> Self::Int;
    /// The value, hidden from a shader compiler's folding (`a - opaque(a)` is NaN for an
    /// infinite a, not 0).
    fn opaque(self) -> Self {
        self
    }
    /// `mul_add`: a * b + c within an ULP, correctly rounded where it cancels.
    fn mul_add(self, b: Self, c: Self) -> Self;
}

impl Steps for f64 {
    type Int = i32;
    type Mask = bool;
    fn constant(v: f64) -> Self {
        v
    }
    fn add(self, b: Self) -> Self {
        self + b
    }
    fn sub(self, b: Self) -> Self {
        self - b
    }
    fn mul(self, b: Self) -> Self {
        self * b
    }
    fn negate(self) -> Self {
        -self
    }
    fn absolute(self) -> Self {
        self.abs()
    }
    fn quotient(self, b: Self) -> Self {
        self / b
    }
    fn less(self, b: Self) -> bool {
        self < b
    }
    fn greater(self, b: Self) -> bool {
        self > b
    }
    fn pick(m: bool, t: Self, f: Self) -> Self {
        if m { t } else { f }
    }
    fn floor_int(self) -> i32 {
        self.floor() as i32
    }
    fn from_int(k: i32) -> Self {
        f64::from(k)
    }
    fn power_of_two(k: i32) -> Self {
        f64::from_bits((k.wrapping_add(1023) as u64 & 0x7ff) << 52)
    }
    fn int_max(k: i32, floor: i32) -> i32 {
        k.max(floor)
    }
    fn int_sub(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    fn mul_add(self, b: Self, c: Self) -> Self {
        f64_mul_add(self, b, c)
    }
}

#[cfg(test)]
/// Software binary64 on (low, high) u32 pairs: the twin of `compute/f64_soft.wgsl`'s steps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Soft(pub(crate) U64);

#[cfg(test)]
impl Soft {
    pub(crate) fn value(self) -> f64 {
        f64::from_bits(crate::dtype::u64_of_words(self.0))
    }
}

#[cfg(test)]
impl Steps for Soft {
    type Int = i32;
    type Mask = bool;
    fn constant(v: f64) -> Self {
        Soft(crate::dtype::words_of_u64(v.to_bits()))
    }
    fn add(self, b: Self) -> Self {
        Soft(soft_f64::f64_add(self.0, b.0))
    }
    fn sub(self, b: Self) -> Self {
        Soft(soft_f64::f64_add(self.0, soft_f64::f64_negate(b.0)))
    }
    fn mul(self, b: Self) -> Self {
        Soft(soft_f64::f64_mul(self.0, b.0))
    }
    fn negate(self) -> Self {
        Soft(soft_f64::f64_negate(self.0))
    }
    fn absolute(self) -> Self {
        Soft([self.0[0], self.0[1] & 0x7fff_ffff])
    }
    /// `d_quotient`: `self` times `reciprocal_seed(b)` after two Newton steps.
    fn quotient(self, b: Self) -> Self {
        let mut y = Soft(reciprocal_seed(b.0));
        for _ in 0..2 {
            y = y.add(y.mul(Soft::constant(1.0).sub(b.mul(y))));
        }
        self.mul(y)
    }
    fn less(self, b: Self) -> bool {
        b.greater(self)
    }
    fn greater(self, b: Self) -> bool {
        let (a, b) = (self.value(), b.value());
        a > b
    }
    fn pick(m: bool, t: Self, f: Self) -> Self {
        if m { t } else { f }
    }
    fn floor_int(self) -> i32 {
        soft_f64::f64_floor_to_i32(self.0)
    }
    fn from_int(k: i32) -> Self {
        Soft(soft_f64::f64_from_i32(k))
    }
    fn power_of_two(k: i32) -> Self {
        Soft([0, (k.wrapping_add(1023) as u32) << 20])
    }
    fn int_max(k: i32, floor: i32) -> i32 {
        k.max(floor)
    }
    fn int_sub(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    /// `d_mul_add` of `compute/f64_soft.wgsl`: the product, its exact error, two additions.
    fn mul_add(self, b: Self, c: Self) -> Self {
        let p = soft_f64::f64_mul(self.0, b.0);
        let e = soft_f64::f64_product_error(self.0, b.0, p);
        let sum = soft_f64::f64_add(c.0, p);
        if soft_f64::u64_is_zero([e[0], e[1] & 0x7fff_ffff]) { Soft(sum) } else { Soft(soft_f64::f64_add(sum, e)) }
    }
}

#[cfg(test)]
/// `f64_reciprocal_seed` of `compute/f64_soft.wgsl`: 1 / b within 2^-20 relative, for a normal
/// b whose reciprocal is normal: an f32 reciprocal of b's leading 20 bits, widened, its exponent
/// field moved by b's exponent (0 where that underflows), b's sign.
pub(crate) fn reciprocal_seed(b: U64) -> U64 {
    let leading = f32::from_bits(0x3f80_0000 | ((b[1] & 0xf_ffff) << 3));
    let v = soft_f64::f64_from_f32_bits((1.0 / leading).to_bits());
    let biased = (v[1] >> 20) as i32 - (soft_f64::f64_exponent(b) as i32 - 1023);
    let sign = b[1] & 0x8000_0000;
    if biased <= 0 { [0, sign] } else { [v[0], (v[1] & 0xf_ffff) | ((biased as u32 & 0x7ff) << 20) | sign] }
}

/// `d_mul_add` of `compute/f64.wgsl`: Veltkamp's split, Dekker's exact product, (c + p) + e.
fn f64_mul_add(a: f64, b: f64, c: f64) -> f64 {
    const SPLITTER: f64 = 134_217_729.0;
    const SPLIT_LIMIT: f64 = 8.452_712_498_170_644e270; // 2^900
    let p = a * b;
    if !(a.abs() < SPLIT_LIMIT && b.abs() < SPLIT_LIMIT && p.abs() <= f64::MAX) {
        return c + p;
    }
    let high_half = |v: f64| {
        let scaled = SPLITTER * v;
        scaled - (scaled - v)
    };
    let (ah, bh) = (high_half(a), high_half(b));
    let (al, bl) = (a - ah, b - bh);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    if e == 0.0 { c + p } else { (c + p) + e }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the sum cancels (c close to -a b) the result is the fused one, correctly rounded;
    /// elsewhere it is within an ULP of it.
    #[test]
    fn is_fused_where_it_cancels_and_within_an_ulp_elsewhere() {
        let mut next = crate::cpu::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..1_000_000 {
            let r = next();
            let a =
                f32::from_bits(0x3f00_0000 | (r as u32 & 0x00ff_ffff)) * if r & (1 << 40) == 0 { 1.0 } else { -1.0 };
            let b = f32::from_bits(0x3f00_0000 | ((r >> 24) as u32 & 0x00ff_ffff));
            let cancelling = -(a * b) + f32::from_bits(((r >> 48) as u32 & 0xff) << 15) * 1e-10;
            assert_eq!(mul_add(a, b, cancelling), a.mul_add(b, cancelling), "{a:e} * {b:e} + {cancelling:e}");
            let c = f32::from_bits(0x3e00_0000 | ((r >> 30) as u32 & 0x00ff_ffff));
            let d = crate::ulp::ulp_distance(mul_add(a, b, c), a.mul_add(b, c)).unwrap_or(u64::MAX);
            assert!(d <= 1, "{a:e} * {b:e} + {c:e}: {d} ULP");
        }
    }

    /// Dekker's error and fma's agree bit for bit on products from 2^-80 to 2^78, whose errors
    /// are normal, whatever the operands' exponents: the fused kernels' results are the same
    /// bits there.
    #[test]
    fn fused_product_errors_are_dekkers() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let exponent = |shift: u32| ((state >> shift) as u32 % 80 + 87) << 23;
            let a = f32::from_bits(exponent(0) | (state >> 8) as u32 & 0x807f_ffff);
            let b = f32::from_bits(exponent(32) | (state >> 40) as u32 & 0x007f_ffff);
            let p = a * b;
            assert_eq!(product_error(a, b, p).to_bits(), product_error_fused(a, b, p).to_bits(), "{a:e} * {b:e}");
        }
    }
}

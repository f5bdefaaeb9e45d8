// Division of u32 by a divisor prepared on the host (src/cpu/divide.rs, `Divisor`), with
// multiplies, shifts and adds only: integer division is slow on GPUs and a call per lane on
// CPU drivers. Exact for every u32 numerator (Granlund and Montgomery's method, as libdivide
// uses it): q = mulhi(n, magic), then either q >> shift, or, for divisors whose magic needs 33
// bits and for powers of two, (((n - q) >> 1) + q) >> shift; a divisor of 1 returns n.
// CPU twin: src/cpu/divide.rs.

// The high 32 bits of the 64-bit product a * b (shared/wide_u32.wgsl).
fn mulhi(a: u32, b: u32) -> u32 {
    return mul_u32_wide(a, b).y;
}

// n / d, where (magic, mode) describe d: mode = shift | kind << 8, kind 0: q >> shift,
// 1: the added form, 2: d = 1.
fn divide(n: u32, magic: u32, mode: u32) -> u32 {
    let q = mulhi(n, magic);
    let shift = mode & 0xffu;
    let kind = mode >> 8u;
    let added = (((n - q) >> 1u) + q) >> shift;
    return select(select(q >> shift, added, kind == 1u), n, kind == 2u);
}

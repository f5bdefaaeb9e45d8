//! CPU twin of `shaders/compute/f32.wgsl`'s one algorithm, `mul_add`: Dekker's exact product on
//! 12-bit halves, step for step in f32 (no fused multiply-add anywhere, as on lavapipe).

/// `a` with its low 12 significand bits cleared.
fn high_half(a: f32) -> f32 {
    f32::from_bits(a.to_bits() & 0xffff_f000)
}

/// `a * b + c` within an ULP, correctly rounded where it cancels: the WGSL's steps.
pub(crate) fn mul_add(a: f32, b: f32, c: f32) -> f32 {
    let p = a * b;
    let (ah, bh) = (high_half(a), high_half(b));
    let (al, bl) = (a - ah, b - bh);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    if c == 0.0 { p } else { (c + p) + e }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the sum cancels (c close to -a b) the result is the fused one, correctly rounded;
    /// elsewhere it is within an ULP of it.
    #[test]
    fn is_fused_where_it_cancels_and_within_an_ulp_elsewhere() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
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
}

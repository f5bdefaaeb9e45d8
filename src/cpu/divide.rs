//! CPU twin of `shaders/shared/divide.wgsl`: division of u32 by a prepared divisor with
//! multiplies and shifts, and the preparation the host does for the kernels.

/// A divisor prepared for `divide`: its magic multiplier and its mode (`shift | kind << 8`;
/// kind 0: `mulhi(n, magic) >> shift`; 1: the added form; 2: the divisor is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Divisor {
    /// The multiplier.
    pub(crate) magic: u32,
    /// Shift and kind.
    pub(crate) mode: u32,
}

impl Divisor {
    /// Prepares `d` (at least 1; 0 is taken as 1).
    pub(crate) fn new(d: u32) -> Divisor {
        let d = d.max(1);
        if d == 1 {
            return Divisor { magic: 0, mode: 2 << 8 };
        }
        let log = 31 - d.leading_zeros();
        if d.is_power_of_two() {
            // mulhi(n, 0) = 0: the added form gives (n >> 1) >> (log - 1) = n >> log.
            return Divisor { magic: 0, mode: (log - 1) | 1 << 8 };
        }
        let numerator = 1u64 << (32 + log);
        let (quotient, remainder) = (numerator / u64::from(d), numerator % u64::from(d));
        let excess = u64::from(d) - remainder;
        if excess < (1u64 << log) {
            Divisor { magic: (quotient + 1) as u32, mode: log }
        } else {
            let twice = 2 * remainder;
            let extra = u64::from(twice >= u64::from(d));
            Divisor { magic: (2 * quotient + extra + 1) as u32, mode: log | 1 << 8 }
        }
    }
}

/// The high 32 bits of `a * b`, as the kernel computes them.
#[cfg(test)]
pub(crate) fn mulhi(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}

/// `n / d` for the prepared divisor `d`, step for step as the kernel does it.
#[cfg(test)]
pub(crate) fn divide(n: u32, d: Divisor) -> u32 {
    let q = mulhi(n, d.magic);
    let shift = d.mode & 0xff;
    match d.mode >> 8 {
        2 => n,
        1 => ((n.wrapping_sub(q) >> 1).wrapping_add(q)) >> shift,
        _ => q >> shift,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divides_exactly_for_every_kind_of_divisor() {
        let mut divisors: Vec<u32> = (1..=4099).collect();
        divisors.extend([
            7,
            641,
            6700417,
            65535,
            65536,
            65537,
            u32::MAX,
            u32::MAX - 1,
            1 << 31,
            (1 << 31) + 1,
            3 << 30,
        ]);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            divisors.push((state >> 32) as u32 >> (state % 31));
        }
        let mut numerators: Vec<u32> = vec![0, 1, 2, 3, u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1];
        for _ in 0..300 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            numerators.push(state as u32);
        }
        for &d in &divisors {
            let prepared = Divisor::new(d);
            let d = d.max(1);
            for &n in numerators.iter().chain(&[
                d - 1,
                d,
                d.saturating_add(1),
                d.saturating_mul(2),
                d.saturating_mul(7).saturating_sub(1),
            ]) {
                assert_eq!(divide(n, prepared), n / d, "{n} / {d} with {prepared:?}");
            }
        }
    }
}

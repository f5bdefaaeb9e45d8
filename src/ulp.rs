//! ULP distances between GPU results and the CPU reference.

use crate::dtype::Element;

/// Units in the last place between `a` and `b` (exact difference for integers). Two NaNs are
/// 0 apart; a NaN against a number is `None`. +0 and -0 are 0 apart (compare signs separately
/// where that matters).
pub fn ulp_distance<T: Element>(a: T, b: T) -> Option<u64> {
    match (a.ulp_key(), b.ulp_key()) {
        (None, None) => Some(0),
        (Some(x), Some(y)) => Some((x - y).unsigned_abs().min(u128::from(u64::MAX)) as u64),
        _ => None,
    }
}

/// Whether `actual` matches `expected` within `max_ulp`; at 0 ULPs the signs must agree too
/// (-0.0 is not 0.0), and a NaN matches a NaN. Subnormals get no liberty: where a device
/// flushes them, the kernels compute around it ([`crate::Subnormals`]).
pub fn within_ulp<T: Element>(actual: T, expected: T, max_ulp: u64) -> bool {
    match ulp_distance(actual, expected) {
        Some(0) => sign_negative(actual) == sign_negative(expected) || actual.ulp_key().is_none(),
        Some(d) => d <= max_ulp,
        None => false,
    }
}

/// The value whose [`Element::ulp_key`] is `key` (the inverse of it; for floats, the positive
/// zero at key 0). Keys outside the type wrap, so callers stay within the keys of values.
pub(crate) fn from_key<T: Element>(key: i128) -> T {
    let size = T::DTYPE.size_bytes();
    let bits: u128 =
        if T::DTYPE.is_float() && key < 0 { (1u128 << (8 * size - 1)) | key.unsigned_abs() } else { key as u128 };
    bytemuck::pod_read_unaligned(&bits.to_le_bytes()[..size])
}

fn sign_negative<T: Element>(v: T) -> bool {
    // For floats, the sign bit is the top bit of the stored bytes (little-endian: last byte).
    let bytes = bytemuck::bytes_of(&v);
    bytes[bytes.len() - 1] & 0x80 != 0
}

/// The largest ULP distance over two equal-length slices, with the index where it occurs;
/// `u64::MAX` for a NaN/number mismatch. `None` for empty input.
pub fn max_ulp_error<T: Element>(actual: &[T], expected: &[T]) -> Option<(u64, usize)> {
    actual
        .iter()
        .zip(expected)
        .enumerate()
        .map(|(i, (&a, &e))| (ulp_distance(a, e).unwrap_or(u64::MAX), i))
        .max_by_key(|&(d, _)| d)
}

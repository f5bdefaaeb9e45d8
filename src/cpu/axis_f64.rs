//! CPU twin of `shaders/driver/axis_f64.wgsl`, the kernel over an axis on f64 rows: the steps of
//! each element, written once on [`Steps`] like `math_f64` and recorded by
//! `src/kernel/f64_program.rs` into both f64 paths (native f64, and the software path's
//! program). Per row with maximum m (chosen on the values, exactly) and terms e^(x - m):
//!   softmax_term(x, m)                 e^(x - m), rounded once, for the row's sum
//!   compensated(c, a, b)               c + the rounding error of a + b: the sum's compensation
//!                                      (Neumaier's), a program step rather than inlined code
//!   softmax_quotient(x, m, S)          e^(x - m) / S for the rounded sum S, its mantissa kept as
//!                                      a two-sum and the quotient corrected by its residual
//!   log_of_sum(sum, compensation)      log(sum + compensation): log1p of the other terms' sum
//!                                      below 2 (a row one term dominates: never log of a sum
//!                                      near 1)
//!   log_softmax_difference(x, m, L)    (x - m) - L, x - m kept exact
//! x - m is split exactly (a two-sum), its rounding error carried into the exponential. Each
//! result is within 2 ULP of the correctly rounded one (the tests, against the double-double
//! reference of `cpu::axis`), subnormal probabilities included. The driver applies the rows'
//! special cases (NaN rows, -inf elements, a maximum whose rest vanished) itself.

use super::compute::Steps;
use super::math_f64::{LN2_HI, LN2_LO, at_least, c, exp_parts, log1p_of_unit, scaled_once};

/// Below this, e^(x - m) < 2^-1075 rounds to 0 (and so does the term over any sum >= 1).
const TERM_UNDERFLOW: f64 = -746.0;

/// x - m as hi + lo exactly (Knuth's two-sum, the sums opaque so that no compiler folds lo to
/// 0); lo 0 where hi is not finite (x = -inf, or x - m beyond f64's range).
fn difference<S: Steps>(x: S, m: S) -> (S, S) {
    let hi = x.sub(m).opaque();
    let back = hi.sub(x).opaque();
    let lo = x.sub(hi.sub(back)).add(m.negate().sub(back));
    (hi, S::pick(c::<S>(f64::MAX).less(hi.absolute()), c(0.0), lo))
}

/// e^(x - m) for x <= m: with x - m = d + d_lo and e^d = 2^k (1 + p), 2^k (1 + p)(1 + d_lo)
/// (d_lo^2 is far below an ULP: |d_lo| <= 2^-43 where the term is not 0), rounded once.
pub(crate) fn softmax_term<S: Steps>(x: S, m: S) -> S {
    let one = c::<S>(1.0);
    let (d, d_lo) = difference(x, m);
    let (k, p) = exp_parts(at_least(d, TERM_UNDERFLOW));
    let mantissa = one.add(p.add(d_lo.mul(one.add(p))));
    S::pick(d.less(c(TERM_UNDERFLOW)), c(0.0), scaled_once(mantissa, k))
}

/// `compensation` plus the rounding error of a + b, exactly (Neumaier's step: (big - s) + small
/// for s = a + b, big the larger of a and b in magnitude). The driver adds a + b itself, the
/// same sum.
pub(crate) fn compensated<S: Steps>(compensation: S, a: S, b: S) -> S {
    let sum = a.add(b).opaque();
    let a_larger = b.absolute().less(a.absolute());
    let big = S::pick(a_larger, a, b);
    let small = S::pick(a_larger, b, a);
    compensation.add(big.sub(sum).opaque().add(small))
}

/// e^(x - m) / total for the row's sum `total` >= 1: the term's mantissa 1 + t = s + s_err (a
/// two-sum: s - 1 is exact for s in [1/2, 2]), q = s / total by the arithmetic's quotient, then
/// q + r / total with the residual r = (s - q total) + s_err (exact where it cancels:
/// `mul_add`), scaled by 2^k in two exact steps so that a subnormal result is rounded once.
pub(crate) fn softmax_quotient<S: Steps>(x: S, m: S, total: S) -> S {
    let one = c::<S>(1.0);
    let (d, d_lo) = difference(x, m);
    let (k, p) = exp_parts(at_least(d, TERM_UNDERFLOW));
    let t = p.add(d_lo.mul(one.add(p)));
    let s = one.add(t).opaque();
    let s_err = t.sub(s.sub(one));
    let q = s.quotient(total);
    let r = q.negate().mul_add(total, s).add(s_err);
    let result = scaled_once(q.add(r.quotient(total)), k);
    S::pick(d.less(c(TERM_UNDERFLOW)), c(0.0), result)
}

/// log(sum + compensation) for a row's compensated sum: as hi + lo (hi rounded, lo exact), 1 <=
/// hi < 2^32 (the maximum's term is 1, every other at most 1), hi = 2^j m with m in [1, 2),
/// found by halving, then j ln2 + log1p((m - 1) + lo 2^-j), m - 1 exact. Below 2 (j = 0) that
/// is log1p of the other terms' sum itself.
pub(crate) fn log_of_sum<S: Steps>(sum: S, compensation: S) -> S {
    let hi = sum.add(compensation).opaque();
    let lo = compensation.sub(hi.sub(sum));
    let (mut j, mut m, mut m_lo) = (c::<S>(0.0), hi, lo);
    for shift in [16, 8, 4, 2, 1] {
        let below = m.less(c(2f64.powi(shift)));
        let scale = c::<S>(2f64.powi(-shift));
        j = S::pick(below, j, j.add(c(f64::from(shift))));
        m = S::pick(below, m, m.mul(scale));
        m_lo = S::pick(below, m_lo, m_lo.mul(scale));
    }
    let l = log1p_of_unit(m.sub(c(1.0)).add(m_lo));
    j.mul(c(LN2_HI)).add(l.add(j.mul(c(LN2_LO))))
}

/// (x - m) - l for the row's log-sum l >= 0: x - m = d + d_lo exactly, d - l as a two-sum, its
/// error and d_lo added once (d <= 0 and -l <= 0 do not cancel); -inf where d is.
pub(crate) fn log_softmax_difference<S: Steps>(x: S, m: S, l: S) -> S {
    let (d, d_lo) = difference(x, m);
    let a = d.sub(l).opaque();
    let back = a.sub(d).opaque();
    let a_err = d.sub(a.sub(back)).add(l.negate().sub(back));
    let result = a.add(a_err.add(d_lo));
    S::pick(d.less(c(-f64::MAX)), d, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::axis::row_of;
    use crate::cpu::compute::Soft;
    use crate::ops::AxisKind;
    use crate::real::Exact;
    use crate::ulp::ulp_distance;

    /// The driver's row in one invocation: the maximum, the terms' compensated sum, each result
    /// and the rows' special cases, on steps `S` (`value` reads one back).
    fn driver_row<S: Steps>(kind: AxisKind, row: &[f64], value: fn(S) -> f64) -> Vec<f64> {
        let undefined = row.iter().any(|v| v.is_nan() || *v == f64::INFINITY) || row.iter().all(|v| v.is_infinite());
        if undefined {
            return vec![f64::NAN; row.len()];
        }
        let maximum = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let m = S::constant(maximum);
        let (mut sum, mut compensation, mut vanished) = (S::constant(0.0), S::constant(0.0), false);
        for &x in row {
            let term = softmax_term(S::constant(x), m);
            vanished |= value(term) == 0.0 && x != f64::NEG_INFINITY;
            compensation = compensated(compensation, sum, term);
            sum = sum.add(term);
        }
        let total = sum.add(compensation);
        let log_sum = log_of_sum(sum, compensation);
        let others_vanished = vanished && value(sum) == 1.0 && value(compensation) == 0.0;
        row.iter()
            .map(|&x| match kind {
                AxisKind::Softmax => value(softmax_quotient(S::constant(x), m, total)),
                _ if others_vanished && x == maximum => -0.0,
                _ => value(log_softmax_difference(S::constant(x), m, log_sum)),
            })
            .collect()
    }

    /// Rows a user meets and the edges: logits of spreads 3 to 700, one term far ahead, masks of
    /// -inf, probabilities down among the subnormals, a sum beyond 2^20.
    fn rows() -> Vec<Vec<f64>> {
        let mut next = crate::cpu::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut uniform = move || (next() >> 11) as f64 / (1u64 << 53) as f64;
        let mut rows = Vec::new();
        for (n, spread) in
            [(1, 3.0), (2, 3.0), (7, 30.0), (16, 3.0), (100, 3.0), (1000, 3.0), (1000, 30.0), (300, 700.0)]
        {
            for _ in 0..4 {
                rows.push((0..n).map(|_| (uniform() - 0.5) * 2.0 * spread).collect());
            }
        }
        for ahead in [20.0, 40.0, 100.0, 745.5, 800.0, 2000.0] {
            rows.push(vec![0.0, -ahead, -ahead - 1.0, -ahead * 0.99]);
        }
        rows.push(vec![1e300, -1e300, 3.0, f64::NEG_INFINITY]);
        rows.push(vec![f64::NEG_INFINITY, 5.0, f64::NEG_INFINITY]);
        rows.push(vec![-1e-310, 1e-310, 0.0, -0.0]);
        rows.push(vec![1.5; 1 << 16]);
        rows
    }

    #[test]
    fn rows_within_two_ulp_of_the_correctly_rounded_results_on_both_paths() {
        let mut worst = [0u64; 2];
        for row in rows() {
            for (k, kind) in [AxisKind::Softmax, AxisKind::LogSoftmax].into_iter().enumerate() {
                let expected = row_of::<Exact>(kind, &row);
                let native = driver_row::<f64>(kind, &row, |v| v);
                let software = driver_row::<Soft>(kind, &row, Soft::value);
                for (i, e) in expected.iter().enumerate() {
                    for got in [native[i], software[i]] {
                        let d = ulp_distance(got, *e).unwrap_or(u64::MAX);
                        assert!(
                            d <= 2,
                            "{kind:?} row of {} (x = {:e}): {got:e}, correctly rounded {e:e}",
                            row.len(),
                            row[i]
                        );
                        worst[k] = worst[k].max(d);
                    }
                }
            }
        }
        println!("f64 rows: Softmax {} ULP, LogSoftmax {} ULP", worst[0], worst[1]);
    }

    #[test]
    fn special_rows_follow_the_function_bodies() {
        let softmax = driver_row::<f64>(AxisKind::Softmax, &[f64::NEG_INFINITY, 2.0, f64::NEG_INFINITY], |v| v);
        assert_eq!(softmax, [0.0, 1.0, 0.0]);
        let log = driver_row::<f64>(AxisKind::LogSoftmax, &[f64::NEG_INFINITY, 2.0], |v| v);
        assert_eq!(log[0], f64::NEG_INFINITY);
        assert_eq!(log[1].to_bits(), 0.0f64.to_bits());
        let vanished = driver_row::<f64>(AxisKind::LogSoftmax, &[1e30, -1e30], |v| v);
        assert_eq!(vanished[0].to_bits(), (-0.0f64).to_bits());
        assert_eq!(vanished[1], -2e30);
        // One term dominating: -e^-40, not 0.
        let near_zero = driver_row::<Soft>(AxisKind::LogSoftmax, &[0.0, -40.0], Soft::value);
        assert!((near_zero[0] + (-40.0f64).exp()).abs() < 1e-32, "{near_zero:?}");
    }
}

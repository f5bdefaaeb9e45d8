//! SwiGLU's f64 math, written once on [`Steps`] like `math_f64` and recorded by
//! `src/kernel/f64_program.rs` into both f64 paths (`shaders/ops/swiglu.wgsl` calls it as
//! `gated_product`; the f32 arithmetic's is in `shaders/math/f32.wgsl`). Against the correctly
//! rounded result (the tests, against `cpu::gated`'s double-double reference):
//!   gated_product   (a b) sigmoid(alpha a) for an f32 alpha, 4 ULP (2 in the tests), a b beyond
//!                   f64's range and subnormal results included

#[cfg(test)]
use super::compute::Soft;
use super::compute::Steps;
use super::math_f64::{LogisticParts, at_least, at_most, c, logistic_parts, times_zero};

/// Beyond this |alpha a|, sigmoid(alpha a) rounds a b sigmoid(alpha a) to a b, or below 2^-1075
/// for every a and b below 2^1024 (e^-2300 < 2^-3318).
const GATED_SATURATION: f64 = 2300.0;

/// v = v' 2^e with |v'| in [2^-563, 2^511): v scaled by 2^-513 from 2^511 up, by 2^512 below
/// 2^-511 (exact), e (0, 513 or -512) as a value. Two such factors' product is below 2^1022.
fn coarsely_scaled<S: Steps>(v: S) -> (S, S) {
    let not_large = v.absolute().less(c(2f64.powi(511)));
    let small = v.absolute().less(c(2f64.powi(-511)));
    let scaled = S::pick(not_large, S::pick(small, v.mul(c(2f64.powi(512))), v), v.mul(c(2f64.powi(-513))));
    (scaled, S::pick(not_large, S::pick(small, c(-512.0), c(0.0)), c(513.0)))
}

/// h = m 2^e and its companion w = m_w 2^e for a finite nonzero h below 2^1022 (and above
/// 2^-1075), m (h's sign) of magnitude in [1, 2), e an integer as a value: halving, then
/// doubling, both by the same powers of two (exact, w's too while it stays normal). A zero h
/// gives a zero m.
fn normalized_pair<S: Steps>(h: S, w: S) -> (S, S, S) {
    let (mut m, mut m_w, mut e) = (h, w, c::<S>(0.0));
    for shift in [512, 256, 128, 64, 32, 16, 8, 4, 2, 1] {
        let below = m.absolute().less(c(2f64.powi(shift)));
        let scale = c::<S>(2f64.powi(-shift));
        m = S::pick(below, m, m.mul(scale));
        m_w = S::pick(below, m_w, m_w.mul(scale));
        e = S::pick(below, e, e.add(c(f64::from(shift))));
    }
    // 1074 steps up at most (a subnormal h): 512 twice.
    for shift in [512, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1] {
        let small = m.absolute().less(c(2f64.powi(1 - shift)));
        let scale = c::<S>(2f64.powi(shift));
        m = S::pick(small, m.mul(scale), m);
        m_w = S::pick(small, m_w.mul(scale), m_w);
        e = S::pick(small, e.sub(c(f64::from(shift))), e);
    }
    (m, m_w, e)
}

/// SwiGLU's (a b) sigmoid(alpha a) for an f32 alpha, rounded once, whatever the range of a b:
/// t = alpha a and its error (`mul_add`), sigmoid(t + error) = y (1 + q) 2^k' (as in
/// `math_f64::logistic_product`), a and b scaled coarsely (by 2^+-512) so that their product a' b' =
/// h + h_err (exact, `mul_add`) stays within f64's range, h and h_err normalized together to
/// [1, 2), then (h + h_err) y (1 + q) as one `mul_add` in [1/4, 4), scaled by 2^(e + k') in two
/// exact steps so that a subnormal result is rounded once (an overflow is one too). Where a' b'
/// is below 2^-969 its error is not exact, but the result is then below 2^-969 times 2^0 or
/// less, where that error is far below an ULP.
/// Infinite or NaN inputs: an infinite a or b times a sigmoid above 0 (every finite real alpha
/// a) is a b; NaN where t is NaN, or -inf with a infinite (sigmoid 0). A zero a or b: a b.
pub(crate) fn gated_product<S: Steps>(a: S, b: S, alpha: S) -> S {
    let one = c::<S>(1.0);
    let t = alpha.mul(a);
    let LogisticParts { y, q, k, above, saturated } = logistic_parts(t, alpha.mul_add(a, t.negate()), GATED_SATURATION);
    let (a_scaled, ea) = coarsely_scaled(a);
    let (b_scaled, eb) = coarsely_scaled(b);
    let product = a_scaled.mul(b_scaled);
    let (h, h_err, eh) = normalized_pair(product, a_scaled.mul_add(b_scaled, product.negate()));
    let hy = h.mul(y);
    let v = h.mul_add(y, hy.mul(q).add(h_err.mul(y)));
    let exponent = ea.add(eb).add(eh);
    let exponent = S::pick(above, exponent, exponent.add(S::from_int(k)));
    let exponent = at_most(at_least(exponent, -1200.0), 1100.0);
    let first = at_most(at_least(exponent, -1000.0), 1000.0);
    let result = v.mul(S::power_of_two(first.floor_int())).mul(S::power_of_two(exponent.sub(first).floor_int()));
    // Saturated below: a zero of a b's sign (v's); above: sigmoid 1, already in y.
    let result = S::pick(saturated, S::pick(above, result, times_zero(v)), result);
    let product = a.mul(b);
    let finite_nonzero = |v: S| S::pick(v.absolute().greater(c(f64::MAX)), c(0.0), v.absolute());
    let ordinary = S::pick(c::<S>(0.0).less(finite_nonzero(a)), finite_nonzero(b), c(0.0));
    // Infinite (or zero) inputs: a b, and NaN where the sigmoid is NaN or 0 (t NaN; t = -inf from
    // an infinite a).
    let sigmoid_zero = S::pick(a.absolute().greater(c(f64::MAX)), S::pick(t.less(c(-f64::MAX)), one, c(0.0)), c(0.0));
    let t_nan = S::pick(t.less(one), c(0.0), S::pick(t.greater(c(0.0)), c(0.0), one));
    let special = S::pick(c::<S>(0.0).less(sigmoid_zero.add(t_nan)), t.sub(t.opaque()), product);
    S::pick(c::<S>(0.0).less(ordinary), S::pick(c::<S>(0.0).less(t_nan), t, result), special)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ulp::ulp_distance;

    /// SwiGLU's f64 math against its reference (`cpu::gated::element`, the double-double rounded
    /// once) on both arithmetics: a and b log-spaced over f64's range (products beyond it and
    /// subnormal results included), every pair of special values, alphas of both signs.
    #[test]
    fn gated_product_within_its_bound_on_both_paths() {
        let values: Vec<f64> = (0..1024).map(|i| 10f64.powf(-300.0 + 303.0 * f64::from(i) / 1024.0)).collect();
        let values: Vec<f64> = values.iter().flat_map(|&v| [v, -v]).collect();
        let specials =
            [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MAX, -f64::MAX, 5e-324, -3.0, 1e300];
        let mut worst = 0;
        // Magnitudes 2^-1074 to 2^1023 for both: a b beyond f64's range both ways, and a tiny
        // alpha for a huge a, so that the result is finite where a b overflows.
        let wide: Vec<f64> = (-1074..1024).step_by(37).map(|e| 1.37 * 2f64.powi(e)).flat_map(|v| [v, -v]).collect();
        for alpha in [1.0f32, 1.702, -2.0, 0.0, 1e-30, 1e-44, 3e38] {
            let pairs = values.iter().zip(values.iter().rev()).map(|(&a, &b)| (a, b * 1e6));
            let wide_pairs = wide.iter().flat_map(|&a| wide.iter().map(move |&b| (a, b)));
            let pairs = pairs.chain(wide_pairs);
            let special_pairs = specials.iter().flat_map(|&a| specials.iter().map(move |&b| (a, b)));
            for (a, b) in pairs.chain(special_pairs) {
                let expected = crate::cpu::gated::element(a, b, alpha);
                let alpha64 = f64::from(alpha);
                let soft = gated_product(Soft::constant(a), Soft::constant(b), Soft::constant(alpha64)).value();
                for got in [gated_product(a, b, alpha64), soft] {
                    let d = ulp_distance(got, expected).unwrap_or(u64::MAX);
                    assert!(d <= 4, "alpha {alpha}, a {a:e}, b {b:e}: {got:e}, reference {expected:e}");
                    worst = worst.max(d);
                }
            }
        }
        println!("gated_product: {worst} ULP");
    }
}

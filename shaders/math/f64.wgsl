// Accurate elementwise functions in f64, one algorithm for both f64 paths: written on the scalar
// steps d_* of compute/f64.wgsl (native) and compute/f64_soft.wgsl (software), with constants
// {{F64 <decimal>}} that the expansion spells for each. CPU twin, step for step in f64 (which
// the software path matches bit for bit): src/cpu/math_f64.rs. Bounds against the correctly
// rounded f64 result, measured against the reference's double-double arithmetic:
//   expm1 (x <= 0)          1 ULP
//   logistic (sigmoid)      2 ULP, subnormal results included
//   hyperbolic_tangent      2 ULP
//   softsign_quotient       1 ULP (NaN for infinite x, as x / (1 + |x|) is)
// Loops (the polynomial, the lanes) keep one inlined copy of each software step per call site,
// which keeps SwiftShader's compile time of the software kernels in seconds.

const D_LN2_HI: F64 = {{F64 6.93147180369123816490e-01}}; // 32 significant bits: k * D_LN2_HI is exact
const D_LN2_LO: F64 = {{F64 1.90821492927058770002e-10}};
const D_INV_LN2: F64 = {{F64 1.4426950408889634}};
const D_HALF: F64 = {{F64 0.5}};
const D_ONE: F64 = {{F64 1.0}};
const D_MINUS_ONE: F64 = {{F64 -1.0}};
const D_MAX: F64 = {{F64 1.7976931348623157e308}};
// 1/13! down to 1/2: the Taylor coefficients of q(r) = (expm1(r) - r) / r^2, Horner order.
const D_EXP_Q: array<F64, 12> = array<F64, 12>(
    {{F64 1.6059043836821613e-10}},
    {{F64 2.08767569878681e-9}},
    {{F64 2.505210838544172e-8}},
    {{F64 2.755731922398589e-7}},
    {{F64 2.7557319223985893e-6}},
    {{F64 2.48015873015873e-5}},
    {{F64 1.984126984126984e-4}},
    {{F64 1.388888888888889e-3}},
    {{F64 8.333333333333333e-3}},
    {{F64 4.1666666666666664e-2}},
    {{F64 1.6666666666666666e-1}},
    {{F64 0.5}},
);
// Below this, e^x < 2^-54 and the correctly rounded expm1(x) is -1.
const D_EXPM1_SATURATION: F64 = {{F64 -38.0}};
// Above this (toward 0) expm1(x) rounds to x; returning x keeps the sign of flushed inputs.
const D_EXPM1_IDENTITY: F64 = {{F64 -5.551115123125783e-17}}; // -2^-54
// Below this, tanh(x) rounds to x (x^3/3 is under half an ULP of x); above the next, to 1.
const D_TANH_IDENTITY: F64 = {{F64 7.450580596923828e-9}}; // 2^-27
const D_TANH_SATURATION: F64 = {{F64 19.1}};
// Below -this, logistic(x) < 2^-1075 rounds to 0.
const D_SIGMOID_UNDERFLOW: F64 = {{F64 746.0}};

// e^x = 2^k (1 + p), for -746 <= x <= 710: k = round(x / ln2), r = x - k ln2 (Cody-Waite),
// |r| <= ln2/2, p = r + r^2 q(r) with q's Taylor series to degree 11 (truncation below 2e-17
// relative).
struct DExpParts {
    k: i32,
    p: F64,
}

fn d_exp_parts(x: F64) -> DExpParts {
    let k = d_floor_int(d_add(d_mul(x, D_INV_LN2), D_HALF));
    let kf = d_from_int(k);
    let r = d_sub(d_sub(x, d_mul(kf, D_LN2_HI)), d_mul(kf, D_LN2_LO));
    var q = D_EXP_Q[0];
    for (var i = 1u; i < 12u; i++) {
        q = d_add(D_EXP_Q[i], d_mul(r, q));
    }
    return DExpParts(k, d_add(r, d_mul(d_mul(r, r), q)));
}

// expm1(x) for x <= 0: 2^k p + (2^k - 1), 2^k - 1 exact for k >= -53.
fn d_expm1(x: F64) -> F64 {
    if (d_less(x, D_EXPM1_SATURATION)) {
        return D_MINUS_ONE;
    }
    if (d_less(D_EXPM1_IDENTITY, x)) {
        return x;
    }
    let parts = d_exp_parts(x);
    let two_k = d_power_of_two_near(parts.k);
    return d_add(d_mul(parts.p, two_k), d_add(two_k, D_MINUS_ONE));
}

// 1 / (1 + u) for 0 <= u <= 1 (see math/f32.wgsl).
fn d_reciprocal_of_one_plus(u: F64) -> F64 {
    let y = d_quotient(D_ONE, d_add(D_ONE, u));
    let r = d_mul_add(d_negate(u), y, d_sub(D_ONE, y));
    return d_add(y, d_mul(y, r));
}

// logistic(x) (see math/f32.wgsl): 1 / (1 + e) for x > 0, else 2^k (y + p y) with e = e^-|x| =
// 2^k (1 + p), scaled in two exact steps so that a subnormal result is rounded once.
fn d_logistic(x: F64) -> F64 {
    var t = d_negate(d_absolute(x));
    if (d_less(t, d_negate(D_SIGMOID_UNDERFLOW))) {
        t = d_negate(D_SIGMOID_UNDERFLOW);
    }
    let parts = d_exp_parts(t);
    let e = d_mul(d_add(D_ONE, parts.p), d_power_of_two(max(parts.k, -1022)));
    let y = d_reciprocal_of_one_plus(e);
    if (d_greater(x, {{F64 0.0}})) {
        return y;
    }
    let m = d_add(y, d_mul(parts.p, y));
    let first = max(parts.k, -1000);
    return d_mul(d_mul(m, d_power_of_two(first)), d_power_of_two(parts.k - first));
}

// tanh(x) (see math/f32.wgsl): -expm1(-2|x|) / (1 + e^-2|x|), x's sign; x itself near 0.
fn d_hyperbolic_tangent(x: F64) -> F64 {
    let a = d_absolute(x);
    if (d_less(a, D_TANH_IDENTITY)) {
        return x;
    }
    var clamped = a;
    if (d_less(D_TANH_SATURATION, a)) {
        clamped = D_TANH_SATURATION;
    }
    let parts = d_exp_parts(d_mul({{F64 -2.0}}, clamped));
    let two_k = d_power_of_two_near(parts.k);
    let y = d_reciprocal_of_one_plus(d_mul(d_add(D_ONE, parts.p), two_k));
    let t = d_mul(d_negate(d_add(d_mul(parts.p, two_k), d_add(two_k, D_MINUS_ONE))), y);
    return select(t, d_negate(t), d_less(x, {{F64 0.0}}));
}

// x / (1 + |x|) (see math/f32.wgsl): the residual-corrected 1 / (1 + |x|), then x y below
// |x| = 1 and 1 - y (x's sign) above; NaN for an infinite x.
fn d_softsign_quotient(x: F64) -> F64 {
    let a = d_absolute(x);
    if (d_greater(a, D_MAX)) {
        return d_sub(a, d_opaque(a)); // NaN (inf - inf: opaque, or a compiler folds it to 0)
    }
    let y0 = d_quotient(D_ONE, d_add(D_ONE, a));
    let y = d_add(y0, d_mul(y0, d_mul_add(d_negate(a), y0, d_sub(D_ONE, y0))));
    if (d_less(a, D_ONE)) {
        return d_mul(x, y);
    }
    return select(d_sub(D_ONE, y), d_negate(d_sub(D_ONE, y)), d_less(x, {{F64 0.0}}));
}

// The Compute-level functions of the interface, lane by lane.

fn expm1(c: Compute) -> Compute {
    var out = c;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_expm1(lane(c, i)));
    }
    return out;
}

fn logistic(c: Compute) -> Compute {
    var out = c;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_logistic(lane(c, i)));
    }
    return out;
}

fn hyperbolic_tangent(c: Compute) -> Compute {
    var out = c;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_hyperbolic_tangent(lane(c, i)));
    }
    return out;
}

fn softsign_quotient(c: Compute) -> Compute {
    var out = c;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_softsign_quotient(lane(c, i)));
    }
    return out;
}

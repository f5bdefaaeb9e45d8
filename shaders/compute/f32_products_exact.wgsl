// The products of compute/f32.wgsl on a device whose float unit flushes subnormals: to zero
// when they are operands (DAZ) or results (FTZ). WGSL allows both, and SwiftShader and many
// GPUs do one or the other; the context measures it (src/engine/probe.rs) and builds kernels
// with this file instead of compute/f32_products.wgsl where it does. CPU twin:
// src/cpu/compute_f32_products_exact.rs.
//
// A product whose operands are normal and whose result is normal (the float unit's nonzero
// result says so first, then the exponents) is the hardware's. A product with a subnormal
// operand, or one whose result may be subnormal, is computed on integers: the 24 x 24-bit
// significand product (wide_u32.wgsl), shifted to the result's unit and rounded to nearest, ties
// to even. So every product is the correctly rounded one, as on an IEEE device, bit for bit and
// sign included. `exact_product` is `mul` itself where every product takes it
// (compute/f32_products_on_integers.wgsl), and the checked side of the guarded products
// (compute/f32_products_guarded.wgsl).

fn exact_product(a: Compute, b: Compute) -> Compute {
    let hardware = a * b;
    // One cheap test for every product (compute/f32_product_flag.wgsl), the rest only where a
    // lane fails it (on an H200 in one pass, LeakyRelu f32 0.93 of the copy kernel, against
    // 0.81 in two passes; BENCHMARKS.md).
    if (!any(product_may_be_wrong(a, b, hardware))) {
        return hardware;
    }
    let ua = bitcast<vec4<u32>>(a);
    let ub = bitcast<vec4<u32>>(b);
    let ea = (ua >> vec4(23u)) & vec4(0xffu);
    let eb = (ub >> vec4(23u)) & vec4(0xffu);
    let magnitude_a = ua & vec4(0x7fffffffu);
    let magnitude_b = ub & vec4(0x7fffffffu);
    let subnormal_a = (ea == vec4(0u)) & (magnitude_a != vec4(0u));
    let subnormal_b = (eb == vec4(0u)) & (magnitude_b != vec4(0u));
    let finite_nonzero = (ea != vec4(255u)) & (eb != vec4(255u)) & (magnitude_a != vec4(0u))
        & (magnitude_b != vec4(0u));
    // Below 2^(ea + eb - 254) >= 2^-126 the product may be subnormal.
    let on_integers = finite_nonzero & (subnormal_a | subnormal_b | (ea + eb < vec4(128u)));
    // Infinity times a subnormal is infinite; a flushing unit makes it 0 x inf = NaN.
    let infinite = ((magnitude_a == vec4(0x7f800000u)) & subnormal_b) | ((magnitude_b == vec4(0x7f800000u)) & subnormal_a);
    if (!any(on_integers | infinite)) {
        return hardware;
    }
    var bits = bitcast<vec4<u32>>(hardware);
    for (var i = 0u; i < 4u; i++) {
        if (on_integers[i]) {
            bits[i] = f32_mul_on_integers(ua[i], ub[i]);
        } else if (infinite[i]) {
            bits[i] = ((ua[i] ^ ub[i]) & 0x80000000u) | 0x7f800000u;
        }
    }
    return bitcast<Compute>(bits);
}

// The correctly rounded product of two finite nonzero f32 given as bits, as bits. |a| is
// Ma 2^(Ea - 150) with Ma its 24-bit significand (no hidden bit for a subnormal, whose Ea is
// 1), so the product is P 2^(Ea + Eb - 300) with P = Ma Mb < 2^48.
fn f32_mul_on_integers(ua: u32, ub: u32) -> u32 {
    let ea = (ua >> 23u) & 0xffu;
    let eb = (ub >> 23u) & 0xffu;
    let ma = select((ua & 0x7fffffu) | 0x800000u, ua & 0x7fffffu, ea == 0u);
    let mb = select((ub & 0x7fffffu) | 0x800000u, ub & 0x7fffffu, eb == 0u);
    let exponents = i32(max(ea, 1u) + max(eb, 1u));
    let p = mul_u32_wide(ma, mb);
    let top = select(31 - i32(countLeadingZeros(p.x)), 63 - i32(countLeadingZeros(p.y)), p.y != 0u);
    // The result's biased exponent, and its unit (ULP) 2^(unit_exponent - 150) as a subnormal
    // when that exponent is below 1.
    let exponent = top + exponents - 173;
    let unit_exponent = max(exponent, 1);
    let shift = u32(max(unit_exponent + 150 - exponents, 0));
    let significand = f32_round_shift(p, shift);
    // A carry out of the significand (2^24, or 2^23 from a subnormal) raises the exponent.
    return ((ua ^ ub) & 0x80000000u) + (u32(unit_exponent - 1) << 23u) + significand;
}

// p / 2^s rounded to nearest, ties to even, for p < 2^48 (and a quotient below 2^25).
fn f32_round_shift(p: vec2<u32>, s: u32) -> u32 {
    if (s == 0u) {
        return p.x;
    }
    if (s > 49u) {
        return 0u; // p < 2^48 is below half of 2^s
    }
    var kept: u32;
    var rest: vec2<u32>;
    var half: vec2<u32>;
    if (s < 32u) {
        kept = (p.x >> s) | (p.y << (32u - s));
        rest = vec2(p.x & ((1u << s) - 1u), 0u);
        half = vec2(1u << (s - 1u), 0u);
    } else {
        kept = p.y >> (s - 32u);
        rest = vec2(p.x, p.y & ((1u << (s - 32u)) - 1u));
        half = select(vec2(0u, 1u << (s - 33u)), vec2(0x80000000u, 0u), s == 32u);
    }
    let above = (rest.y > half.y) | ((rest.y == half.y) & (rest.x > half.x));
    let tie = all(rest == half);
    return kept + u32(above | (tie & ((kept & 1u) == 1u)));
}

// The scalar f64 steps of the Compute interface in software, on (low, high) u32 pairs
// (shared/soft_f64.wgsl: correctly rounded): the same functions as compute/f64.wgsl, for
// adapters without SHADER_F64. Constants written {{F64 <decimal>}} become their bit pairs here.

alias F64 = U64;
alias Compute = vec4<u32>;
alias ComputeMask = vec4<bool>;

fn d_add(a: F64, b: F64) -> F64 {
    return f64_add(a, b);
}

fn d_sub(a: F64, b: F64) -> F64 {
    return f64_add(a, f64_negate(b));
}

fn d_mul(a: F64, b: F64) -> F64 {
    return f64_mul(a, b);
}

fn d_negate(a: F64) -> F64 {
    return f64_negate(a);
}

fn d_absolute(a: F64) -> F64 {
    return U64(a.x, a.y & 0x7fffffffu);
}

// 1 / b within 2^-20 relative, for a normal b whose reciprocal is normal: an f32 reciprocal
// of b's leading 20 bits, widened, its exponent field moved by b's exponent (0 where that
// underflows), b's sign. CPU twin: reciprocal_seed in src/cpu/compute.rs.
fn f64_reciprocal_seed(b: F64) -> F64 {
    let leading = bitcast<f32>(0x3f800000u | ((b.y & 0xfffffu) << 3u));
    let v = f64_from_f32_bits(bitcast<u32>(1.0 / leading));
    let biased = i32(v.y >> 20u) - (i32(f64_exponent(b)) - 1023);
    let sign = b.y & 0x80000000u;
    let seed = U64(v.x, (v.y & 0xfffffu) | ((u32(biased) & 0x7ffu) << 20u) | sign);
    return select(seed, U64(0u, sign), biased <= 0);
}

// a / b within about an ULP: a times the seed after two Newton steps (each squares the
// relative error, from 2^-20 to below 2^-53).
fn d_quotient(a: F64, b: F64) -> F64 {
    var y = f64_reciprocal_seed(b);
    for (var i = 0u; i < 2u; i++) {
        y = d_add(y, d_mul(y, d_sub(F64_ONE, d_mul(b, y))));
    }
    return d_mul(a, y);
}

fn d_less(a: F64, b: F64) -> bool {
    return f64_greater(b, a);
}

fn d_is_nan(a: F64) -> bool {
    return f64_is_nan(a);
}

fn d_floor_int(a: F64) -> i32 {
    return f64_floor_to_i32(a);
}

fn d_from_int(k: i32) -> F64 {
    return f64_from_i32(k);
}

// 2^k for -1022 <= k <= 1023, exactly, from its bits.
fn d_power_of_two(k: i32) -> F64 {
    return U64(0u, u32(k + 1023) << 20u);
}

fn d_from_f32(v: f32) -> F64 {
    return f64_from_f32_bits(bitcast<u32>(v));
}

// Integer arithmetic hides nothing a compiler could fold: the value itself.
fn d_opaque(a: F64) -> F64 {
    return a;
}

// Clip's bound from its f64 bits (low, high word): the software f64 is those bits.
fn d_from_bound(bits: vec2<u32>) -> F64 {
    return bits;
}

// An f64 attribute derived on the host, from its (low, high) bits.
fn d_from_bits(bits: vec2<u32>, nearest_f32: f32) -> F64 {
    return bits;
}

const F64_ONE: U64 = U64(0u, 0x3ff00000u);

// A key whose unsigned order is the order of the values (-0.0 just below +0.0).
fn f64_order_key(a: U64) -> U64 {
    return select(U64(a.x, a.y | 0x80000000u), U64(~a.x, ~a.y), f64_sign(a) == 1u);
}

// ONNX Greater: false when either is NaN; -0.0 equals +0.0. Branch-free: a shader compiler
// inlines it several times per kernel.
fn f64_greater(a: U64, b: U64) -> bool {
    let zeros = u64_is_zero(U64(a.x | b.x, (a.y | b.y) & 0x7fffffffu));
    return !(f64_is_nan(a) | f64_is_nan(b) | zeros) & u64_less(f64_order_key(b), f64_order_key(a));
}

fn d_greater(a: F64, b: F64) -> bool {
    return f64_greater(a, b);
}

fn compute_mask(first: bool, second: bool) -> ComputeMask {
    return pair_mask(first, second);
}

// a * b + c within an ULP, correctly rounded where it cancels: the product p = a * b and its
// exact rounding error e (f64_product_error), then (c + p) + e. Where e is zero (or not
// representable): c + p.
fn d_mul_add(a: F64, b: F64, c: F64) -> F64 {
    let p = f64_mul(a, b);
    let e = f64_product_error(a, b, p);
    let sum = f64_add(c, p);
    if (u64_is_zero(U64(e.x, e.y & 0x7fffffffu))) {
        return sum;
    }
    return f64_add(sum, e);
}

// The scalar f64 steps of the Compute interface, native (needs SHADER_F64): what
// compute/f64_lanes.wgsl and math/f64.wgsl are written on, shared with the software path
// (compute/f64_soft.wgsl defines the same functions on u32 pairs). Constants in those files are
// written {{F64 <decimal>}}, which the expansion (src/kernel.rs) turns into an f64 literal here.
//
// naga has no reliable bitcast between f64 and u32 pairs, so everything here is arithmetic;
// exp() on f64 compiles but is not valid SPIR-V for 64-bit floats (lavapipe returns 0.0).

alias F64 = f64;
alias Compute = vec2<f64>;
alias ComputeMask = vec2<bool>;

fn d_add(a: F64, b: F64) -> F64 {
    return a + b;
}

fn d_sub(a: F64, b: F64) -> F64 {
    return a - b;
}

fn d_mul(a: F64, b: F64) -> F64 {
    return a * b;
}

fn d_negate(a: F64) -> F64 {
    return -a;
}

fn d_absolute(a: F64) -> F64 {
    return abs(a);
}

// The device's division (WGSL allows 2.5 ULP; callers correct it with a residual).
fn d_quotient(a: F64, b: F64) -> F64 {
    return a / b;
}

// a < b; false when either is NaN.
fn d_less(a: F64, b: F64) -> bool {
    return a < b;
}

// Every other value is above -1 or below 1. (Not a != a: drivers may compile a float compare
// as if no value were NaN, and fold that one to false.)
fn d_is_nan(a: F64) -> bool {
    return !(a > -1.0 || a < 1.0);
}

// floor(a) for |a| < 2^31.
fn d_floor_int(a: F64) -> i32 {
    return i32(floor(a));
}

fn d_from_int(k: i32) -> F64 {
    return f64(k);
}

// 2^k for -1022 <= k <= 1023, exactly.
fn d_power_of_two(k: i32) -> F64 {
    return ldexp(f64(1.0), k);
}

// 2^k for -126 <= k <= 127, exactly: an f32 from its bits, widened (ldexp is a call per lane
// on some drivers; this is for the hot paths).
fn d_power_of_two_near(k: i32) -> F64 {
    return f64(bitcast<f32>(u32(k + 127) << 23u));
}

fn d_from_f32(v: f32) -> F64 {
    return f64(v);
}

// a, hidden from the compiler (times a 1 it cannot see: the driver's opaque_zero is 0), so that
// it cannot fold an expression with a into one without it (Veltkamp's split, math/f64.wgsl).
fn d_opaque(a: F64) -> F64 {
    return a * f64(bitcast<f32>(opaque_zero | 0x3f800000u));
}

// a, hidden from the compiler as a value it cannot see through (a select on opaque_zero),
// where d_opaque's product by 1 would be rewritten with the expression's algebra (Mesa's NIR
// did: Gelu's tail lost 60 ULPs on lavapipe).
fn d_hidden(a: F64) -> F64 {
    return select(a, D_MAX_FINITE, opaque_zero != 0u);
}

// An f64 attribute derived on the host, from its (low, high) bits: finite and normal, or its
// nearest f32 where it is not (0, infinite or NaN are f32 values exactly). Rebuilt from its
// fields, as naga has no reliable bitcast from a u32 pair to f64.
fn d_from_bits(bits: vec2<u32>, nearest_f32: f32) -> F64 {
    let biased = (bits.y >> 20u) & 0x7ffu;
    let significand = f64((bits.y & 0xfffffu) | 0x100000u) * 4294967296.0 + f64(bits.x);
    let magnitude = ldexp(significand, i32(biased) - 1075);
    let value = select(magnitude, -magnitude, (bits.y >> 31u) == 1u);
    return select(f64(nearest_f32), value, biased != 0u && biased != 0x7ffu);
}

// Clip's bound from its f64 bits (low, high word), exactly, every f64 (a subnormal one where
// the device keeps f64 subnormals): its significand as an integer (below 2^53, exact in f64)
// times 2^k, k = max(biased exponent, 1) - 1075, in [-1074, 971], as 2^r times (2^q)^8: q
// within f32's normal exponents, so that 2^q, 2^r and (2^q)^8 are exact, and the one product
// that could round is the bound itself. No branch and no ldexp: a CPU adapter runs both sides
// of a branch, and an ldexp lane by lane, for every element (Clip f64 on lavapipe fell from
// 0.96 to 0.87 of copy with ldexp).
fn d_from_bound(bits: vec2<u32>) -> F64 {
    let biased = (bits.y >> 20u) & 0x7ffu;
    let implicit = select(0u, 0x100000u, biased != 0u);
    let significand = f64((bits.y & 0xfffffu) | implicit) * 4294967296.0 + f64(bits.x);
    let k = i32(max(biased, 1u)) - 1075;
    let q = max(k >> 3u, -126);
    let power = f64(bitcast<f32>(u32(q + 127) << 23u));
    let squared = power * power;
    let fourth = squared * squared;
    let magnitude = significand * f64(bitcast<f32>(u32(k - 8 * q + 127) << 23u)) * (fourth * fourth);
    let special = f64(bitcast<f32>(select(0x7f800000u, 0x7fc00000u, ((bits.y & 0xfffffu) | bits.x) != 0u)));
    let value = select(magnitude, special, biased == 0x7ffu);
    return select(value, -value, (bits.y >> 31u) == 1u);
}

// ONNX Greater: false when either is NaN; -0.0 equals +0.0.
fn d_greater(a: F64, b: F64) -> bool {
    return a > b;
}

fn compute_mask(first: bool, second: bool) -> ComputeMask {
    return ComputeMask(first, second);
}

// 2^27 + 1: Veltkamp's splitter for 53-bit significands, and the largest magnitude it splits.
const D_SPLITTER: f64 = 134217729.0;
const D_SPLIT_LIMIT: f64 = 8.452712498170644e270; // 2^900
const D_MAX_FINITE: f64 = 1.7976931348623157e308;

// a's high half (Veltkamp): a multiple of a's ULP times 2^27 whose products with another high
// or low half are exact. d_opaque keeps the compiler from folding c - (c - a) into a, and from
// folding the split of a constant a (Gelu's 0.044715 sqrt(8/pi)): Mesa's NIR rewrote that one's
// product error inexactly, 2^-27 of the product off on lavapipe.
// The product c is hidden too: a driver that contracts a product into a sum would compute
// c - (c - a) from the product before its rounding, and the split is that rounding.
fn d_high_half(a: F64) -> F64 {
    let c = d_hidden(D_SPLITTER * d_opaque(a));
    return c - (d_opaque(c) - a);
}

// a * b + c within an ULP, correctly rounded where it cancels: Dekker's exact product p + e,
// then (c + p) + e (see compute/f32.wgsl's mul_add): WGSL's fma may round twice. Where a or b
// is beyond 2^900 (the split would overflow), infinite or NaN, where p overflows (e would be
// inf - inf), or where e is zero: c + p.
fn d_mul_add(a: F64, b: F64, c: F64) -> F64 {
    // Hidden, as compute/f32.wgsl's rounded_product: c + p contracted into a fused multiply-add
    // would count e twice.
    let p = d_hidden(a * b);
    if (!(abs(a) < D_SPLIT_LIMIT && abs(b) < D_SPLIT_LIMIT && abs(p) <= D_MAX_FINITE)) {
        return c + p;
    }
    let ah = d_high_half(a);
    let al = a - ah;
    let bh = d_high_half(b);
    let bl = b - bh;
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    return select((c + p) + e, c + p, e == 0.0);
}

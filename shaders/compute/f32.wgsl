// The Compute interface (shaders/README.md) of the representations that compute in f32 (f32,
// f16, bf16), four lanes at a time. Products come from compute/f32_products.wgsl, or from
// compute/f32_products_exact.wgsl on a device that flushes subnormals; a product's error from
// compute/f32_product_error.wgsl, or compute/f32_product_error_fused.wgsl where the device's
// fma rounds once; the accurate functions from math/f32.wgsl. CPU twin: src/cpu/compute.rs.
//
// Comparisons are decided on the bits (sign-magnitude mapped to a signed order), so a driver
// that assumes float compares never see a NaN cannot turn a NaN into true.

alias Compute = vec4<f32>;
alias ComputeMask = vec4<bool>;

fn from_attribute(a: f32) -> Compute {
    return Compute(a);
}

// An f64 attribute derived on the host: f32 arithmetic takes its nearest f32.
fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute {
    return Compute(nearest_f32);
}

// Clip's bound as an f32 `a` or as the bits of an f64 (shared/float_lanes.wgsl's
// lanes_from_bound): f32 arithmetic is never handed bits, and takes the f32.
fn from_bound(a: f32, bits: vec2<u32>) -> Compute {
    return Compute(a);
}

fn add(a: Compute, b: Compute) -> Compute {
    return a + b;
}

fn sub(a: Compute, b: Compute) -> Compute {
    return a - b;
}

fn negate(a: Compute) -> Compute {
    return bitcast<Compute>(bitcast<vec4<u32>>(a) ^ vec4(0x80000000u));
}

fn absolute(a: Compute) -> Compute {
    return bitcast<Compute>(bitcast<vec4<u32>>(a) & vec4(0x7fffffffu));
}

// The device's division: WGSL allows 2.5 ULP. Callers that need better correct it with a
// residual (math/f32.wgsl's reciprocal_of_one_plus_rounded).
fn quotient(a: Compute, b: Compute) -> Compute {
    return a / b;
}

fn pick(f: Compute, t: Compute, m: ComputeMask) -> Compute {
    return select(f, t, m);
}

fn f32_order(c: Compute) -> vec4<i32> {
    let bits = bitcast<vec4<i32>>(c);
    let magnitude = bits & vec4(0x7fffffff);
    return select(magnitude, -magnitude, bits < vec4(0));
}

fn f32_is_nan(c: Compute) -> vec4<bool> {
    return (bitcast<vec4<i32>>(c) & vec4(0x7fffffff)) > vec4(0x7f800000);
}

fn compute_is_nan(c: Compute) -> ComputeMask {
    return f32_is_nan(c);
}

// ONNX Greater: false when either side is NaN; -0.0 equals +0.0.
fn greater(a: Compute, b: Compute) -> ComputeMask {
    return (f32_order(a) > f32_order(b)) & !(f32_is_nan(a) | f32_is_nan(b));
}

// c > 0 for a number c, on the bits (one signed compare, where greater() takes eight): also
// true for a NaN with its sign bit clear, so only for callers whose NaN lanes are replaced.
fn is_positive_or_nan(c: Compute) -> ComputeMask {
    return bitcast<vec4<i32>>(c) > vec4(0);
}

// max(0, min(1, c)), ONNX's Max(Min(c, 1), 0), exactly: NaN stays NaN and -0.0 stays -0.0,
// whatever the device's min and max do with them (WGSL leaves both open).
fn clamp_to_unit(c: Compute) -> Compute {
    return select(clamp(c, Compute(0.0), Compute(1.0)), c, f32_is_nan(c) | (c == Compute(0.0)));
}

// c itself, its bits through opaque_zero (0; driver/elementwise.wgsl), so that a compiler
// cannot rewrite an expression with c by the algebra of real numbers.
fn hidden(c: Compute) -> Compute {
    return bitcast<Compute>(bitcast<vec4<u32>>(c) ^ vec4(opaque_zero));
}

// a * b rounded, where a sum takes the product's error back (product_error): hidden, so that
// no driver can contract the product into the sum as one fused multiply-add (SPIR-V without
// NoContraction, which naga never writes, allows it), which would count the error twice.
fn rounded_product(a: Compute, b: Compute) -> Compute {
    return hidden(a * b);
}

// a * b + c within an ULP, and correctly rounded where it cancels (c close to -a * b, a
// residual). a * b = p + e exactly (product_error), then c + p, exact where it cancels,
// then + e rounds once. WGSL's fma may round twice (lavapipe's does), and compilers may fuse
// or split a * b + c, so the exact product is spelled out, p hidden (rounded_product), the
// same steps whichever product_error the device takes. Where c
// is zero and p is not, the product itself is the result (a device that flushes subnormal
// operands would drop a subnormal p in c + p; zeros add as IEEE says, -0 + 0 = +0); where p is
// infinite (or NaN), or e is zero, c + p.
fn mul_add(a: Compute, b: Compute, c: Compute) -> Compute {
    let p = hidden(mul(a, b));
    let e = product_error(a, b, p);
    let finite = (bitcast<vec4<i32>>(p) & vec4(0x7fffffff)) < vec4(0x7f800000);
    return select(select(c + p, (c + p) + e, finite & (e != Compute(0.0))), p, (c == Compute(0.0)) & (p != Compute(0.0)));
}


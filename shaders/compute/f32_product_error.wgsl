// The rounding error of a product, for compute/f32.wgsl, where the device's fma may round twice
// (WGSL allows it; lavapipe's does). CPU twin: `product_error` in src/cpu/compute.rs.

// a with its low 12 significand bits cleared: a's high half, whose products with another
// half are exact. Built on the bits, so no compiler can fold it away.
fn f32_high_half(a: Compute) -> Compute {
    return bitcast<Compute>(bitcast<vec4<u32>>(a) & vec4(0xfffff000u));
}

// The rounding error of p = a * b: a * b = p + e exactly (Dekker: the halves' products are
// exact, and so is each step summing them, for operands whose product is normal).
fn product_error(a: Compute, b: Compute, p: Compute) -> Compute {
    let ah = f32_high_half(a);
    let al = a - ah;
    let bh = f32_high_half(b);
    let bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// 1 - a b rounded once, for a b within a factor of two of 1 (a reciprocal's residual): math's
// residual, by Dekker's steps here.
fn residual_of_one(a: Compute, b: Compute) -> Compute {
    return residual(Compute(1.0), a, b);
}

// The rounding error of a product, for compute/f32.wgsl, where the context's probe found the
// device's fma rounding once (src/engine/probe.rs): a * b - p computed exactly and rounded once,
// which is the error itself wherever Dekker's steps (compute/f32_product_error.wgsl) give it
// exactly, so the kernels' results are the same bits, for 2 steps where Dekker's takes 17.
// CPU twin: `product_error_fused` in src/cpu/compute.rs.

fn product_error(a: Compute, b: Compute, p: Compute) -> Compute {
    return fma(a, b, -p);
}

// 1 - a b rounded once, for a b within a factor of two of 1 (a reciprocal's residual): the fma
// rounds the exact 1 - a b once, as math's residual does (1 - p exact, p's error exact, one
// rounding), so the same bits in 1 step for 4. No value here is subnormal or special (a b lies in
// [1/2, 2]), so a device that flushes flushes nothing.
fn residual_of_one(a: Compute, b: Compute) -> Compute {
    return fma(-a, b, Compute(1.0));
}

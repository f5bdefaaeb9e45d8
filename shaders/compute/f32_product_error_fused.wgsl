// The rounding error of a product, for compute/f32.wgsl, where the context's probe found the
// device's fma rounding once (src/engine/probe.rs): a * b - p computed exactly and rounded once,
// which is the error itself wherever Dekker's steps (compute/f32_product_error.wgsl) give it
// exactly, so the kernels' results are the same bits, for 2 steps where Dekker's takes 17.
// CPU twin: `product_error_fused` in src/cpu/compute.rs.

fn product_error(a: Compute, b: Compute, p: Compute) -> Compute {
    return fma(a, b, -p);
}

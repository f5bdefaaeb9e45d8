// The products of compute/f32.wgsl on a device whose float unit flushes subnormals, first of
// two passes (src/engine/dispatch.rs): the hardware's product, and a flag where it may be
// wrong (compute/f32_product_flag.wgsl), which sets `needs_exact` for the Vector being
// computed. The driver then leaves that Vector unwritten and marks it (driver/marks.wgsl), and
// the second pass computes the marked Vectors again with compute/f32_products_exact.wgsl:
// every element pays for the check, only the rare one for the integers. CPU twin:
// src/cpu/compute_f32_products_flagged.rs.

// Lanes of the Vector being computed with a product that may be wrong; the driver resets it
// per Vector and asks any() once.
var<private> needs_exact: vec4<bool>;

fn mul(a: Compute, b: Compute) -> Compute {
    let product = a * b;
    needs_exact = needs_exact | product_may_be_wrong(a, b, product);
    return product;
}

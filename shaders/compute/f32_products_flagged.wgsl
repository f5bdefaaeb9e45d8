// The products of compute/f32.wgsl on a device whose float unit flushes subnormals, first of
// two passes (src/engine/dispatch.rs): the hardware's product, and a flag where it may be
// wrong (compute/f32_product_flag.wgsl), which sets `needs_exact` for the Vector being
// computed. The driver then leaves that Vector unwritten and marks it (driver/marks.wgsl), and
// the second pass computes the marked Vectors again with compute/f32_products_exact.wgsl:
// every element pays for the check, only the rare one for the integers. CPU twin:
// src/cpu/compute_f32_products_flagged.rs.

// Whether a product of the Vector being computed may be wrong; the driver resets it per
// Vector. One bool, not one per lane: on SwiftShader every update of a private vec4<bool> cost
// about what the check itself does (2^22 f32, two-pass speed as a share of the hardware-products
// kernel's, alternating runs: LeakyRelu 0.71-0.78 -> 0.88, Elu 0.76 -> 0.88, Swish's general
// kernel 0.48 -> 0.88-0.94).
var<private> needs_exact: bool;

fn mul(a: Compute, b: Compute) -> Compute {
    let product = a * b;
    needs_exact = needs_exact | any(product_may_be_wrong(a, b, product));
    return product;
}

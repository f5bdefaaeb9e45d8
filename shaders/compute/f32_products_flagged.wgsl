// The products of compute/f32.wgsl on a device whose float unit flushes subnormals, first of
// two passes (src/engine/dispatch.rs): the hardware's product, and a flag where it may be
// wrong. A flushing unit errs only by giving a zero (a subnormal operand read as zero, or a
// subnormal result flushed) or a NaN (infinity times a subnormal read as zero) where both
// operands are nonzero, so such a product sets `needs_exact` for the Vector being computed.
// The driver then leaves that Vector unwritten and marks it (driver/marks.wgsl), and the
// second pass computes the marked Vectors again with compute/f32_products_exact.wgsl: every
// element pays for the check, only the rare one for the integers. CPU twin:
// src/cpu/compute_f32_products_flagged.rs.

// Lanes of the Vector being computed with a product that may be wrong; the driver resets it
// per Vector and asks any() once.
var<private> needs_exact: vec4<bool>;

fn mul(a: Compute, b: Compute) -> Compute {
    let product = a * b;
    let magnitude = bitcast<vec4<u32>>(product) & vec4(0x7fffffffu);
    let operands = min(bitcast<vec4<u32>>(a) & vec4(0x7fffffffu), bitcast<vec4<u32>>(b) & vec4(0x7fffffffu));
    // magnitude - 1 wraps for a zero: one comparison finds zeros and NaNs.
    needs_exact = needs_exact | ((operands != vec4(0u)) & (magnitude - vec4(1u) >= vec4(0x7f800000u)));
    return product;
}

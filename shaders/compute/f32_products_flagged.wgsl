// The products of compute/f32.wgsl on a device whose float unit flushes subnormals, first of
// two passes (src/engine/dispatch.rs): the hardware's product, and a flag where it may be
// wrong. A flushing unit errs only where an operand is subnormal (read as zero, or infinity
// times it as a NaN) or where the result is (flushed to zero), so a product with a subnormal
// operand, or a zero from two nonzero operands, sets `needs_exact` for the Vector being
// computed. The driver then leaves that Vector unwritten and marks it (driver/marks.wgsl), and
// the second pass computes the marked Vectors again with compute/f32_products_exact.wgsl:
// every element pays for the check, only the rare one for the integers. CPU twin:
// src/cpu/compute_f32_products_flagged.rs.

// Lanes of the Vector being computed with a product that may be wrong; the driver resets it
// per Vector and asks any() once.
var<private> needs_exact: vec4<bool>;

fn mul(a: Compute, b: Compute) -> Compute {
    let product = a * b;
    // The smaller magnitude, signed (it is below 2^31): SwiftShader's JIT has no unsigned
    // compare or min. The zero test is the float unit's: -0.0 and a flushed result are zeros,
    // a NaN is not, whatever a compiler assumes of NaNs (a NaN product has a NaN operand or an
    // infinite one, which the IEEE product shares, or a subnormal one, flagged anyway). On
    // SwiftShader (2^22, ratios to the copy kernel), against testing the product's bits for a
    // zero or a NaN: LeakyRelu f32 0.486 instead of 0.461, Elu 0.300 instead of 0.290 (with the
    // float unit's products, 0.643 and 0.366).
    let smaller = min(bitcast<vec4<i32>>(a) & vec4(0x7fffffff), bitcast<vec4<i32>>(b) & vec4(0x7fffffff));
    needs_exact = needs_exact | ((smaller > vec4(0)) & ((product == Compute(0.0)) | (smaller < vec4(0x00800000))));
    return product;
}

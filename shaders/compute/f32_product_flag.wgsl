// Where a float unit that flushes subnormals may have got a product wrong: only where an operand
// is subnormal (read as zero, or infinity times it as a NaN) or where the result is (flushed to
// zero), so the lanes with a subnormal operand, or a zero from two nonzero operands. Where it
// stays down, the float unit's product is IEEE's on any unit, flushing or not. The first pass's
// products (f32_products_flagged.wgsl) raise it for the second pass, the exact products
// (f32_products_exact.wgsl) take the integers only behind it. CPU twin: `needs_exact` in
// src/cpu/compute_f32_product_flag.rs, whose tests show the claim on units that flush
// operands, results or both.
fn product_may_be_wrong(a: Compute, b: Compute, product: Compute) -> vec4<bool> {
    // The smaller magnitude, signed (it is below 2^31): SwiftShader's JIT has no unsigned
    // compare or min. The zero test is the float unit's: -0.0 and a flushed result are zeros,
    // a NaN is not, whatever a compiler assumes of NaNs (a NaN product has a NaN operand or an
    // infinite one, which the IEEE product shares, or a subnormal one, flagged anyway). On
    // SwiftShader (2^22, ratios to the copy kernel), against testing the product's bits for a
    // zero or a NaN: LeakyRelu f32 0.486 instead of 0.461, Elu 0.300 instead of 0.290 (with the
    // float unit's products, 0.643 and 0.366).
    let smaller = min(bitcast<vec4<i32>>(a) & vec4(0x7fffffff), bitcast<vec4<i32>>(b) & vec4(0x7fffffff));
    return (smaller > vec4(0)) & ((product == Compute(0.0)) | (smaller < vec4(0x00800000)));
}

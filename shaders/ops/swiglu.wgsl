// SwiGLU (ONNX 28): Y = Swish_alpha(X) * B, the chain's value X as SwiGLU's A and B a tensor of
// X's shape, gathered as a PRelu slope of X's shape is (prelu_slope.wgsl's slope_same): a chain
// step, and SwiGLU's kernel alone. gated_product: math/f32.wgsl's within 4 ULP on f32, 1 ULP on
// the 16-bit types; f64's recorded from src/cpu/gated_f64.rs, within 4 ULP. alpha (attributes.x)
// is the FLOAT attribute as it is. alpha 1 (the default) has a kernel of its own,
// swiglu_alpha_one (GatedOp::kernel_variant), on math's self_gated_product: alpha A is then A
// itself, exact. Where the device flushes subnormals, the step runs the functions' `_plain`
// copies where A and the float unit's A B lie in its plain range (`in_gated_plain_range`,
// compute/f32_products_guarded.wgsl; A's range from alpha in the attributes' last two slots,
// src/ops/plain_products.rs). CPU twin: src/cpu/gated.rs.

fn swiglu(x: Lanes, b: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(gated_product(to_compute(x), to_compute(b), from_attribute(attributes.x)));
}

fn swiglu_alpha_one(x: Lanes, b: Lanes, attributes: vec4<f32>) -> Lanes {
    return from_compute(self_gated_product(to_compute(x), to_compute(b)));
}

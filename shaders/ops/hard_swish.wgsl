// HardSwish (ONNX opsets 14, 22): Y = Mul(X, HardSigmoid<alpha = 0.16666667, beta = 0.5>(X)),
// the function body, on whole Lanes: the HardSigmoid as hard_sigmoid.wgsl computes it (mul_add,
// clamp_to_unit), times X, rounded once more; NaN comes back as X itself, -inf gives NaN (-inf x
// 0, as the body does). CPU twin: src/ops/hard_swish.rs.

// The body's alpha, the f32 nearest 1/6 (0x3e2aaaab).
const HARD_SWISH_ALPHA: f32 = 0.16666667;

fn hard_swish(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let gate = clamp_to_unit(mul_add(c, from_attribute(HARD_SWISH_ALPHA), from_attribute(0.5)));
    return select(from_compute(mul(c, gate)), x, is_nan(x));
}

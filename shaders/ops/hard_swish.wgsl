// HardSwish (ONNX opsets 14, 22): Y = Mul(X, HardSigmoid<alpha = 0.16666667, beta = 0.5>(X)),
// the function body, on whole Lanes: the gate from math's hard_swish_gate (in f32 a shortcut
// exact where the gate cancels, in f64 mul_add), times X, rounded once more; NaN comes back as X
// itself, -inf gives NaN (-inf x 0, as the body does). CPU twin: src/ops/hard_swish.rs.

fn hard_swish(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let gate = hard_swish_gate(c);
    return select(from_compute(mul(c, gate)), x, is_nan(x));
}

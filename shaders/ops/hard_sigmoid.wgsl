// HardSigmoid (ONNX opsets 1, 6, 22): Y = Max(Min(alpha * X + beta, 1), 0), on whole Lanes:
// alpha * X + beta rounded once (mul_add: within an ULP, correctly rounded where it cancels,
// so a result near 0 keeps its digits), clamped to [0, 1]; NaN comes back as X itself.
// attributes.x is alpha, attributes.y beta, as f32 values (as ONNX Runtime's kernels take them),
// but for an infinite beta, whose line is beta wherever X is finite: alpha * X could overflow
// the compute type (a bf16 or f32 X near its largest times an alpha above 1) into inf - inf, so
// the host passes an alpha of magnitude 2^-126 with alpha's sign instead (src/ops/hard_sigmoid.rs).
// CPU twin: src/ops/hard_sigmoid.rs.

fn hard_sigmoid(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let line = mul_add(to_compute(x), from_attribute(attributes.x), from_attribute(attributes.y));
    return select(from_compute(clamp_to_unit(line)), x, is_nan(x));
}

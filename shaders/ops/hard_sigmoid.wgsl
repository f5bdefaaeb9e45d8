// HardSigmoid (ONNX opsets 1, 6, 22): Y = Max(Min(alpha * X + beta, 1), 0), on whole Lanes:
// alpha * X + beta rounded once (mul_add: within an ULP, correctly rounded where it cancels,
// so a result near 0 keeps its digits), clamped to [0, 1]; NaN comes back as X itself.
// attributes.x is alpha, attributes.y beta, as f32 values (as ONNX Runtime's kernels take them).
// An infinite beta is the line wherever X and alpha are finite: alpha * X may overflow the
// compute type (a bf16 or f32 X near its largest times an alpha above 1), but the real product
// is finite, and inf - inf must not come of it. attributes.z, derived on the host, is +inf in
// that case (else 0): |X| below it takes beta. CPU twin: src/ops/hard_sigmoid.rs.

fn hard_sigmoid(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let beta = from_attribute(attributes.y);
    let line = mul_add(c, from_attribute(attributes.x), beta);
    let line_or_beta = pick(line, beta, greater(from_attribute(attributes.z), absolute(c)));
    return select(from_compute(clamp_to_unit(line_or_beta)), x, is_nan(x));
}

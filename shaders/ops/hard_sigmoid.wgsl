// HardSigmoid (ONNX opsets 1, 6, 22): Y = Max(Min(alpha * X + beta, 1), 0), on whole Lanes:
// alpha * X + beta rounded once (mul_add: within an ULP, correctly rounded where it cancels,
// so a result near 0 keeps its digits), clamped to [0, 1]; NaN comes back as X itself.
// attributes.x is alpha, attributes.y beta, as f32 values (as ONNX Runtime's kernels take them),
// but for an infinite beta, whose line is beta wherever X is finite: alpha * X could overflow
// the compute type (a bf16 or f32 X near its largest times an alpha above 1) into inf - inf, so
// the host passes an alpha of magnitude 2^-126 with alpha's sign instead (src/ops/hard_sigmoid.rs).
// The lines listed in src/ops/hard_sigmoid.rs (ONNX's defaults, PyTorch's 1/6 and 1/2) have a
// kernel of their own, hard_sigmoid_through_zero (UnaryOp::kernel_variant): math's line through
// its zero, attributes.z the f32 nearest it and attributes.w the line's value there, from the
// host; within 1 ULP too, at the body's cost. CPU twin: src/ops/hard_sigmoid.rs.

fn hard_sigmoid(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let line = mul_add(to_compute(x), from_attribute(attributes.x), from_attribute(attributes.y));
    return select(from_compute(clamp_to_unit(line)), x, is_nan(x));
}

fn hard_sigmoid_through_zero(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let line = clamped_line_through_zero(to_compute(x), from_attribute(attributes.x), from_attribute(attributes.y),
        from_attribute(attributes.z), from_attribute(attributes.w));
    return select(from_compute(line), x, is_nan(x));
}

// ThresholdedRelu (ONNX opsets 10, 22): Y = Where(Less(CastLike(alpha, X), X), X, 0), on whole
// Lanes: X itself (bit for bit) where it exceeds alpha rounded to X's dtype, +0.0 elsewhere,
// NaN included (Less is false for NaN). attributes.x is alpha, cast like X by the host
// (UnaryOp::parameter_block), so exact in Compute.
// CPU twin: src/ops/thresholded_relu.rs.

fn thresholded_relu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let zero = from_compute(from_attribute(0.0));
    let alpha = from_attribute(attributes.x);
    return select(zero, x, greater(to_compute(x), alpha));
}

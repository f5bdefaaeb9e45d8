// Shrink (ONNX opset 9): its function body, Where(Less(X, Neg(lambd)), Add(X, bias),
// Where(Less(lambd, X), Sub(X, bias), 0)), on whole Lanes: 0 for NaN. lambd and bias are cast
// like X first (attributes.x lambd, attributes.y bias); the comparisons are exact in the Compute
// type, and the sum is rounded once there (subnormal sums included where the device flushes them)
// and then to X's type (f16: twice, within 1 ULP).
// CPU twin: src/ops/shrink.rs.

fn shrink(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let lambd = to_compute(from_compute(from_attribute(attributes.x)));
    let bias = to_compute(from_compute(from_attribute(attributes.y)));
    let above = from_compute(add_keeping_subnormals(c, negate(bias)));
    let outside = select(from_compute(from_attribute(0.0)), above, greater(c, lambd));
    return select(outside, from_compute(add_keeping_subnormals(c, bias)), greater(negate(lambd), c));
}

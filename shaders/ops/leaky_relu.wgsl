// LeakyRelu (ONNX opsets 1, 6, 16): Y = Where(X < 0, alpha * X, X), on whole Lanes.
// attributes.x is alpha. Written against the interfaces of shaders/README.md;
// CPU twin: src/ops/leaky_relu.rs.

fn leaky_relu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(x, from_compute(mul(to_compute(x), from_attribute(attributes.x))), is_negative(x));
}

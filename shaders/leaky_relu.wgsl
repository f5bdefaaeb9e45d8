// LeakyRelu (ONNX opsets 1, 6, 16): Y = Where(X < 0, alpha * X, X).
// Written against the dtype interface (shared/dtype_*.wgsl); alpha arrives from a uniform.

fn leaky_relu(b: Bits, alpha: f32) -> Bits {
    if (!is_negative(b)) {
        return b;
    }
    return from_compute(Compute(alpha) * to_compute(b));
}

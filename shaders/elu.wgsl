// Elu (ONNX opsets 1, 6, 22): Y = Where(X < 0, alpha * (exp(X) - 1), X), with exp(X) - 1
// computed by an accurate expm1 (shared/expm1_*.wgsl); alpha arrives from a uniform.

fn elu(b: Bits, alpha: f32) -> Bits {
    if (!is_negative(b)) {
        return b;
    }
    return from_compute(Compute(alpha) * expm1_compute(to_compute(b)));
}

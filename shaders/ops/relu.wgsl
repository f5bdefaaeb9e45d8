// Relu (ONNX opsets 1, 6, 13, 14): Y = Max(X, 0) (the opset-14 function body), on whole Lanes,
// decided on the bits: X itself where it is above 0 or NaN (bit for bit), +0.0 or 0 elsewhere,
// -0.0 included (IEEE 754-2019's maximum, and numpy's, which ONNX's reference runs: +0 > -0).
// Every dtype: the floats and, from opset 14, int8, int16, int32, int64. CPU twin: src/ops/relu.rs.

fn relu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(x, Lanes(), is_negative(x) | is_zero(x));
}

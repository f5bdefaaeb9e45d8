// Tanh (ONNX opsets 1, 6, 13): Y = tanh(X), on whole Lanes, from math's hyperbolic_tangent
// (math/f32.wgsl, math/f64.wgsl: -expm1(-2|x|) / (1 + e^-2|x|) by our own exp and a
// residual-corrected reciprocal, x itself near 0): within 2 ULP on f32 and f64, +-1 for +-inf
// and large inputs (never NaN: WGSL's tanh overflows into NaN on some drivers); NaN comes back
// as X itself, -0.0 as -0.0. CPU twin: src/ops/tanh.rs.

fn tanh(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(hyperbolic_tangent(to_compute(x))), x, is_nan(x));
}

// Softsign (ONNX opsets 1, 22): Y = X / (1 + |X|), the function body, on whole Lanes, from
// math/f32.wgsl's and math/f64.wgsl's softsign_quotient (the device's quotient corrected by its
// residual: within 1 ULP whatever WGSL's 2.5-ULP division does); NaN comes back as X itself,
// -0.0 as -0.0. CPU twin: src/ops/softsign.rs.

fn softsign(x: Lanes, attributes: vec4<f32>) -> Lanes {
    return select(from_compute(softsign_quotient(to_compute(x))), x, is_nan(x));
}

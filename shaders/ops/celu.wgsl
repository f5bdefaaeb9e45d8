// Celu (ONNX opsets 12, 28): Y = alpha * Elu(X / alpha) (the opset-28 function body), on whole
// Lanes. For a finite nonzero alpha that is alpha * expm1(X / alpha) where X / alpha < 0 (the
// representation's expm1_of_quotient_product, math/f32.wgsl and math/f64.wgsl), and X itself
// elsewhere (alpha * (X / alpha) is X exactly), bit for bit. X / alpha is X times 1 / alpha,
// which the host derives in f64: attributes.y and .z hold its bits (low, high word),
// attributes.w its nearest f32. A quotient above -2^-100 leaves X as it is: there expm1(q) / q
// rounds to 1 in every dtype. Where alpha is 0, infinite or NaN the body is followed literally,
// which gives NaN or a signed zero. CPU twin: src/ops/celu.rs.

fn celu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let bits = vec2(bitcast<u32>(attributes.y), bitcast<u32>(attributes.z));
    let alpha = from_attribute(attributes.x);
    let reciprocal = from_f64_attribute(bits, attributes.w);
    let quotient = mul(to_compute(x), reciprocal);
    // Finite and nonzero: the magnitude's bits minus one lie below those of f32::MAX.
    let ordinary = (bitcast<u32>(attributes.x) & 0x7fffffffu) - 1u < 0x7f7fffffu;
    let below = greater(from_attribute(select(0.0, -0x1p-100f, ordinary)), quotient);
    let negative_side = expm1_of_quotient_product(to_compute(x), quotient, alpha, reciprocal);
    let y = from_compute(select(mul(alpha, quotient), negative_side, below));
    return select(y, x, Mask(ordinary) & !below);
}

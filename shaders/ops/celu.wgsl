// Celu (ONNX opsets 12, 28): Y = alpha * Elu(X / alpha) (the opset-28 function body), on whole
// Lanes. For a finite nonzero alpha that is alpha * expm1(X / alpha) where X / alpha < 0, and X
// itself elsewhere (alpha * (X / alpha) is X exactly), bit for bit. X / alpha is X times
// 1 / alpha, which the host hands over as the sum of three f32 (attributes.y + .z + .w: the f64
// reciprocal exactly). A quotient above -2^-100 leaves X as it is: there expm1(q) / q rounds to
// 1 in every dtype. Where alpha is 0, infinite or NaN the body is followed literally, which gives
// NaN or a signed zero. CPU twin: src/cpu/celu.rs.

fn celu(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let c = to_compute(x);
    let alpha = from_attribute(attributes.x);
    let small_parts = add(mul(c, from_attribute(attributes.w)), mul(c, from_attribute(attributes.z)));
    let main_part = mul(c, from_attribute(attributes.y));
    // Beyond f32::MAX the small parts change nothing that follows, and for an infinite X they
    // are infinity times zero.
    let moderate = greater(main_part, from_attribute(-3.40282347e38)) & greater(from_attribute(3.40282347e38), main_part);
    let quotient = select(main_part, add(small_parts, main_part), moderate);
    let negative = from_compute(mul(alpha, expm1(quotient)));
    let literal = from_compute(mul(alpha, quotient));
    // Finite and nonzero: the magnitude's bits minus one lie below those of f32::MAX.
    let ordinary = (bitcast<u32>(attributes.x) & 0x7fffffffu) - 1u < 0x7f7fffffu;
    let threshold = select(0.0, -0x1p-100f, ordinary);
    let below = greater(from_attribute(threshold), quotient);
    return select(select(literal, x, ordinary), negative, below);
}

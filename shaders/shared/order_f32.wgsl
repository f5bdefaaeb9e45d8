// Comparison, addition and f64 attributes for the representations that compute in f32 (f32, f16, bf16), with
// either shared/compute_f32.wgsl or shared/compute_f32_exact.wgsl.
//
// greater is ONNX's Greater: false when either side is NaN, and -0.0 equals +0.0. It is decided
// on the bits (sign-magnitude mapped to a signed order), so a driver that assumes float
// compares never see a NaN cannot turn a NaN into true.

fn f32_order(c: Compute) -> vec4<i32> {
    let magnitude = bitcast<vec4<i32>>(bitcast<vec4<u32>>(c) & vec4(0x7fffffffu));
    return select(magnitude, -magnitude, bitcast<vec4<u32>>(c) >= vec4(0x80000000u));
}

fn f32_is_nan(c: Compute) -> vec4<bool> {
    return (bitcast<vec4<u32>>(c) & vec4(0x7fffffffu)) > vec4(0x7f800000u);
}

fn greater(a: Compute, b: Compute) -> vec4<bool> {
    return (f32_order(a) > f32_order(b)) & !(f32_is_nan(a) | f32_is_nan(b));
}

fn add(a: Compute, b: Compute) -> Compute {
    return a + b;
}

// An f64 attribute derived on the host: f32 arithmetic takes its nearest f32.
fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute {
    return Compute(nearest_f32);
}

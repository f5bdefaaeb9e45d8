// The arithmetic of the float representations that compute in f32 (f32, f16, bf16): four
// lanes at a time. Attributes are f32 already, so from_attribute is exact. expm1 comes from
// shared/expm1_f32.wgsl (f32) or shared/expm1_half.wgsl (f16, bf16).

alias Compute = vec4<f32>;

fn from_attribute(a: f32) -> Compute {
    return Compute(a);
}

fn mul(a: Compute, b: Compute) -> Compute {
    return a * b;
}

// SwiGLU (ONNX 28): Y = Swish_alpha(A) * B = (A B) sigmoid(alpha A), for A and B of one shape, in
// the f32 arithmetic (compute/f32.wgsl, math/f32.wgsl) for f32, f16 and bf16 elements: A B
// rounded once (exact for the 16-bit types; where it overflows, (A 2^-64)(B 2^-64), the 2^128
// returned in math's final scaling), then math's logistic_of_sum_product, which takes alpha A with its product's
// error and rounds the product with the sigmoid once (subnormal results included, also where
// the device flushes): within 4 ULP of the correctly rounded f32 result (3 ULP of the function
// and half an ULP of A B), 1 ULP for the 16-bit types. An invocation takes four consecutive
// elements. CPU twin: src/cpu/gated.rs.
//
// Placeholders, filled by src/kernel/gated.rs: {{WORKGROUP}}; {{INPUT_ACCESS}}, A's and B's access:
// read, or read_write where either shares a buffer with Y (as in driver/axis.wgsl); driver/axis_io_*.wgsl defines
// load (A, binding x) and load_b (B, binding w), driver/gated_store_*.wgsl store4.

const GATED_WORKGROUP: u32 = {{WORKGROUP}}u;

struct GatedParams {
    len: u32,
    groups_x: u32,
    // 0, read once per invocation into opaque_zero (compute/f32.wgsl's hidden()).
    zero: u32,
    alpha: f32,
}

@group(0) @binding(0) var<uniform> params: GatedParams;
@group(0) @binding(1) var<storage, {{INPUT_ACCESS}}> x: array<u32>;
@group(0) @binding(2) var<storage, {{INPUT_ACCESS}}> w: array<u32>;
@group(0) @binding(3) var<storage, read_write> y: array<u32>;

var<private> opaque_zero: u32;

@compute @workgroup_size(GATED_WORKGROUP)
fn gated(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    opaque_zero = params.zero;
    let first = ((group.y * params.groups_x + group.x) * GATED_WORKGROUP + local) * 4u;
    if first >= params.len {
        return;
    }
    let i = vec4(first) + vec4(0u, 1u, 2u, 3u);
    let live = i < vec4(params.len);
    let a = load(i, live);
    let b = load_b(i, live);
    let alpha = Compute(params.alpha);
    let t = mul(alpha, a);
    let error = product_error(alpha, a, t);
    let exponent = vec4(0x7f800000u);
    let finite = ((bitcast<vec4<u32>>(a) & exponent) != exponent) & ((bitcast<vec4<u32>>(b) & exponent) != exponent);
    let product = mul(a, b);
    let infinite = (bitcast<vec4<u32>>(product) & vec4(0x7fffffffu)) == exponent;
    let overflowed = infinite & finite;
    // (A 2^-64)(B 2^-64) is exact but for its one rounding (where A B overflows, neither factor is
    // below 2^-62), below 2^128 for every f32 A and B; the 2^128 returns in the final scaling.
    let x = select(product, mul(a * 5.421010862427522e-20, b * 5.421010862427522e-20), overflowed);
    var result = logistic_of_scaled_sum_product(x, t, error, select(Compute(0.0), Compute(128.0), overflowed));
    // What math's function leaves to Swish, where x is a x: an infinite A B times a sigmoid
    // above 0 (t finite or +inf) is A B, times sigmoid(-inf) = 0 it is NaN; a NaN A B (inf 0, or
    // a NaN B) is NaN.
    let minus_infinity = f32_order(t) == vec4(-0x7f800000);
    result = select(result, product, infinite & !finite & !minus_infinity & !f32_is_nan(t));
    result = select(result, bitcast<Compute>(vec4(0x7fc00000u | opaque_zero)), infinite & !finite & minus_infinity);
    result = select(result, product, f32_is_nan(product));
    store4(first, result, live);
}

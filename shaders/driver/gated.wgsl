// SwiGLU (ONNX 28): Y = Swish_alpha(A) * B = (A B) sigmoid(alpha A), for A and B of one shape, in
// the f32 arithmetic (compute/f32.wgsl, math/f32.wgsl's gated_product) for f32, f16 and bf16
// elements. An invocation takes four consecutive elements. The same math runs as a chain step
// (ops/swiglu.wgsl). CPU twin: src/cpu/gated.rs.
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
    let result = gated_product(a, b, Compute(params.alpha));
    store4(first, result, live);
}

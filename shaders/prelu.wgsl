// PRelu (ONNX opsets 1, 6, 7, 9, 16): Y = Where(X < 0, slope * X, X), slope broadcast to X.
//
// The host collapses X's dims into runs with the same broadcast pattern (src/broadcast.rs), so
// most calls take a short index path. Placeholder, filled when the pipeline is first built:
//   {{SLOPE_INDEX}}  body of `slope_index(i)`, one of the index paths listed in
//                    src/shader.rs (SlopeIndex). Dims and strides come from `params`.

const WORKGROUP_SIZE: u32 = 256u;
const MAX_RANK: u32 = 16u;

struct PreluParams {
    // X elements in this dispatch.
    elements: u32,
    // Flat index in X of this dispatch's first element.
    base: u32,
    // Collapsed rank (general path).
    rank: u32,
    // Flat slope index of the first element of the bound slope window.
    slope_base: u32,
    // Collapsed X dims, innermost last; dims[d / 4][d % 4].
    dims: array<vec4<u32>, 4>,
    // Slope stride of each collapsed dim, 0 where the slope is broadcast.
    slope_strides: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<uniform> params: PreluParams;
@group(0) @binding(1) var<storage, read> x: array<Word>;
@group(0) @binding(2) var<storage, read> slope: array<Word>;
@group(0) @binding(3) var<storage, read_write> y: array<Word>;

fn dim(d: u32) -> u32 {
    return params.dims[d / 4u][d % 4u];
}

fn slope_stride(d: u32) -> u32 {
    return params.slope_strides[d / 4u][d % 4u];
}

// Flat slope index for flat X index i.
fn slope_index(i: u32) -> u32 {
{{SLOPE_INDEX}}
}

fn prelu(b: Bits, s: Bits) -> Bits {
    if (!is_negative(b)) {
        return b;
    }
    return multiply(b, s);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let word = (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
    if (word * LANES >= params.elements) {
        return;
    }
    var w = x[word];
    for (var lane = 0u; lane < LANES; lane++) {
        let element = word * LANES + lane;
        if (element < params.elements) {
            let s = slope_index(params.base + element) - params.slope_base;
            let sb = word_lane(slope[s / LANES], s % LANES);
            w = with_lane(w, lane, prelu(word_lane(w, lane), sb));
        }
    }
    y[word] = w;
}

// Elementwise kernel driver: applies a chain of unary activations (LeakyRelu, Elu) to each
// element in one pass, so a chain costs one read and one write of the tensor.
//
// Placeholders, filled when the pipeline is first built (src/shader.rs):
//   {{CHAIN}}  one statement per op, e.g. `b = elu(b, op_alpha(0u));`. Only the sequence of
//              op kinds is shader text; every alpha comes from `params.alpha`.
//
// One invocation handles one Word (LANES elements). The grid is 2-D because one dispatch
// dimension holds at most 65535 workgroups.

const WORKGROUP_SIZE: u32 = 256u;
const MAX_CHAIN: u32 = 8u;

struct UnaryParams {
    // Words to process in this dispatch (the binding may be a window of a larger buffer).
    words: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // alpha of op i is alpha[i / 4][i % 4].
    alpha: array<vec4<f32>, 2>,
}

@group(0) @binding(0) var<uniform> params: UnaryParams;
@group(0) @binding(1) var<storage, read> x: array<Word>;
@group(0) @binding(2) var<storage, read_write> y: array<Word>;

fn op_alpha(i: u32) -> f32 {
    return params.alpha[i / 4u][i % 4u];
}

fn apply_chain(element: Bits) -> Bits {
    var b = element;
{{CHAIN}}
    return b;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let word = (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
    if (word >= params.words) {
        return;
    }
    var w = x[word];
    for (var lane = 0u; lane < LANES; lane++) {
        w = with_lane(w, lane, apply_chain(word_lane(w, lane)));
    }
    y[word] = w;
}

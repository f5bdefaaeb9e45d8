// The elementwise driver: runs a chain of steps (unary activations and PRelu) over a tensor in
// one pass, so a chain costs one read and one write of X. Expanded per (representation, chain
// of step kinds, in place or not) by src/kernel.rs, which prepends the constants WORKGROUP_SIZE,
// VECTORS_PER_INVOCATION, LOCAL_STRIDE, VECTOR_STRIDE, MAX_CHAIN and MAX_RANK from Rust.
// Placeholders, each a line of its own:
//   {{IO}}          the bindings of X and Y (io.wgsl)
//   {{SLOPES}}      for each PRelu step, its bindings and gather functions (ops/prelu_slope.wgsl)
//   {{PREPARE}}     per-step state made once per invocation, e.g.
//                   `let attributes_0 = params.steps[0].attributes;`,
//                   `let scalar_1 = slope_scalar_1();` or `var cursor_2 = slope_cursor_2(first_element);`
//   {{MAIN_INVOCATION}}  an invocation's work (driver/invocation.wgsl) over its Vectors
//                   (driver/vector.wgsl, once each), either in straight-line code for whole
//                   workgroups (the Vectors after them then in driver/rest.wgsl's `rest`) or in
//                   a loop (src/kernel.rs, `straight_line`)
//   {{GROUPS}}      a Vector's groups through the chain's steps (driver/group.wgsl: a block
//                   per group, or a loop over them in the straight-line form)
//   {{TAIL_GROUPS}} the same for the tail, in a loop
//   {{ADVANCE}}     per-step state moved to the invocation's next Vector, e.g.
//                   `cursor_2 = slope_jump_2(cursor_2);`
//   {{BEGIN_VECTOR}} before a Vector's steps: nothing, or on the first of two passes over a
//                   device that flushes subnormals `needs_exact = false;`
//                   (compute/f32_products_flagged.wgsl)
//   {{STORE_MAIN}}  the Vector's result stored, `store_y(v, out);`, or on that first pass
//                   stored unless a product flagged it, which is noted in `flagged` instead
//   {{BEGIN_INVOCATION}}, {{END_INVOCATION}}  nothing, or on that first pass `var flagged = 0u;`
//                   and the invocation's flagged Vectors marked for the second pass
//                   (driver/marks.wgsl, driver/listed.wgsl): one rare branch per invocation
// Only the kinds of steps are shader text: attributes, sizes and slope extents come from
// `params`, so one pipeline serves every alpha and every shape.
//
// `main` handles whole 16-byte Vectors, VECTORS_PER_INVOCATION of them per invocation: either
// strided by the workgroup, so that neighbouring invocations touch neighbouring memory (GPUs),
// or consecutive (CPU drivers, where a batch of invocations is one thread). The grid is 2-D
// because one dimension holds at most 65535 workgroups; where a PRelu step's runs are whole
// workgroups, its x spans one period of the channels (ops/prelu_slope.wgsl). In the straight-line
// form (on llvmpipe by default, never for f64) `main` takes only whole workgroups (every Vector
// of theirs in the tensor), with no test per Vector, and `rest` (driver/rest.wgsl), one
// workgroup, the Vectors after them. `tail` handles the elements after the last whole Vector
// through Word-sized bindings, so nothing before or after the tensor is read or written except
// the unused half of a last 16-bit pair's word, which is written back as it was.

struct Step {
    // A unary step's attributes, in the order of the operator table (src/ops.rs).
    attributes: vec4<f32>,
    // A PRelu step's slope pattern, the cursor's jump and its divisors (ops/prelu_slope.wgsl);
    // in a step program (driver/program.wgsl), slope.x is a unary step's case.
    slope: vec4<u32>,
    jump: vec4<u32>,
    divide: vec4<u32>,
}

struct Params {
    // Whole Vectors in this dispatch (the bindings may be windows of larger buffers).
    vectors: u32,
    // Tail dispatch: index of the first tail Word in the word bindings, and elements in the tail.
    tail_word: u32,
    tail_elements: u32,
    // Flat index in X of the first element of this dispatch (PRelu's slope index).
    first_element: u32,
    steps: array<Step, MAX_CHAIN>,
    // The general slope pattern: collapsed X dims and slope strides, innermost last.
    general_rank: u32,
    // Always 0, and unknown to the compiler: XORed into a value (repr/f32.wgsl's to_compute) or
    // into a 1.0 (compute/f64.wgsl's d_opaque), it keeps the compiler from folding expressions
    // that must be computed as written.
    zero: u32,
    // The most workgroups the second pass over marked Vectors may dispatch (the device's
    // max_compute_workgroups_per_dimension); its workgroups then take several listed ones.
    max_listed_groups: u32,
    // A step program's length (driver/program.wgsl); 0 in other kernels.
    program_steps: u32,
    general_dims: array<vec4<u32>, MAX_RANK / 4u>,
    general_strides: array<vec4<u32>, MAX_RANK / 4u>,
    // general_dims prepared for divide() (shared/divide.wgsl): magic numbers, and modes.
    general_magics: array<vec4<u32>, MAX_RANK / 4u>,
    general_modes: array<vec4<u32>, MAX_RANK / 4u>,
    // The general pattern's block (ops/prelu_slope.wgsl's slope_blocked): the slope offset of
    // each of its elements from its first.
    block_offsets: array<vec4<u32>, MAX_BLOCK / 4u>,
}

@group(0) @binding(0) var<uniform> params: Params;

// params.zero, read once per invocation (each entry point's first statement): the barrier that
// keeps a compiler from folding (repr/f32.wgsl's to_compute, math/f32.wgsl's hidden,
// compute/f64.wgsl's d_opaque). Read from the uniform at each use, lavapipe reloaded it at
// every Vector (a store to Y may alias it, as far as LLVM knows): LeakyRelu f32 0.86-0.89 of
// the copy kernel against 0.93 without the barrier.
var<private> opaque_zero: u32;
{{IO}}
{{SLOPES}}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    opaque_zero = params.zero;
    let group_index = workgroup.y * workgroups.x + workgroup.x;
{{MAIN_INVOCATION}}
}

@compute @workgroup_size(1)
fn tail() {
    opaque_zero = params.zero;
    let elements = params.tail_elements;
    let words = (elements + WORD_LANES - 1u) / WORD_LANES;
    var out = Vector();
    for (var j = 0u; j < words; j++) {
        out = with_vector_word(out, j, load_x_word(params.tail_word + j));
    }
    let first_element = params.first_element;
    let element = first_element;
{{PREPARE}}
{{TAIL_GROUPS}}
    for (var j = 0u; j < words; j++) {
        var w = vector_word(out, j);
        let valid = min(elements - j * WORD_LANES, WORD_LANES);
        if (valid < WORD_LANES) {
            // The last word of an odd number of 16-bit elements: keep Y's other half.
            var kept = load_y_word(params.tail_word + j);
            for (var i = 0u; i < valid; i++) {
                kept = with_word_element(kept, i, word_element(w, i));
            }
            w = kept;
        }
        store_y_word(params.tail_word + j, w);
    }
}

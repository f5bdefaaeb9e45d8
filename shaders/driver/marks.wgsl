// The first pass's marks on a device that flushes subnormals (compute/f32_products_flagged.wgsl),
// and the gather pass that lists them for the second (driver/listed.wgsl). On a CPU's SIMD JIT
// (SwiftShader) code runs masked whether a lane takes it or not, so the first pass holds no
// branch and no atomic: each invocation stores its `flagged` bits (bit k: its k-th Vector) in
// a word of its own, every time. The gather pass, one invocation per first-pass workgroup,
// ORs that workgroup's words and lists it if any is set, counting the second pass's
// indirect dispatch. The engine clears the header before the first pass. Words: the list of
// flagged workgroups, then one per first-pass invocation.

struct Marks {
    // The second pass's dispatch: listed workgroups (at most params.max_listed_groups), 1, 1.
    groups: atomic<u32>,
    one_y: atomic<u32>,
    one_z: atomic<u32>,
    // Workgroups listed.
    listed: atomic<u32>,
    words: array<u32>,
}

@group(0) @binding({{MARKS_BINDING}}) var<storage, read_write> marks: Marks;

fn store_flagged(group_index: u32, local: u32, flagged: u32) {
    let groups = first_pass_groups();
    // The grid may hold a few workgroups more than the Vectors need (2-D grids).
    if (group_index < groups) {
        marks.words[groups + group_index * WORKGROUP_SIZE + local] = flagged;
    }
}

@compute @workgroup_size(GATHER_WORKGROUP_SIZE)
fn gather(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) workgroups: vec3<u32>) {
    let groups = first_pass_groups();
    let group_index = id.y * workgroups.x * GATHER_WORKGROUP_SIZE + id.x;
    if (group_index >= groups) {
        return;
    }
    var flagged = 0u;
    let base = groups + group_index * WORKGROUP_SIZE;
    for (var i = 0u; i < WORKGROUP_SIZE; i++) {
        flagged |= marks.words[base + i];
    }
    if (flagged != 0u) {
        let entry = atomicAdd(&marks.listed, 1u);
        marks.words[entry] = group_index;
        if (entry < params.max_listed_groups) {
            atomicAdd(&marks.groups, 1u);
        }
        atomicStore(&marks.one_y, 1u);
        atomicStore(&marks.one_z, 1u);
    }
}

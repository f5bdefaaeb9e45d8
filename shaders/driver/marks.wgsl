// The first pass's marks on a device that flushes subnormals (compute/f32_products_flagged.wgsl),
// which the second pass (driver/listed.wgsl) reads. An invocation with a flagged Vector appends
// an entry to a list: its index in the dispatch and its `flagged` bits (bit k: its k-th
// Vector), and counts the second pass's indirect dispatch, one workgroup per WORKGROUP_SIZE
// entries. That is the rare branch: an invocation with nothing flagged writes nothing, so the
// first pass moves no more memory than a one-pass kernel, and no pass between the two lists the
// marks (before, a word per invocation, every time, and a gather pass over them: one dispatch
// more per window; on SwiftShader the two designs measured alike, LeakyRelu f32 0.451-0.454 of
// the copy kernel against 0.454-0.460). The engine clears the header before the first pass. The
// list's order is the atomics', and does not matter: each entry's Vectors are computed alike
// wherever they sit.

struct Marks {
    // The second pass's dispatch: workgroups (at most params.max_listed_groups), 1, 1.
    groups: atomic<u32>,
    one_y: atomic<u32>,
    one_z: atomic<u32>,
    // Entries listed.
    listed: atomic<u32>,
    // Two words an entry: the invocation's index, its flagged bits.
    entries: array<u32>,
}

@group(0) @binding({{MARKS_BINDING}}) var<storage, read_write> marks: Marks;

fn mark_flagged(invocation: u32, flagged: u32) {
    let entry = atomicAdd(&marks.listed, 1u);
    marks.entries[2u * entry] = invocation;
    marks.entries[2u * entry + 1u] = flagged;
    if (entry % WORKGROUP_SIZE == 0u && entry / WORKGROUP_SIZE < params.max_listed_groups) {
        atomicAdd(&marks.groups, 1u);
        atomicStore(&marks.one_y, 1u);
        atomicStore(&marks.one_z, 1u);
    }
}

// The second pass on a device that flushes subnormals: the Vectors the first pass marked
// (driver/marks.wgsl), computed again in this kernel, whose products are exact
// (compute/f32_products_exact.wgsl). Each invocation takes listed entries, one after another
// (there may be more entries than this dispatch has invocations), and meets each entry's Vectors
// (and the slope cursors, {{PREPARE}} and {{ADVANCE}}) as that first-pass invocation met them;
// the entry's flagged bits say which to compute. Placeholders as in driver/elementwise.wgsl.
// The marks are read-only here: the same buffer holds this dispatch's size.

struct ListedMarks {
    groups: u32,
    one_y: u32,
    one_z: u32,
    listed: u32,
    entries: array<u32>,
}

@group(0) @binding({{MARKS_BINDING}}) var<storage, read> marks: ListedMarks;


@compute @workgroup_size(WORKGROUP_SIZE)
fn listed(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    opaque_zero = params.zero;
    let listed_entries = marks.listed;
    for (var entry = workgroup.x * WORKGROUP_SIZE + local; entry < listed_entries; entry += workgroups.x * WORKGROUP_SIZE) {
        let invocation = marks.entries[2u * entry];
        let flagged = marks.entries[2u * entry + 1u];
        let first = (invocation / WORKGROUP_SIZE) * (WORKGROUP_SIZE * VECTORS_PER_INVOCATION)
            + (invocation % WORKGROUP_SIZE) * LOCAL_STRIDE;
        let first_element = params.first_element + first * VECTOR_LANES;
{{PREPARE}}
        for (var k = 0u; k < VECTORS_PER_INVOCATION; k++) {
            let v = first + k * VECTOR_STRIDE;
            if (v < params.vectors && (flagged & (1u << k)) != 0u) {
                let element = first_element + k * (VECTOR_STRIDE * VECTOR_LANES);
                var out = load_x(v);
{{GROUPS}}
                store_y(v, out);
            }
{{ADVANCE}}
        }
    }
}

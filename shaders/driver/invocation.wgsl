// One invocation of `main` or `rest` (driver/elementwise.wgsl), `group_index` and `local` in
// scope; {{VECTORS}} is its Vectors' work (src/kernel.rs).
let first = group_index * (WORKGROUP_SIZE * VECTORS_PER_INVOCATION) + local * LOCAL_STRIDE;
let first_element = params.first_element + first * VECTOR_LANES;
{{PREPARE}}
{{BEGIN_INVOCATION}}
{{VECTORS}}
{{END_INVOCATION}}

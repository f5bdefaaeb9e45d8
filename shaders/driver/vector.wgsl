// One Vector of `main` or `rest` (driver/elementwise.wgsl): its index `v`, its place `k` among
// the invocation's Vectors and its elements `out`, loaded, are in scope; {{GROUPS}} is its groups
// through the steps (driver/group.wgsl), the other placeholders are the driver's.
let element = first_element + k * (VECTOR_STRIDE * VECTOR_LANES);
{{BEGIN_VECTOR}}
{{GROUPS}}
{{STORE_MAIN}}
{{ADVANCE}}

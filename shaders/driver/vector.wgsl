// One Vector of `main` or `rest` (driver/elementwise.wgsl): its index `v`, its place `k` among
// the invocation's Vectors and its elements `out`, loaded, are in scope; the placeholders are
// the driver's.
let element = first_element + k * (VECTOR_STRIDE * VECTOR_LANES);
{{BEGIN_VECTOR}}
for (var g = 0u; g < GROUPS; g++) {
    var b = group(out, g);
{{STEPS_MAIN}}
    out = with_group(out, g, b);
}
{{STORE_MAIN}}
{{ADVANCE}}

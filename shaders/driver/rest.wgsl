// The Vectors after main's last whole workgroup, where main takes whole workgroups in
// straight-line code (src/kernel.rs, `straight_line`): one workgroup, numbered as main would
// number it (its flagged invocations are listed as main's), whose invocations take their Vectors
// in the loop, each behind its test. {{REST_INVOCATION}}: that invocation's work, as
// driver/elementwise.wgsl's loop form of main.

@compute @workgroup_size(WORKGROUP_SIZE)
fn rest(@builtin(local_invocation_index) local: u32) {
    opaque_zero = params.zero;
    let group_index = params.vectors / (WORKGROUP_SIZE * VECTORS_PER_INVOCATION);
{{REST_INVOCATION}}
}

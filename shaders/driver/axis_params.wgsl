// The uniform of both kernels over an axis (driver/axis.wgsl, driver/axis_f64.wgsl), written by
// src/engine/axis.rs (`AxisParams`). The tensor is seen as rows (src/axis.rs): element i of row
// r is at (r / inner * n + i) * inner + r % inner.

struct AxisParams {
    // Rows' length, the elements between a row's neighbours, rows, workgroups along x.
    n: u32,
    inner: u32,
    rows: u32,
    groups_x: u32,
    // 0, read once per invocation into opaque_zero (compute/f32.wgsl's hidden(), compute/f64.wgsl's
    // d_opaque and d_hidden).
    zero: u32,
    // row_segments' invocations a row (a power of two, up to the workgroup; driver/axis.wgsl).
    segment: u32,
    // The chunked entry points' (driver/axis_f64.wgsl's chunk_*, driver/axis.wgsl's vector_chunk_*):
    // elements a chunk, and chunks a row.
    chunk: u32,
    chunks: u32,
    // row_vectors' rows an invocation, one after the other (src/kernel/axis.rs's
    // rows_an_invocation).
    rows_an_invocation: u32,
}

@group(0) @binding(0) var<uniform> params: AxisParams;

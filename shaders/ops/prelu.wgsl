// PRelu (ONNX opsets 1, 6, 7, 9, 16): Y = Where(X < 0, slope * X, X), on whole Lanes, the slope
// broadcast to X. The driver gathers the slope's Lanes for each group of X (prelu_slope.wgsl).
// CPU twin: src/cpu/prelu.rs.

fn prelu(x: Lanes, slope: Lanes) -> Lanes {
    return select(x, multiply(x, slope), is_negative(x));
}

// The general broadcast pattern's cursor at flat X index i: (flat slope index, position in the
// innermost collapsed dim, position in the next one, i), by a walk over the collapsed dims
// (params.general_dims), innermost last, adding the slope stride of each. It divides by each
// extent with divide() (multiplies: a u32 division is a call per lane on CPU drivers and slow
// on GPUs). The pattern has three collapsed dims at least (fewer are the others).
fn general_cursor(i: u32) -> vec4<u32> {
    var rest = i;
    var s = 0u;
    var positions = vec2<u32>(0u, 0u);
    for (var d = params.general_rank; d > 0u; d--) {
        let v = (d - 1u) / 4u;
        let c = (d - 1u) % 4u;
        let outer = divide(rest, params.general_magics[v][c], params.general_modes[v][c]);
        let here = rest - outer * params.general_dims[v][c];
        if (d == params.general_rank) {
            positions.x = here;
        } else if (d + 1u == params.general_rank) {
            positions.y = here;
        }
        s += here * params.general_strides[v][c];
        rest = outer;
    }
    return vec4<u32>(s, positions, i);
}

// The cursor one element on: a step along the innermost dim, carried into the next one where
// it wraps, and a walk only where that one wraps too (on the rank-6 pattern of the bench, once
// in 64 elements where every other element walked).
fn general_next(c: vec4<u32>) -> vec4<u32> {
    let d0 = max(params.general_rank, 2u) - 1u;
    let d1 = d0 - 1u;
    let extent0 = params.general_dims[d0 / 4u][d0 % 4u];
    let stride0 = params.general_strides[d0 / 4u][d0 % 4u];
    var n = vec4<u32>(c.x + stride0, c.y + 1u, c.z, c.w + 1u);
    if (n.y == extent0) {
        n.x = n.x - extent0 * stride0 + params.general_strides[d1 / 4u][d1 % 4u];
        n.y = 0u;
        n.z += 1u;
        if (n.z == params.general_dims[d1 / 4u][d1 % 4u]) {
            return general_cursor(n.w);
        }
    }
    return n;
}

// The cursor `by` elements on (`by` is a few elements).
fn general_advance(c: vec4<u32>, by: u32) -> vec4<u32> {
    var n = c;
    for (var i = 0u; i < by; i++) {
        n = general_next(n);
    }
    return n;
}

// The cursor of SlopeAccess::Blocked at flat X index i, whose innermost walked dim is the block:
// (the block's first slope index, i's place in the block, unused, i). The walk of
// general_cursor without its second position, whose branches cost lavapipe's JIT, and without
// a division for the outermost dim, where what is left is the position for every i in X (past
// X's end the cursor is never read).
fn block_cursor(i: u32) -> vec4<u32> {
    let block = params.general_rank - 1u;
    var rest = divide(i, params.general_magics[block / 4u][block % 4u], params.general_modes[block / 4u][block % 4u]);
    let place = i - rest * params.general_dims[block / 4u][block % 4u];
    var s = 0u;
    for (var d = block; d > 1u; d--) {
        let v = (d - 1u) / 4u;
        let c = (d - 1u) % 4u;
        let outer = divide(rest, params.general_magics[v][c], params.general_modes[v][c]);
        s += (rest - outer * params.general_dims[v][c]) * params.general_strides[v][c];
        rest = outer;
    }
    // The outermost dim (the block itself, of stride 0, where there is no other).
    s += rest * params.general_strides[0].x;
    return vec4<u32>(s, place, 0u, i);
}

// The slope offset of element j of the general pattern's block (SlopeAccess::Blocked), from the
// block's first.
fn block_offset(j: u32) -> u32 {
    return params.block_offsets[j / 4u][j % 4u];
}

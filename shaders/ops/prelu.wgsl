// PRelu (ONNX opsets 1, 6, 7, 9, 16): Y = Where(X < 0, slope * X, X), on whole Lanes, the slope
// broadcast to X. The driver gathers the slope's Lanes for each group of X (prelu_slope.wgsl).
// CPU twin: src/cpu/prelu.rs.

fn prelu(x: Lanes, slope: Lanes) -> Lanes {
    return select(x, multiply(x, slope), is_negative(x));
}

// The flat slope index of flat X index i for the general broadcast pattern, and i's position
// in the innermost collapsed dim: a walk over the collapsed dims (params.general_dims),
// innermost last, adding the slope stride of each. It divides by each extent with divide()
// (multiplies: a u32 division is a call per lane on CPU drivers and slow on GPUs).
fn general_slope_start(i: u32) -> vec2<u32> {
    var rest = i;
    var s = 0u;
    var position = 0u;
    for (var d = params.general_rank; d > 0u; d--) {
        let v = (d - 1u) / 4u;
        let c = (d - 1u) % 4u;
        let outer = divide(rest, params.general_magics[v][c], params.general_modes[v][c]);
        let here = rest - outer * params.general_dims[v][c];
        if (d == params.general_rank) {
            position = here;
        }
        s += here * params.general_strides[v][c];
        rest = outer;
    }
    return vec2<u32>(s, position);
}

// The innermost collapsed dim of the general pattern: (extent, slope stride).
fn general_inner() -> vec2<u32> {
    let d = max(params.general_rank, 1u) - 1u;
    return vec2<u32>(params.general_dims[d / 4u][d % 4u], params.general_strides[d / 4u][d % 4u]);
}

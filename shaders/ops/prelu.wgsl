// PRelu (ONNX opsets 1, 6, 7, 9, 16): Y = Where(X < 0, slope * X, X), on whole Lanes, the slope
// broadcast to X. The driver gathers the slope's Lanes for each group of X (prelu_slope.wgsl).
// CPU twin: src/cpu/prelu.rs.

fn prelu(x: Lanes, slope: Lanes) -> Lanes {
    return select(x, multiply(x, slope), is_negative(x));
}

// The flat slope index of flat X index i for the general broadcast pattern: a walk over the
// collapsed dims (params.general_dims), innermost last, adding the slope stride of each.
fn general_slope_index(i: u32) -> u32 {
    var rest = i;
    var s = 0u;
    for (var d = params.general_rank; d > 0u; d--) {
        let extent = params.general_dims[(d - 1u) / 4u][(d - 1u) % 4u];
        s += (rest % extent) * params.general_strides[(d - 1u) / 4u][(d - 1u) % 4u];
        rest /= extent;
    }
    return s;
}

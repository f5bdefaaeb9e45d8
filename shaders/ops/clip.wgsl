// Clip (ONNX opsets 1, 6, 11, 12, 13): its function body, on whole Lanes:
// T = Where(Less(X, min), min, X); Y = Where(Less(max, T), max, T). X passes through bit for bit
// within the bounds, at a bound (-0.0 at a bound of +0.0 included) and as NaN; min > max gives
// max; a NaN bound clips nothing (on the integers it is 0, as Rust casts it). The bounds are cast
// like X first (before 11 they are FLOAT attributes, from 11 scalars of X's type): attributes.x
// is min, attributes.y max; every representation defines `less` and `lanes_from_attribute`
// (the floats in shared/float_lanes.wgsl, exact there), and `lanes_from_bound`: an integer bound
// no f32 holds comes as the f32 of its leading bits (attributes.x, .y) plus a residual
// (attributes.z, .w; UnaryOp::residual_slot), added exactly where the type is 32 or 64 bits wide
// (0 elsewhere); an f64 X's bounds come as their own bits (min in .xy, max in .zw). CPU twin:
// src/ops/clip.rs, the residuals added in src/cpu/mod.rs.

fn clip(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let low = lanes_from_bound(attributes, 0u);
    let high = lanes_from_bound(attributes, 1u);
    let raised = select(x, low, less(x, low));
    return select(raised, high, less(high, raised));
}

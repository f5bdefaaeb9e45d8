// Shrink's x + bias where `up`, x - bias elsewhere, for every integer representation: bias cast
// like X (lanes_from_attribute, as Rust's `as` casts), and the representation's lanes_add and
// lanes_sub, which wrap as ONNX's Add and Sub do (shared/wrapping_sums.wgsl for the integers of
// one native word an element; the packed and paired ones define their own). The floats'
// counterpart is shared/float_lanes.wgsl's.

fn shifted_by_attribute(x: Lanes, bias: f32, up: Mask) -> Lanes {
    let b = lanes_from_attribute(bias);
    return select(lanes_sub(x, b), lanes_add(x, b), up);
}

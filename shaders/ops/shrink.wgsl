// Shrink (ONNX opset 9): its function body, Where(Less(X, Neg(lambd)), Add(X, bias),
// Where(Less(lambd, X), Sub(X, bias), 0)), on whole Lanes: 0 for NaN. lambd and bias are cast
// like X first (attributes.x lambd, attributes.y bias: lanes_from_attribute, and for the floats
// the host's cast). Every representation defines the sum or difference (shifted_by_attribute)
// and the comparison with -lambd:
// - the floats in shared/float_lanes.wgsl: the comparisons exact, the sum rounded once in Compute
//   (subnormal sums included where the device flushes them) and then to X's type (f16: twice,
//   within 1 ULP);
// - the integers in shared/shifted_integers.wgsl, wrapping, as ONNX's Add, Sub and Neg do; on the
//   unsigned types, which Neg does not take, X is never below -lambd.
// CPU twins: src/ops/shrink.rs (shrink on the floats, shrink_integer on the integers).

fn shrink(x: Lanes, attributes: vec4<f32>) -> Lanes {
    let lambd = lanes_from_attribute(attributes.x);
    let below = below_negated(x, lambd);
    // One sum where the body has two: X + bias below -lambd, X - bias elsewhere (taken only
    // above lambd).
    let shifted = shifted_by_attribute(x, attributes.y, below);
    return select(Lanes(), shifted, below | less(lambd, x));
}

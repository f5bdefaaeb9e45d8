// Element representation: float32, on every adapter.
//
// Every representation defines the same interface, which the driver and the op files are
// written against. Its types and lane counts are declared ahead of its files from its row of
// REPRS (src/repr.rs, `Layout`); the functions come from its file here and the shared files
// that row lists. Storage:
//   alias Vector    one 16-byte unit of the main pass's storage arrays; VECTOR_LANES elements
//   alias Word      one unit of the tail pass's storage arrays (4 or 8 bytes); WORD_LANES elements
//   fn vector_word(v, j) -> Word, fn with_vector_word(v, j, w) -> Vector
//   fn word_element(w, i) -> Element, fn with_word_element(w, i, e) -> Word
// Registers (ops compute on whole Lanes values):
//   alias Lanes     GROUP_LANES elements; a Vector holds GROUPS of them
//   alias Element   one element's bits;  alias Mask   one bool per Lanes component
//   fn group(v, g) -> Lanes, fn with_group(v, g, l) -> Vector; element i of group g is element
//   group_offset(g) + i * LANE_STEP of the Vector
//   fn lane(l, i) -> Element, fn with_lane(l, i, e) -> Lanes, fn splat(e) -> Lanes
//   (shared/lanes_*.wgsl and shared/words_indexed.wgsl implement these for the common layouts)
// Arithmetic:
//   fn is_negative(l) -> Mask          ONNX Less(X, 0): false for -0.0, NaN and unsigned types
//   fn is_nan(l) -> Mask               ONNX IsNaN (the float representations)
//   fn multiply(a, b) -> Lanes         PRelu's product: one rounding (floats), wrapping (integers)
// and, for the float representations, what the unary ops use:
//   alias Compute; fn to_compute(l) -> Compute; fn from_compute(c) -> Lanes (one rounding)
//   fn from_attribute(a: f32) -> Compute (exact); fn mul(a, b) -> Compute; fn add(a, b) -> Compute;
//   fn expm1(c) -> Compute; fn greater(a, b) -> Mask (ONNX Greater: false for NaN, -0.0 == +0.0)
//   fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute (an f64 the host derived
//   from the attributes, as exactly as Compute holds it)
//
// Here elements travel as their bits in u32 words and negativity is decided on the bits, so
// values that are not negative pass through bit for bit (NaN payloads, -0.0) even on drivers
// that assume float compares never see a NaN.

fn is_negative(l: Lanes) -> Mask {
    // 0x80000000 is -0.0, 0xff800000 is -inf, above it are the negative-signed NaNs.
    return (l > Lanes(0x80000000u)) & (l <= Lanes(0xff800000u));
}

fn is_nan(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffffffu)) > Lanes(0x7f800000u);
}

fn to_compute(l: Lanes) -> Compute {
    return bitcast<Compute>(l);
}

fn from_compute(c: Compute) -> Lanes {
    return bitcast<Lanes>(c);
}

fn expm1(c: Compute) -> Compute {
    return expm1_f32(c);
}

// Element representation: f32.
//
// Every dtype file defines the same interface, which the op files are written against:
//   alias Word     what one slot of the storage arrays holds
//   alias Bits     one element's bits (passed between chained ops)
//   alias Compute  the arithmetic type
//   const LANES    elements per Word (2 for packed 16-bit types)
//   fn word_lane(w, i) -> Bits, fn with_lane(w, i, b) -> Word   (shared/lanes_*.wgsl)
//   fn is_negative(b) -> bool     ONNX Less(X, 0): false for -0.0 and NaN
//   fn to_compute(b), fn from_compute(v)   widen / round to this dtype
//   fn multiply(a, b) -> Bits     a * b in this dtype, one rounding (PRelu; floats share
//                                 shared/float_multiply.wgsl)
//   fn expm1_compute(v)           expm1 for Elu (float dtypes only)
//
// Elements travel as raw u32 bits and negativity is decided on the bits, so X passes through
// bit-exact (NaN payloads, -0.0) even on drivers that assume no NaN in float compares.

alias Word = u32;
alias Bits = u32;
alias Compute = f32;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    // 0x80000000 is -0.0, 0xff800000 is -inf, above that are negative-signed NaNs.
    return b > 0x80000000u && b <= 0xff800000u;
}

fn to_compute(b: Bits) -> Compute {
    return bitcast<f32>(b);
}

fn from_compute(v: Compute) -> Bits {
    return bitcast<u32>(v);
}

fn expm1_compute(v: Compute) -> Compute {
    return expm1_f32(v);
}

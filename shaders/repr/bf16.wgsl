// Element representation: bfloat16, emulated on u32 words (no adapter has a bf16 type).
// Element interface: shaders/README.md; layout: shared/lanes_halves.wgsl; arithmetic:
// compute/f32.wgsl. Widened exactly to f32
// (bf16 is the top half of an f32), computed in f32, rounded back to nearest-even on the bits.

fn is_negative(l: Lanes) -> Mask {
    // 0x8000 is -0.0, 0xff80 is -inf, above it are the negative-signed NaNs.
    // Signed compares of the 16 bits, as in repr/f32.wgsl (SwiftShader has no unsigned one).
    let bits = bitcast<vec4<i32>>(l);
    return (bits > vec4(0x8000)) & (bits <= vec4(0xff80));
}

fn is_zero(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffu)) == Lanes(0u);
}

fn is_nan(l: Lanes) -> Mask {
    return bitcast<vec4<i32>>(l & Lanes(0x7fffu)) > vec4(0x7f80);
}

fn to_compute(h: Lanes) -> Compute {
    return bitcast<Compute>(h << vec4(16u));
}

// Round to nearest, ties to even; NaN stays NaN (quieted).
fn from_compute(c: Compute) -> Lanes {
    let x = bitcast<vec4<u32>>(c);
    let rounded = (x + vec4(0x7fffu) + ((x >> vec4(16u)) & vec4(1u))) >> vec4(16u);
    let nan = (x >> vec4(16u)) | vec4(0x40u);
    return select(rounded, nan, (x & vec4(0x7fffffffu)) > vec4(0x7f800000u));
}

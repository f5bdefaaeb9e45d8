// Element representation: float32, on every adapter. The element interface (shaders/README.md):
// elements travel as their bits in u32 words and every test of them is decided on the bits, so
// values that an operator passes through come back bit for bit (NaN payloads, -0.0) even on
// drivers that assume float compares never see a NaN. Arithmetic: compute/f32.wgsl.

fn is_negative(l: Lanes) -> Mask {
    // 0x80000000 is -0.0, 0xff800000 is -inf, above it are the negative-signed NaNs.
    return (l > Lanes(0x80000000u)) & (l <= Lanes(0xff800000u));
}

fn is_zero(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffffffu)) == Lanes(0u);
}

fn is_nan(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffffffu)) > Lanes(0x7f800000u);
}

// The bits as f32, through opaque_zero (0, unknown to the compiler; driver/elementwise.wgsl):
// a compiler that saw X itself in the result could merge `select(X, f(X), mask)` into
// arithmetic on X (LLVM turns LeakyRelu's into X * select(alpha, 1)), which quiets a signalling
// NaN that must pass through bit for bit.
fn to_compute(l: Lanes) -> Compute {
    return bitcast<Compute>(l ^ Lanes(opaque_zero));
}

fn from_compute(c: Compute) -> Lanes {
    return bitcast<Lanes>(c);
}

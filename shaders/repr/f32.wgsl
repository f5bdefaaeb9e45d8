// Element representation: float32, on every adapter. The element interface (shaders/README.md):
// elements travel as their bits in u32 words and every test of them is decided on the bits, so
// values that an operator passes through come back bit for bit (NaN payloads, -0.0) even on
// drivers that assume float compares never see a NaN. Arithmetic: compute/f32.wgsl.

// The compares on the bits are signed (bits below 2^31, or read as i32): SwiftShader's JIT,
// natively and under Chromium's WebGPU, has no unsigned compare and flips both sides' sign bits
// before a signed one (BENCHMARKS.md, 2026-11-27).
fn is_negative(l: Lanes) -> Mask {
    // 0x80000000 is -0.0, 0xff800000 is -inf, above it are the negative-signed NaNs: as i32, the
    // negative numbers are the bits from i32::MIN + 1 to -0x800000, so one less (i32::MIN wraps
    // to i32::MAX) lies below -0x800000.
    return bitcast<vec4<i32>>(l - Lanes(1u)) < vec4(-0x800000);
}

fn is_zero(l: Lanes) -> Mask {
    return (l & Lanes(0x7fffffffu)) == Lanes(0u);
}

fn is_nan(l: Lanes) -> Mask {
    return bitcast<vec4<i32>>(l & Lanes(0x7fffffffu)) > vec4(0x7f800000);
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

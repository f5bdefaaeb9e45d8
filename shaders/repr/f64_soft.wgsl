// Element representation: float64 in software, for adapters without SHADER_F64 (and when
// forced). Interface: see repr/f32.wgsl; layout: shared/lanes_pairs.wgsl. Elements are
// (low, high) u32 pairs, two per Vector; the arithmetic is shared/soft_f64.wgsl, correctly
// rounded, so LeakyRelu and PRelu are exact and Elu is within 2 ULP, as on the native path.
// Negativity is decided on the bits, so values that are not negative pass through bit for bit.

alias Compute = vec4<u32>;

fn f64_is_negative(a: U64) -> bool {
    // Below the sign bit: 0 is -0.0, above 0x7ff00000_00000000 are the NaNs.
    let magnitude = U64(a.x, a.y & 0x7fffffffu);
    return f64_sign(a) == 1u && !u64_is_zero(magnitude) && !u64_less(U64(0u, 0x7ff00000u), magnitude);
}

fn is_negative(l: Lanes) -> Mask {
    return pair_mask(f64_is_negative(l.xy), f64_is_negative(l.zw));
}

fn is_nan(l: Lanes) -> Mask {
    return pair_mask(f64_is_nan(l.xy), f64_is_nan(l.zw));
}

fn to_compute(l: Lanes) -> Compute {
    return l;
}

fn from_compute(c: Compute) -> Lanes {
    return c;
}

fn from_attribute(a: f32) -> Compute {
    let d = f64_from_f32_bits(bitcast<u32>(a));
    return Compute(d, d);
}

// The arithmetic runs one lane per loop iteration, so each call site holds one copy of the
// soft-float routine, not two: shader compilers inline every call, and SwiftShader's takes
// minutes over a kernel with a few dozen inlined soft-float products.
fn lane_of(c: Compute, i: u32) -> U64 {
    return select(c.xy, c.zw, i == 1u);
}

fn mul(a: Compute, b: Compute) -> Compute {
    var lanes: array<U64, 2>;
    for (var i = 0u; i < 2u; i++) {
        lanes[i] = f64_mul(lane_of(a, i), lane_of(b, i));
    }
    return Compute(lanes[0], lanes[1]);
}

fn expm1(c: Compute) -> Compute {
    var lanes: array<U64, 2>;
    for (var i = 0u; i < 2u; i++) {
        lanes[i] = f64_expm1(lane_of(c, i));
    }
    return Compute(lanes[0], lanes[1]);
}

// A key whose unsigned order is the order of the values (-0.0 just below +0.0).
fn f64_order_key(a: U64) -> U64 {
    return select(U64(a.x, a.y | 0x80000000u), U64(~a.x, ~a.y), f64_sign(a) == 1u);
}

// ONNX Greater on one value: false when either is NaN; -0.0 equals +0.0. Branch-free: a
// shader compiler inlines it several times per kernel.
fn f64_greater(a: U64, b: U64) -> bool {
    let zeros = u64_is_zero(U64(a.x | b.x, (a.y | b.y) & 0x7fffffffu));
    return !(f64_is_nan(a) | f64_is_nan(b) | zeros) & u64_less(f64_order_key(b), f64_order_key(a));
}

fn greater(a: Compute, b: Compute) -> Mask {
    return pair_mask(f64_greater(a.xy, b.xy), f64_greater(a.zw, b.zw));
}

fn add(a: Compute, b: Compute) -> Compute {
    var lanes: array<U64, 2>;
    for (var i = 0u; i < 2u; i++) {
        lanes[i] = f64_add(lane_of(a, i), lane_of(b, i));
    }
    return Compute(lanes[0], lanes[1]);
}

// An f64 attribute derived on the host, from its (low, high) bits.
fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute {
    return Compute(bits, bits);
}

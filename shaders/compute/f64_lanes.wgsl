// The Compute interface (shaders/README.md) of both f64 paths, lane by lane on the scalar steps
// of compute/f64.wgsl (native) or compute/f64_soft.wgsl (software). Compute is the
// representation's Lanes type, two elements, so lane() and with_lane() reach them.
//
// One lane per loop iteration: each call site then holds one copy of the scalar step, not two.
// Shader compilers inline every call, and SwiftShader's takes minutes over a kernel with a few
// dozen inlined software products.

fn from_attribute(a: f32) -> Compute {
    return splat(d_from_f32(a));
}

fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute {
    return splat(d_from_bits(bits, nearest_f32));
}

fn from_bound(a: f32, bits: vec2<u32>) -> Compute {
    return splat(d_from_bound(bits));
}

fn add(a: Compute, b: Compute) -> Compute {
    var out = a;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_add(lane(a, i), lane(b, i)));
    }
    return out;
}

fn sub(a: Compute, b: Compute) -> Compute {
    var out = a;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_sub(lane(a, i), lane(b, i)));
    }
    return out;
}

fn mul(a: Compute, b: Compute) -> Compute {
    var out = a;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_mul(lane(a, i), lane(b, i)));
    }
    return out;
}

fn mul_add(a: Compute, b: Compute, c: Compute) -> Compute {
    var out = a;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_mul_add(lane(a, i), lane(b, i), lane(c, i)));
    }
    return out;
}

fn quotient(a: Compute, b: Compute) -> Compute {
    var out = a;
    for (var i = 0u; i < 2u; i++) {
        out = with_lane(out, i, d_quotient(lane(a, i), lane(b, i)));
    }
    return out;
}

fn negate(a: Compute) -> Compute {
    return Compute(d_negate(lane(a, 0u)), d_negate(lane(a, 1u)));
}

fn absolute(a: Compute) -> Compute {
    return Compute(d_absolute(lane(a, 0u)), d_absolute(lane(a, 1u)));
}

fn pick(f: Compute, t: Compute, m: ComputeMask) -> Compute {
    return select(f, t, m);
}

// max(0, min(1, c)), ONNX's Max(Min(c, 1), 0): NaN stays NaN, -0.0 stays -0.0.
fn clamp_to_unit(c: Compute) -> Compute {
    let one = from_attribute(1.0);
    let zero = from_attribute(0.0);
    return pick(pick(c, one, greater(c, one)), zero, greater(zero, c));
}

fn greater(a: Compute, b: Compute) -> ComputeMask {
    return compute_mask(d_greater(lane(a, 0u), lane(b, 0u)), d_greater(lane(a, 1u), lane(b, 1u)));
}

fn compute_is_nan(a: Compute) -> ComputeMask {
    return compute_mask(d_is_nan(lane(a, 0u)), d_is_nan(lane(a, 1u)));
}

// a + b rounded once: f64 runs natively only where the device keeps its subnormals.
fn add_keeping_subnormals(a: Compute, b: Compute) -> Compute {
    return add(a, b);
}

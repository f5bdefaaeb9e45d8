// Element representation: float64, native (needs SHADER_F64). Element interface:
// shaders/README.md; layout: shared/lanes_one_group.wgsl; arithmetic: compute/f64.wgsl with
// compute/f64_lanes.wgsl. naga has no reliable bitcast between f64 and u32 pairs, so storage is
// typed f64, negativity is the IEEE comparison (false for NaN and -0.0), and values that are
// not negative are stored as they were loaded.

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0.0);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0.0);
}

// Every other value is above -1 or below 1. (Not l != l: drivers may compile a float compare
// as if no value were NaN, and fold that one to false.)
fn is_nan(l: Lanes) -> Mask {
    return !((l > Lanes(-1.0)) | (l < Lanes(1.0)));
}

fn to_compute(l: Lanes) -> Compute {
    return l;
}

fn from_compute(c: Compute) -> Lanes {
    return c;
}

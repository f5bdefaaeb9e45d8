// Element representation: float64, native (needs SHADER_F64). Interface: see repr/f32.wgsl;
// layout: shared/lanes_one_group.wgsl. naga has no reliable bitcast between f64 and u32 pairs, so
// storage is typed f64, negativity is the IEEE comparison (false for NaN and -0.0), and values
// that are not negative are stored as they were loaded.

alias Compute = vec2<f64>;

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0.0);
}

fn to_compute(l: Lanes) -> Compute {
    return l;
}

fn from_compute(c: Compute) -> Lanes {
    return c;
}

fn from_attribute(a: f32) -> Compute {
    return Compute(f64(a));
}

fn mul(a: Compute, b: Compute) -> Compute {
    return a * b;
}

fn expm1(c: Compute) -> Compute {
    return expm1_f64(c);
}

fn greater(a: Compute, b: Compute) -> Mask {
    return a > b;
}

fn add(a: Compute, b: Compute) -> Compute {
    return a + b;
}

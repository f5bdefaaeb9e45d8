// Element representation: float64, native (needs SHADER_F64). Interface: see repr/f32.wgsl;
// layout: shared/lanes_one_group.wgsl. naga has no reliable bitcast between f64 and u32 pairs, so
// storage is typed f64, negativity is the IEEE comparison (false for NaN and -0.0), and values
// that are not negative are stored as they were loaded.

alias Compute = vec2<f64>;

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0.0);
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

// An f64 attribute derived on the host, from its (low, high) bits: finite and normal, or its
// nearest f32 where it is not (0, infinite or NaN are f32 values exactly). Rebuilt from its
// fields, as naga has no reliable bitcast from a u32 pair to f64.
fn from_f64_attribute(bits: vec2<u32>, nearest_f32: f32) -> Compute {
    let biased = (bits.y >> 20u) & 0x7ffu;
    let significand = f64((bits.y & 0xfffffu) | 0x100000u) * 4294967296.0 + f64(bits.x);
    let magnitude = ldexp(significand, i32(biased) - 1075);
    let value = select(magnitude, -magnitude, (bits.y >> 31u) == 1u);
    return Compute(select(f64(nearest_f32), value, biased != 0u && biased != 0x7ffu));
}

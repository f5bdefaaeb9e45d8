// Element representation: float16, native (`enable f16;`, needs SHADER_F16). Element interface:
// shaders/README.md; its layout is here; arithmetic: compute/f32.wgsl. A Vector is two vec4<f16> (naga has no bitcast between u32
// and f16 pairs).
// Arithmetic runs in f32, more accurate than f16's own (alpha stays an f32 attribute), and is
// narrowed with the device's own f32 -> f16 conversion. Negativity is the IEEE comparison
// (false for NaN and -0.0), and values that are not negative are stored as they were loaded.

struct HalfVector {
    low: vec4<f16>,
    high: vec4<f16>,
}

// Element i of a group is element group_offset(g) + i * LANE_STEP of its Vector.
const LANE_STEP: u32 = 1u;

fn group_offset(g: u32) -> u32 {
    return 4u * g;
}

fn group(v: Vector, g: u32) -> Lanes {
    if (g == 0u) {
        return v.low;
    }
    return v.high;
}

fn with_group(v: Vector, g: u32, l: Lanes) -> Vector {
    var out = v;
    if (g == 0u) {
        out.low = l;
    } else {
        out.high = l;
    }
    return out;
}

fn vector_word(v: Vector, j: u32) -> Word {
    let l = group(v, j / 2u);
    let k = (j % 2u) * 2u;
    return Word(l[k], l[k + 1u]);
}

fn with_vector_word(v: Vector, j: u32, w: Word) -> Vector {
    var l = group(v, j / 2u);
    let k = (j % 2u) * 2u;
    l[k] = w.x;
    l[k + 1u] = w.y;
    return with_group(v, j / 2u, l);
}

fn word_element(w: Word, i: u32) -> Element {
    return w[i];
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    return select(w, Word(e), vec2<u32>(0u, 1u) == vec2<u32>(i));
}

fn lane(l: Lanes, i: u32) -> Element {
    return l[i];
}

fn with_lane(l: Lanes, i: u32, e: Element) -> Lanes {
    return select(l, Lanes(e), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(i));
}

fn splat(e: Element) -> Lanes {
    return Lanes(e);
}

fn is_negative(l: Lanes) -> Mask {
    return l < Lanes(0.0h);
}

fn is_zero(l: Lanes) -> Mask {
    return l == Lanes(0.0h);
}

// On the bits of the exact f32 (compute/f32.wgsl): drivers may compile float compares as
// if no value were NaN, and naga has no bitcast from f16.
fn is_nan(l: Lanes) -> Mask {
    return f32_is_nan(to_compute(l));
}

fn to_compute(l: Lanes) -> Compute {
    return Compute(l);
}

fn from_compute(c: Compute) -> Lanes {
    return Lanes(half_precision(c));
}

// c rounded to f16 to nearest even on its bits (shared/f16_bits.wgsl) and widened back, exactly,
// so that the device's f32 -> f16 conversion only meets values it converts exactly: Vulkan
// leaves that conversion's rounding to the driver, and NVIDIA's truncates (Swish 2.5 ULP on an
// H200).
fn half_precision(c: Compute) -> Compute {
    return f32_from_f16_bits(f16_bits_from_f32(c));
}

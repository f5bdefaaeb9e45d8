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

// c rounded to f16 to nearest even, as an f32, so that the device's f32 -> f16 conversion only
// meets values it converts exactly: Vulkan leaves that conversion's rounding to the driver, and
// NVIDIA's truncates (Swish 2.5 ULP on an H200). The rounding is the f32 sum's: with m = ±1.5
// 2^(e + 13), e c's exponent held to [-14, 16] and m signed like c, c + m lies in [2^(e + 13),
// 2^(e + 14)), whose ULP 2^(e - 10) is f16's there (2^-24 for f16's subnormals, below 2^-14), and
// m's significand is even there, so (c + m) - m is c rounded to f16 to nearest even. Beyond
// f16's range it is 2^16 or more, which becomes infinity; NaN keeps the top of its payload, as
// shared/f16_bits.wgsl's conversion does; a zero keeps its sign. The same values as rounding on
// the bits and widening back (f16_bits_from_f32, then f32_from_f16_bits), in 17 steps where those
// took 26 (AMD's compiler, RADV).
fn half_precision(c: Compute) -> Compute {
    let bits = bitcast<vec4<u32>>(c);
    let sign = bits & vec4(0x80000000u);
    let magnitude = bits & vec4(0x7fffffffu);
    let exponent = clamp(bits & vec4(0x7f800000u), vec4(0x38800000u), vec4(0x47800000u));
    let m = bitcast<Compute>((exponent + vec4(0x06800000u)) | vec4(0x00400000u) | sign);
    // Hidden, so that no driver folds (c + m) - m to c.
    let rounded = bitcast<vec4<u32>>(hidden(c + m) - m) & vec4(0x7fffffffu);
    var out = select(rounded, vec4(0x7f800000u), rounded >= vec4(0x47800000u));
    out = select(out, vec4(0x7fc00000u) | (magnitude & vec4(0x003fe000u)), magnitude > vec4(0x7f800000u));
    return bitcast<Compute>(out | sign);
}

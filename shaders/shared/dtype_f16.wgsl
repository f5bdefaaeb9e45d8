// Element representation: float16, native (`enable f16;`, needs SHADER_F16). Pairs of
// elements in vec2<f16> words; arithmetic in f32 (more accurate than f16 arithmetic: alpha
// stays an f32 attribute), narrowed with the device's own f32 -> f16 conversion. There is no
// bitcast from f16 to bits in naga, so negativity is the IEEE comparison (false for NaN and
// -0.0) and passthrough stores the loaded value untouched. Interface: see dtype_f32.wgsl.

alias Word = vec2<f16>;
alias Bits = f16;
alias Compute = f32;
const LANES: u32 = 2u;

fn word_lane(w: Word, i: u32) -> Bits {
    return w[i];
}

fn with_lane(w: Word, i: u32, b: Bits) -> Word {
    var out = w;
    out[i] = b;
    return out;
}

fn is_negative(b: Bits) -> bool {
    return b < 0.0h;
}

fn to_compute(b: Bits) -> Compute {
    return f32(b);
}

fn from_compute(v: Compute) -> Bits {
    return f16(v);
}

fn expm1_compute(v: Compute) -> Compute {
    return expm1_f32(v);
}

// Element representation: float64, native (needs SHADER_F64). WGSL has no bitcast between
// f64 and u32 pairs, so negativity is the IEEE comparison (false for NaN and -0.0) and
// passthrough stores the loaded value untouched. Interface: see dtype_f32.wgsl.

alias Word = f64;
alias Bits = f64;
alias Compute = f64;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return b < 0.0;
}

fn to_compute(b: Bits) -> Compute {
    return b;
}

fn from_compute(v: Compute) -> Bits {
    return v;
}

fn expm1_compute(v: Compute) -> Compute {
    return expm1_f64(v);
}

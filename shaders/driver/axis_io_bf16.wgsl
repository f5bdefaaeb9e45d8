// The elements of the kernel over an axis (driver/axis.wgsl) for bf16: two per storage word,
// widened exactly (the top half of an f32) and rounded to nearest-even on the bits (as
// repr/bf16.wgsl); Y's words are atomic, as the two halves of a word may belong to rows that two
// invocations write.

// load reads X. Branch-free: a lane past the end reads element 0, whose value is never used.
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    let words = vec4(x[at.x >> 1u], x[at.y >> 1u], x[at.z >> 1u], x[at.w >> 1u]);
    return from_halves((words >> ((at & vec4(1u)) * 16u)) & vec4(0xffffu));
}

// Four elements from their bits (each in the low half of a word).
fn from_halves(halves: vec4<u32>) -> Compute {
    return bitcast<Compute>(halves << vec4(16u));
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], bits_of(Compute(v)).x << shift);
}

fn bits_of(v: Compute) -> vec4<u32> {
    // Hardmax writes only 0 and 1: no rounding to do.
    if KIND == HARDMAX {
        return select(vec4(0u), vec4(0x3f80u), v != Compute(0.0));
    }
    let b = bitcast<vec4<u32>>(v);
    let rounded = (b + vec4(0x7fffu) + ((b >> vec4(16u)) & vec4(1u))) >> vec4(16u);
    return select(rounded, (b >> vec4(16u)) | vec4(0x40u), (b & vec4(0x7fffffffu)) > vec4(0x7f800000u));
}

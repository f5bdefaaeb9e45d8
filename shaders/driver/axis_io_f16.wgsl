// The elements of the kernel over an axis (driver/axis.wgsl) for f16: two per storage word,
// widened exactly and rounded to nearest-even on the bits (shared/f16_bits.wgsl); Y's words are
// atomic, as the two halves of a word may belong to rows that two invocations write.

// load reads X. Branch-free: a lane past the end reads element 0, whose value is never used.
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    let words = vec4(x[at.x >> 1u], x[at.y >> 1u], x[at.z >> 1u], x[at.w >> 1u]);
    return from_halves((words >> ((at & vec4(1u)) * 16u)) & vec4(0xffffu));
}

// Four elements from their bits (each in the low half of a word).
fn from_halves(halves: vec4<u32>) -> Compute {
    if KIND == HARDMAX {
        return ordered_like_f16(halves);
    }
    return f32_from_f16_bits(halves);
}

// Hardmax needs only the elements' order, ties and NaN: f32 values in the order of the f16 bits
// (zeros of either sign equal, infinities and NaN as they are), subnormals left in the place
// that rebiasing puts them, between 2^-15 and 2^-14, with no conversion to scale them.
fn ordered_like_f16(h: vec4<u32>) -> Compute {
    let magnitude = h & vec4(0x7fffu);
    let rebiased = (magnitude << vec4(13u)) + select(vec4(0x38000000u), vec4(0x70000000u), magnitude >= vec4(0x7c00u));
    let bits = ((h & vec4(0x8000u)) << vec4(16u)) | select(rebiased, vec4(0u), magnitude == vec4(0u));
    return bitcast<Compute>(bits);
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], bits_of(Compute(v)).x << shift);
}

fn bits_of(v: Compute) -> vec4<u32> {
    // Hardmax writes only 0 and 1: no rounding to do.
    if KIND == HARDMAX {
        return select(vec4(0u), vec4(0x3c00u), v != Compute(0.0));
    }
    return f16_bits_from_f32(v);
}

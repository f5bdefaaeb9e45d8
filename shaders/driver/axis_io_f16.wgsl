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
    return f32_from_f16_bits(halves);
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], f16_bits_from_f32(Compute(v)).x << shift);
}

fn bits_of(v: Compute) -> vec4<u32> {
    return f16_bits_from_f32(v);
}

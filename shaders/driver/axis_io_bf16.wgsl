// driver/axis.wgsl's elements for bf16: two per storage word, widened exactly (the top half of an
// f32) and rounded to nearest-even on the bits (as repr/bf16.wgsl); Y's words are atomic, as the
// two halves of a word may belong to rows that two invocations write.

// Branch-free: a lane past the row reads element 0 (its value is never used).
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    let words = vec4(x[at.x >> 1u], x[at.y >> 1u], x[at.z >> 1u], x[at.w >> 1u]);
    return bitcast<Compute>(((words >> ((at & vec4(1u)) * 16u)) & vec4(0xffffu)) << vec4(16u));
}

fn store(i: u32, v: f32) {
    let b = bitcast<u32>(v);
    let rounded = (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
    let bits = select(rounded, (b >> 16u) | 0x40u, (b & 0x7fffffffu) > 0x7f800000u);
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], bits << shift);
}

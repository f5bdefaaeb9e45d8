// The elements of the kernels outside the elementwise driver (driver/axis.wgsl, driver/gated.wgsl)
// for bf16: two per storage word, widened exactly (the top half of an
// f32) and rounded to nearest-even on the bits (as repr/bf16.wgsl); Y's words are atomic, as the
// two halves of a word may belong to rows that two invocations write.

// {{LOAD}} reads the binding {{SOURCE}} (filled per input by the expansion). Branch-free: a lane
// past the end reads element 0, whose value is never used.
fn {{LOAD}}(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    let words = vec4({{SOURCE}}[at.x >> 1u], {{SOURCE}}[at.y >> 1u], {{SOURCE}}[at.z >> 1u], {{SOURCE}}[at.w >> 1u]);
    return bitcast<Compute>(((words >> ((at & vec4(1u)) * 16u)) & vec4(0xffffu)) << vec4(16u));
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], bits_of(Compute(v)).x << shift);
}

fn bits_of(v: Compute) -> vec4<u32> {
    let b = bitcast<vec4<u32>>(v);
    let rounded = (b + vec4(0x7fffu) + ((b >> vec4(16u)) & vec4(1u))) >> vec4(16u);
    return select(rounded, (b >> vec4(16u)) | vec4(0x40u), (b & vec4(0x7fffffffu)) > vec4(0x7f800000u));
}

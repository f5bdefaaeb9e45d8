// The elements of the kernels outside the elementwise driver (driver/axis.wgsl, driver/gated.wgsl)
// for f16: two per storage word, widened exactly and rounded to
// nearest-even on the bits (shared/f16_bits.wgsl); Y's words are atomic, as the two halves of a
// word may belong to rows that two invocations write.

// {{LOAD}} reads the binding {{SOURCE}} (filled per input by the expansion). Branch-free: a lane
// past the end reads element 0, whose value is never used.
fn {{LOAD}}(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    let words = vec4({{SOURCE}}[at.x >> 1u], {{SOURCE}}[at.y >> 1u], {{SOURCE}}[at.z >> 1u], {{SOURCE}}[at.w >> 1u]);
    return f32_from_f16_bits((words >> ((at & vec4(1u)) * 16u)) & vec4(0xffffu));
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], f16_bits_from_f32(Compute(v)).x << shift);
}

fn bits_of(v: Compute) -> vec4<u32> {
    return f16_bits_from_f32(v);
}

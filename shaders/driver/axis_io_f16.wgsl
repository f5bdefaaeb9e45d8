// driver/axis.wgsl's elements for f16: two per storage word, widened exactly and rounded to
// nearest-even on the bits (shared/f16_bits.wgsl); Y's words are atomic, as the two halves of a
// word may belong to rows that two invocations write.

fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    var bits = vec4(0u);
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            bits[c] = (x[i[c] >> 1u] >> ((i[c] & 1u) * 16u)) & 0xffffu;
        }
    }
    return f32_from_f16_bits(bits);
}

fn store(i: u32, v: f32) {
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], f16_bits_from_f32(Compute(v)).x << shift);
}

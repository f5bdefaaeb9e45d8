// driver/axis.wgsl's elements for bf16: two per storage word, widened exactly (the top half of an
// f32) and rounded to nearest-even on the bits (as repr/bf16.wgsl); Y's words are atomic, as the
// two halves of a word may belong to rows that two invocations write.

fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    var bits = vec4(0u);
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            bits[c] = (x[i[c] >> 1u] >> ((i[c] & 1u) * 16u)) << 16u;
        }
    }
    return bitcast<Compute>(bits);
}

fn store(i: u32, v: f32) {
    let b = bitcast<u32>(v);
    let rounded = (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
    let bits = select(rounded, (b >> 16u) | 0x40u, (b & 0x7fffffffu) > 0x7f800000u);
    let shift = (i & 1u) * 16u;
    atomicAnd(&y[i >> 1u], ~(0xffffu << shift));
    atomicOr(&y[i >> 1u], bits << shift);
}

// driver/gated.wgsl's stores for the 16-bit types: four consecutive elements from an even index
// are two whole words, which one invocation owns, so plain stores do; past the last element, the
// other half of its word is written back as it was. half_bits (f16's or bf16's rounding, on the
// bits) comes first.

fn store4(first: u32, v: Compute, live: vec4<bool>) {
    let h = half_bits(v);
    let word = first >> 1u;
    if live.y {
        y[word] = h.x | (h.y << 16u);
    } else {
        y[word] = (y[word] & 0xffff0000u) | h.x;
    }
    if live.w {
        y[word + 1u] = h.z | (h.w << 16u);
    } else if live.z {
        y[word + 1u] = (y[word + 1u] & 0xffff0000u) | h.z;
    }
}

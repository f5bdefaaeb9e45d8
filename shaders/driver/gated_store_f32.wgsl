// driver/gated.wgsl's stores for f32: four consecutive elements, one per word.

fn store4(first: u32, v: Compute, live: vec4<bool>) {
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            y[first + c] = bitcast<u32>(v[c]);
        }
    }
}

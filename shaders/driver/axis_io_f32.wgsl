// driver/axis.wgsl's elements for f32: one per storage word.

fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    var bits = vec4(0u);
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            bits[c] = x[i[c]];
        }
    }
    return bitcast<Compute>(bits);
}

fn store(i: u32, v: f32) {
    y[i] = bitcast<u32>(v);
}

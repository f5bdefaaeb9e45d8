// driver/axis.wgsl's elements for f32: one per storage word.

// Branch-free: a lane past the row reads element 0 (its value is never used).
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    return bitcast<Compute>(vec4(x[at.x], x[at.y], x[at.z], x[at.w]));
}

fn store(i: u32, v: f32) {
    y[i] = bitcast<u32>(v);
}

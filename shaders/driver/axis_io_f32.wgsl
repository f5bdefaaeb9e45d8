// The elements of the kernel over an axis (driver/axis.wgsl) for f32: one per storage word.

// load reads X. Branch-free: a lane past the end reads element 0, whose value is never used.
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    return bitcast<Compute>(vec4(x[at.x], x[at.y], x[at.z], x[at.w]));
}

fn store(i: u32, v: f32) {
    y[i] = bitcast<u32>(v);
}

// One element a word: nothing to pair (driver/axis_io_f16.wgsl says what pairing is).
const PAIRED_STORES: bool = false;

fn store_pairs(index: vec4<u32>, live: vec4<bool>, low: Compute, high: Compute) {
    store_lanes(index, live, low);
    store_lanes(index + vec4(1u), live, high);
}

fn store_quad(index: vec4<u32>, live: vec4<bool>, value: Compute) {
    store_lanes(index, live, value);
}

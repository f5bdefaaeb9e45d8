// The elements of the kernel over an axis (driver/axis.wgsl) for f32: one per storage word.

// load reads X. Branch-free: a lane past the end reads element 0, whose value is never used.
fn load(i: vec4<u32>, live: vec4<bool>) -> Compute {
    let at = select(vec4(0u), i, live);
    return bitcast<Compute>(vec4(x[at.x], x[at.y], x[at.z], x[at.w]));
}

// X and Y again, as vectors of four elements (row_vectors; the other entry points bind them as
// words, and each entry point's module keeps only its own).
@group(0) @binding(1) var<storage, {{INPUT_ACCESS}}> x_vectors: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> y_vectors: array<vec4<u32>>;

fn load_vector(v: u32) -> Compute {
    return bitcast<Compute>(x_vectors[v]);
}

fn store_vector(v: u32, value: Compute) {
    y_vectors[v] = bitcast<vec4<u32>>(value);
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

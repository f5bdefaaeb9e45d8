// The 16-bit elements' paired stores of the kernel over an axis (driver/axis.wgsl), after
// driver/axis_io_f16.wgsl's or driver/axis_io_bf16.wgsl's store section, whose bits_of(v) gives
// each lane's 16 bits and from_halves(h) four elements from theirs; and row_vectors' loads and
// stores, X and Y bound again as pairs of words (four elements), which no other invocation
// writes.

// Elements of a row held two to a word, where no other invocation writes that word (the last
// axis, rows of even length, so every row starts a word): one atomic store a word instead of
// an atomicAnd and an atomicOr an element.
const PAIRED_STORES: bool = true;

// Elements index and index + 1 (index even) of each live lane's row.
fn store_pairs(index: vec4<u32>, live: vec4<bool>, low: Compute, high: Compute) {
    let words = bits_of(low) | (bits_of(high) << vec4(16u));
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            atomicStore(&y[index[c] >> 1u], words[c]);
        }
    }
}

// Four consecutive elements from index.x (even) of one row, both halves of a word live or not.
fn store_quad(index: vec4<u32>, live: vec4<bool>, value: Compute) {
    let bits = bits_of(value);
    if live.x {
        atomicStore(&y[index.x >> 1u], bits.x | (bits.y << 16u));
    }
    if live.z {
        atomicStore(&y[index.z >> 1u], bits.z | (bits.w << 16u));
    }
}

@group(0) @binding(1) var<storage, {{INPUT_ACCESS}}> x_vectors: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> y_vectors: array<vec2<u32>>;

fn load_vector(v: u32) -> Compute {
    let words = x_vectors[v];
    return from_halves(vec4(words.x, words.x >> 16u, words.y, words.y >> 16u) & vec4(0xffffu));
}

fn store_vector(v: u32, value: Compute) {
    let bits = bits_of(value);
    y_vectors[v] = vec2(bits.x | (bits.y << 16u), bits.z | (bits.w << 16u));
}

// Whether the device's fma rounds once (src/engine/probe.rs reads the answer): WGSL lets it
// round twice, as lavapipe's does. The operands come from storage, so no compiler can fold
// them: words[0..2] = a, b = 1 + 2^-12 (their product 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11),
// words[2..4] = 1 + 2^-23 and 1 - 2^-24 (their product 1 + 2^-24 - 2^-47 rounds to 1).
// Afterwards words[0] and words[1] hold fma(a, b, -(a b rounded)): the product's error, 2^-24
// and 2^-24 - 2^-47, where fma rounds once; 0 where it rounds the product first.

@group(0) @binding(0) var<storage, read_write> words: array<u32, 4>;

fn product_error(a: f32, b: f32) -> u32 {
    return bitcast<u32>(fma(a, b, -(a * b)));
}

@compute @workgroup_size(1)
fn main() {
    let first = product_error(bitcast<f32>(words[0]), bitcast<f32>(words[1]));
    let second = product_error(bitcast<f32>(words[2]), bitcast<f32>(words[3]));
    words[0] = first;
    words[1] = second;
}

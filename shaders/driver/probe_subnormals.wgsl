// What the device's f32 unit does with subnormals (src/engine/probe.rs reads the answer). The
// operands come from storage, so no compiler can fold the products:
//   words[0] = -2^-149 (the negative subnormal nearest 0), words[1] = 2^-126 (the smallest
//   normal), words[2] = 2^30, words[3] = 0.5.
// Afterwards words[0] holds -2^-149 x 2^30, a normal -2^-119 unless subnormal operands are
// flushed (DAZ: then -0.0), and words[1] holds 2^-126 x 0.5, the subnormal 2^-127 unless
// subnormal results are flushed (FTZ: then 0.0).

@group(0) @binding(0) var<storage, read_write> words: array<u32, 4>;

@compute @workgroup_size(1)
fn main() {
    let operand = bitcast<f32>(words[0]) * bitcast<f32>(words[2]);
    let result = bitcast<f32>(words[1]) * bitcast<f32>(words[3]);
    words[0] = bitcast<u32>(operand);
    words[1] = bitcast<u32>(result);
}

// What the device's f64 unit does with subnormals, where it has one (SHADER_F64): the f32
// probe (probe_subnormals.wgsl) for binary64, so that a device whose f32 unit flushes but
// whose f64 unit keeps subnormals (NVIDIA's, by its Vulkan driver's float controls) runs the
// native f64 kernels. src/engine/probe.rs reads the answer. The operands come from storage:
//   values[0] = -2^-1074 (the negative subnormal nearest 0), values[1] = 2^-1022 (the smallest
//   normal), values[2] = 2^60, values[3] = 0.5.
// Afterwards values[0] holds -2^-1074 x 2^60, a normal -2^-1014 unless subnormal operands are
// flushed (then -0.0), and values[1] holds 2^-1022 x 0.5, the subnormal 2^-1023 unless
// subnormal results are flushed (then 0.0). Storage is typed f64 (naga has no reliable bitcast
// between f64 and u32 pairs); the host writes and reads the same bytes as u32 words.

@group(0) @binding(0) var<storage, read_write> values: array<f64, 4>;

@compute @workgroup_size(1)
fn main() {
    let operand = values[0] * values[2];
    let result = values[1] * values[3];
    values[0] = operand;
    values[1] = result;
}

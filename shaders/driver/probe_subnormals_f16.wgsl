// What the device does with f16 subnormals where it has f16 (src/engine/probe.rs reads the
// answer): what the native f16 path relies on besides the f32 unit, whose products are exact
// anyway. The operands come from storage, so no compiler can fold them: `halves.x` is the f16
// -2^-24 (0x8001, the negative subnormal nearest 0), `single` the f32 2^-20, an f16 subnormal.
// Afterwards `single` holds -2^-24 as an f32 (0xb3800000) unless subnormal f16 operands are
// flushed (then -0.0), `converted.x` the f16 2^-20 (0x0010) unless subnormal f16 results are
// flushed (then 0), and `negative` 1 where -2^-24 < 0 (a flushing compare sees -0.0).

enable f16;

struct Words {
    halves: vec2<f16>,
    single: f32,
    converted: vec2<f16>,
    negative: u32,
}

@group(0) @binding(0) var<storage, read_write> words: Words;

@compute @workgroup_size(1)
fn main() {
    let operand = words.halves.x;
    let result = f16(words.single);
    words.single = f32(operand);
    words.converted = vec2<f16>(result, 0.0h);
    words.negative = select(0u, 1u, operand < 0.0h);
}

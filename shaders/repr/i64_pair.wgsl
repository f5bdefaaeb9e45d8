// Element representation: int64, emulated on (low, high) u32 pairs (adapters without
// SHADER_INT64, or when forced). Interface: see repr/f32.wgsl; layout: shared/lanes_pairs.wgsl.
// The product wraps modulo 2^64 (shared/wide_u32.wgsl); nothing is truncated to 32 bits.

alias Vector = vec4<u32>;
alias Word = vec2<u32>;
alias Lanes = vec4<u32>;
alias Element = vec2<u32>;
alias Mask = vec4<bool>;
const VECTOR_LANES: u32 = 2u;
const GROUP_LANES: u32 = 2u;
const WORD_LANES: u32 = 1u;

fn is_negative(l: Lanes) -> Mask {
    let sign = (l >> Lanes(31u)) == Lanes(1u);
    return pair_mask(sign.y, sign.w);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(mul_u64_pair(a.xy, b.xy), mul_u64_pair(a.zw, b.zw));
}

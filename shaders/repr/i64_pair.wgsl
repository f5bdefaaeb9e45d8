// Element representation: int64, emulated on (low, high) u32 pairs (adapters without
// SHADER_INT64, or when forced). Element interface: shaders/README.md; layout: shared/lanes_pairs.wgsl.
// The product wraps modulo 2^64 (shared/wide_u32.wgsl); nothing is truncated to 32 bits.

fn is_negative(l: Lanes) -> Mask {
    let sign = (l >> Lanes(31u)) == Lanes(1u);
    return pair_mask(sign.y, sign.w);
}

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(mul_u64_pair(a.xy, b.xy), mul_u64_pair(a.zw, b.zw));
}

fn is_zero(l: Lanes) -> Mask {
    return pair_mask(all(l.xy == vec2(0u)), all(l.zw == vec2(0u)));
}

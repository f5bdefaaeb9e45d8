// 64-bit products on vec2<u32> (x = low word, y = high word), for adapters without
// SHADER_INT64 (the emulated int64 and uint64), software f64 (shared/soft_f64.wgsl) and
// PRelu's division (shared/divide.wgsl). Never truncates to 32 bits.

// The full 64-bit product of two u32, from 16-bit limbs (every partial product fits u32).
fn mul_u32_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let middle = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let low = (p00 & 0xffffu) | (middle << 16u);
    let high = p11 + (p01 >> 16u) + (p10 >> 16u) + (middle >> 16u);
    return vec2<u32>(low, high);
}

// The low 64 bits of a 64 x 64 product: the same for signed and unsigned operands.
fn mul_u64_pair(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = mul_u32_wide(a.x, b.x);
    return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}

// compute/f32.wgsl's sums on a device that flushes subnormals (its probe says so,
// src/engine/probe.rs), in every mode of exact products (src/kernel.rs, arithmetic_files):
// compute/f32_products.wgsl's plain sum stands in for it on a device that keeps them, where
// scaling the operands would cost every element for nothing (a CPU adapter runs both sides
// of a select). CPU twin: Shrink's, src/ops/shrink.rs, which rounds the sum once.

// a + b rounded once, a subnormal result included on a device that flushes subnormals (Shrink's
// sums). Where both are below 2^-100 the operands are scaled by 2^100 (a subnormal one from its
// bits), added (one rounding; exact where the result is subnormal, a multiple of 2^-149 below
// 2^-126), and brought back on the bits, exactly. No product: with mul (exact on such a device)
// Shrink f32 ran at 0.64-0.73 of its hardware-products twin on lavapipe with products forced
// onto integers, every element paying for the product and its check.
fn add_keeping_subnormals(a: Compute, b: Compute) -> Compute {
    let below = Compute(7.888609052210118e-31); // 2^-100
    let tiny = (absolute(a) < below) & (absolute(b) < below);
    return select(a + b, scaled_down_by_2_100(scaled_up_by_2_100(a) + scaled_up_by_2_100(b)), tiny);
}

// s 2^-100 for a multiple s of 2^-49 below 2^-99 (a sum of two scaled_up_by_2_100), which is
// exact: from 2^-26 up its exponent less 100, below that a subnormal whose mantissa is s 2^49,
// an integer below 2^23.
fn scaled_down_by_2_100(s: Compute) -> Compute {
    let bits = bitcast<vec4<u32>>(s);
    let magnitude = bits & vec4(0x7fffffffu);
    let normal = magnitude >= vec4(0x32800000u); // 2^-26
    let subnormal = vec4<u32>(absolute(s) * 5.62949953421312e14); // 2^49
    return bitcast<Compute>((bits & vec4(0x80000000u)) | select(subnormal, magnitude - vec4(100u << 23u), normal));
}

// c 2^100 exactly for |c| < 2^-100, a subnormal c read from its bits (m 2^-149 is m 2^-49 there).
fn scaled_up_by_2_100(c: Compute) -> Compute {
    let bits = bitcast<vec4<u32>>(c);
    let magnitude = bits & vec4(0x7fffffffu);
    let from_bits = vec4<f32>(magnitude) * 1.7763568394002505e-15; // 2^-49
    let signed = bitcast<Compute>(bitcast<vec4<u32>>(from_bits) | (bits & vec4(0x80000000u)));
    return select(c * 1.2676506002282294e30, signed, magnitude < vec4(0x800000u));
}

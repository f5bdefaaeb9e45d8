// The products of compute/f32.wgsl on a GPU that flushes subnormals, checked only where a step's
// input needs it (`Products::Guarded`). `mul` is the exact product
// (compute/f32_products_on_integers.wgsl). The kernel also holds a copy of each function that
// reaches `mul`, named with `_plain` after it, whose products are `mul_plain`'s, the float unit's
// (src/kernel/prune.rs, `with_plain_copies`), and each step runs its operator's copy where every
// lane's magnitude lies in the step's plain range: the magnitudes for which the host has shown
// that every `mul` the step takes has normal (or zero) operands and a normal (or zero) result
// (`PlainRange`, src/ops/plain_products.rs, from the operator and its attributes, in the step's
// `slope.yz`). There the float unit's product is IEEE's on any unit, flushing or not; elsewhere,
// and for a NaN or an infinity, the step runs with the exact products. One comparison per
// element and one branch per step, instead of a test and a branch at every product: a GPU skips
// the side that none of a subgroup's lanes takes, and the plain side is as straight as the float
// unit's kernel. The first of two passes flagged by the ranges (`Products::FlaggedByRange`, a
// CPU adapter's) takes this file beside compute/f32_products_flagged.wgsl: there a step always
// runs its `_plain` copy, and a lane outside its range raises `needs_exact`, so that the second
// pass computes the Vector again with the exact products (PRelu's products, which have no
// range, take `mul` and flag themselves). Then the first pass holds neither the exact
// products nor a check per product. CPU twin: `PlainRange::holds` (the range test) and the exact
// products' twin.

fn mul_plain(a: Compute, b: Compute) -> Compute {
    return a * b;
}

// Whether every lane of x lies in [range.x, range.y], as magnitudes' bits (a NaN lies above any
// range).
fn in_plain_range(x: Compute, range: vec2<u32>) -> bool {
    let magnitude = bitcast<vec4<u32>>(x) & vec4(0x7fffffffu);
    return all((magnitude >= vec4(range.x)) & (magnitude <= vec4(range.y)));
}

// 2^-96: src/ops/plain_products.rs's GATED_PRODUCT_FLOOR, as bits.
const GATED_PRODUCT_FLOOR: u32 = 0x0f800000u;

// Whether every lane of a gated step ((a b) sigmoid(alpha a), SwiGLU's) lies in its plain range:
// a's magnitude in `range` (`plain_products::swiglu`), and the float unit's a b at least
// GATED_PRODUCT_FLOOR and finite: a product that a flushing unit got wrong (a subnormal factor
// read as zero) is zero, or NaN from zero times infinity, and fails; an infinite one (b
// infinite, or a b overflowing) takes the full function's cases, which the plain copy
// (`gated_product_of_in_range`) leaves out.
fn in_gated_plain_range(a: Compute, b: Compute, range: vec2<u32>) -> bool {
    return in_plain_range(a, range) && in_plain_range(a * b, vec2(GATED_PRODUCT_FLOOR, 0x7f7fffffu));
}

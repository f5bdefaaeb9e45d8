// The products of compute/f32.wgsl on a GPU that flushes subnormals, checked only where a step's
// input needs it (`Products::Guarded`). Before each step the driver sets `products_plain` from
// the step's input: true where every lane's magnitude lies in the step's plain range, the
// magnitudes for which the host has shown that every `mul` the step takes has normal (or zero)
// operands and a normal (or zero) result (`PlainRange`, src/ops/plain_products.rs, from the
// operator and its attributes, in the step's `slope.yz`). There the float unit's product is
// IEEE's on any unit, flushing or not, and `mul` takes it with no check; elsewhere, and for a
// NaN or an infinity, every product takes the exact one-pass product
// (compute/f32_products_exact.wgsl). One comparison per element instead of one test per product:
// a GPU skips the branch that none of a subgroup's lanes takes. CPU twin: `plain_products` in
// src/ops/plain_products.rs (the range test) and the exact products' twin.

// Whether the step being computed may take the float unit's products; false outside a guarded
// step (PRelu's products), so that a step without a range is exact.
var<private> products_plain: bool;

fn mul(a: Compute, b: Compute) -> Compute {
    if (products_plain) {
        return a * b;
    }
    return exact_product(a, b);
}

// Whether every lane of x lies in [range.x, range.y], as magnitudes' bits (a NaN lies above any
// range).
fn in_plain_range(x: Compute, range: vec2<u32>) -> bool {
    let magnitude = bitcast<vec4<u32>>(x) & vec4(0x7fffffffu);
    return all((magnitude >= vec4(range.x)) & (magnitude <= vec4(range.y)));
}

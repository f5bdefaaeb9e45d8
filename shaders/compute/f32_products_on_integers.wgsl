// The products of compute/f32.wgsl on a device that flushes subnormals, every one checked
// (compute/f32_products_exact.wgsl): the one-pass form (`Products::OnIntegers`) and the second
// of two passes (`Products::Listed`).

fn mul(a: Compute, b: Compute) -> Compute {
    return exact_product(a, b);
}

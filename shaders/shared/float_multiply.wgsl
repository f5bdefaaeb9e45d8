// PRelu's product for float representations: computed in Compute and rounded once. For the
// 16-bit types the product of two values is exact in f32, so the one rounding is the final one.

fn multiply(a: Bits, b: Bits) -> Bits {
    return from_compute(to_compute(a) * to_compute(b));
}

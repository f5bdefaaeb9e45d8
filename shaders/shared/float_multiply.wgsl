// PRelu's product for the float representations: computed in Compute and rounded once to the
// element type. For the 16-bit types the product of two values is exact in f32, so the one
// rounding is the final one.

fn multiply(a: Lanes, b: Lanes) -> Lanes {
    return from_compute(mul(to_compute(a), to_compute(b)));
}

// expm1 for the 16-bit float representations (f16, bf16): four lanes at a time in f32.
// Their results keep 11 (f16) or 8 (bf16) significant bits, so expm1 can start from exp(),
// which WGSL bounds at 3 + 2|x| ULP of f32: for Elu's kept x in [-17.5, 0) that is at most
// 38 ULP, 2^-17.7 relative, well under one ULP of a 16-bit result, except near 0 where
// exp(x) - 1 cancels; there (|x| < 2^-6) the series x + x^2/2 + x^3/6 holds to 2^-22. Below
// -17.5, where the bound stops meaning anything, the result is -1 (e^x < 2^-25).
// CPU twin, which checks the bound for any exp within the spec's: src/cpu/expm1_half.rs.

fn expm1(c: Compute) -> Compute {
    // Below 2^-24 the series rounds to c itself, and c is returned as it is: where a device
    // flushes subnormals (bf16's), the series would turn a flushed -0.0 into +0.0
    // (-0 + 0 * 0 * ...) and lose the sign.
    let series = select(c + c * c * (0.5 + c * (1.0 / 6.0)), c, abs(c) < Compute(5.9604645e-8));
    let result = select(exp(c) - 1.0, series, abs(c) < Compute(0.015625));
    return select(result, Compute(-1.0), c < Compute(-17.5));
}

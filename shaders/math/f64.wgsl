// Accurate elementwise functions in f64, one algorithm for both f64 paths, written once in Rust
// on the scalar steps (src/cpu/math_f64.rs, SwiGLU's src/cpu/gated_f64.rs, the kernel over an
// axis's src/cpu/axis_f64.rs, with the bounds each holds against the correctly rounded result)
// and recorded by src/kernel/f64_program.rs into {{F64_FUNCTIONS}} below: for
// the native path, straight-line functions on the d_* steps of compute/f64.wgsl; for the
// software path, one program that compute/f64_program.wgsl interprets with a single copy of
// each software step (inlined, Sigmoid's steps alone took SwiftShader minutes to compile).
// Each comes with its Compute-level function, the name without d_, applied lane by lane
// (expm1(c) runs d_expm1 on each lane). What they compute, by the scalar function:
//   d_expm1(x)               expm1(x) for x <= 0, 1 ULP
//   d_logistic(x)            sigmoid, 2 ULP, subnormal results included
//   d_hyperbolic_tangent(x)  tanh, 2 ULP
//   d_softsign_quotient(x)   x / (1 + |x|), 1 ULP (NaN for infinite x)
//   d_log_one_plus_exp(x)    log(1 + e^x) (softplus), 2 ULP, subnormal results included
//   d_logistic_product(x, a) x sigmoid(a x) (Swish) for an f32 a, 3 ULP, subnormal results
//                            included
//   self_logistic_product(x) x sigmoid(x) (Swish's alpha 1): d_logistic_product with a = 1
//   d_mish_product(x)        x tanh(log(1 + e^x)) (Mish), 3 ULP, subnormal results included
//   d_normal_cdf_product(x)  x Phi(x) (Gelu's erf form), 3 ULP, subnormal results included
//   d_gelu_tanh_product(x)   x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (Gelu's tanh form, the
//                            constants as real numbers), 3 ULP
//   d_gated_product(a, b, alpha)  (a b) sigmoid(alpha a) (SwiGLU) for an f32 alpha, 4 ULP, a b
//                            beyond f64's range and subnormal results included
//   self_gated_product(a, b) (a b) sigmoid(a) (SwiGLU's alpha 1): d_gated_product with alpha = 1

{{F64_FUNCTIONS}}

// x sigmoid(x): math/f32.wgsl's shortcut (a x exact) serves f32 alone; f64 takes the general
// function, whose steps the software path's program already holds.
fn self_logistic_product(x: Compute) -> Compute {
    return logistic_product(x, from_attribute(1.0));
}

// (a b) sigmoid(a) (SwiGLU's alpha 1): math/f32.wgsl's shortcut (alpha a exact) serves f32
// alone, as self_logistic_product's does.
fn self_gated_product(a: Compute, b: Compute) -> Compute {
    return gated_product(a, b, from_attribute(1.0));
}

// Celu's alpha expm1(x / alpha) for x / alpha < 0: x / alpha, expm1 and the product each rounded
// (math/f32.wgsl's sum of exact parts serves f32 alone).
fn expm1_of_quotient_product(x: Compute, q: Compute, alpha: Compute, reciprocal: Compute) -> Compute {
    return mul(alpha, expm1(q));
}

// HardSigmoid's max(0, min(1, alpha x + beta)) for a line listed with its zero: alpha x + beta
// rounded once (math/f32.wgsl's line through the zero holds for f32 alone).
fn clamped_line_through_zero(x: Compute, alpha: Compute, beta: Compute, zero: Compute, at_zero: Compute) -> Compute {
    return clamp_to_unit(mul_add(x, alpha, beta));
}

// HardSwish's gate, max(0, min(1, alpha x + 1/2)) for its alpha, the f32 nearest 1/6: its line
// rounded once (math/f32.wgsl's shortcut through x + 3 holds for f32 alone).
fn hard_swish_gate(x: Compute) -> Compute {
    return clamped_line_through_zero(x, from_attribute(0.16666667), from_attribute(0.5), from_attribute(-3.0),
        from_attribute(-0x1p-26f));
}

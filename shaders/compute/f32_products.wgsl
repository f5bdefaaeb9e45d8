// The products of compute/f32.wgsl on a device that keeps subnormals (its probe says so,
// src/engine/probe.rs): the hardware's, correctly rounded.

fn mul(a: Compute, b: Compute) -> Compute {
    return a * b;
}

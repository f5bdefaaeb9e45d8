// The products of compute/f32.wgsl on a device that keeps subnormals (its probe says so,
// src/engine/probe.rs): the hardware's, correctly rounded.

fn mul(a: Compute, b: Compute) -> Compute {
    return a * b;
}

// a + b rounded once: the hardware's sum, subnormal results included on this device
// (compute/f32_sums_flushing.wgsl takes its place where the device flushes them).
fn add_keeping_subnormals(a: Compute, b: Compute) -> Compute {
    return a + b;
}

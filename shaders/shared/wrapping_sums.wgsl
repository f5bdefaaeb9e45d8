// Shrink's sum and difference for the integer representations held in one native word per
// element (i32, u32, and i64 and u64 with SHADER_INT64): WGSL's integer + and - wrap modulo
// 2^bits, as ONNX's Add and Sub do on the integers.

fn lanes_add(a: Lanes, b: Lanes) -> Lanes {
    return a + b;
}

fn lanes_sub(a: Lanes, b: Lanes) -> Lanes {
    return a - b;
}


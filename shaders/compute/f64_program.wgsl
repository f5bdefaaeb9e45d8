// The software f64 path's interpreter of the f64 math. Shader compilers inline every call, and
// each software binary64 addition or product is a hundred lines of integer code: Sigmoid's math,
// inlined, took SwiftShader over 15 minutes and 24 GB to compile. Here the math is data: one
// program (F64_PROGRAM, F64_CONSTANTS and the F64_OP_* codes, recorded from
// src/cpu/math_f64.rs by src/kernel/f64_program.rs and placed in math/f64.wgsl's
// {{F64_FUNCTIONS}}) that this loop runs with one copy of each step, whatever the function.
// CPU twin: `run` in src/kernel/f64_program.rs's tests, against the math's software twin.
//
// Instruction: (op | destination << 8 | immediate << 16, a | b << 10 | c << 20), with a, b
// and c register numbers. Integers (exponents) sit in a register's low word, comparisons'
// outcomes as 0 or 1. F64_PROGRAM and F64_CONSTANTS are private variables, not constants:
// naga's SPIR-V copies a constant array that is indexed at run time into a local variable at
// every access (the whole program, per instruction). Every invocation initialises them, and
// lavapipe's compile time grows with their length: hence two words an instruction (four took
// Gelu's kernel from 3.1 s to 10.2 s there), and only the functions the kernel calls.

// An integer register's value, and the register holding an integer.
fn f64_register_int(r: U64) -> i32 {
    return bitcast<i32>(r.x);
}

fn f64_int_register(k: i32) -> U64 {
    return U64(bitcast<u32>(k), 0u);
}

// The steps without an addition or a product, by operation code.
fn f64_program_step(op: u32, a: U64, b: U64, c: U64, immediate: i32) -> U64 {
    switch op {
        case F64_OP_NEGATE: { return f64_negate(a); }
        case F64_OP_ABSOLUTE: { return d_absolute(a); }
        case F64_OP_LESS: { return U64(select(0u, 1u, f64_greater(b, a)), 0u); }
        case F64_OP_GREATER: { return U64(select(0u, 1u, f64_greater(a, b)), 0u); }
        case F64_OP_PICK: { return select(c, b, a.x != 0u); }
        case F64_OP_FLOOR_INT: { return f64_int_register(f64_floor_to_i32(a)); }
        case F64_OP_FROM_INT: { return f64_from_i32(f64_register_int(a)); }
        case F64_OP_POWER_OF_TWO: { return d_power_of_two(f64_register_int(a)); }
        case F64_OP_INT_MAX: { return f64_int_register(max(f64_register_int(a), immediate)); }
        case F64_OP_INT_SUB: { return f64_int_register(f64_register_int(a) - f64_register_int(b)); }
        case F64_OP_RECIPROCAL_SEED: { return f64_reciprocal_seed(a); }
        default: { return a; }
    }
}

// Register i: a temporary below F64_TEMPORARIES, a constant from there on.
fn f64_read(t: ptr<function, array<U64, F64_TEMPORARIES>>, i: u32) -> U64 {
    if (i < F64_TEMPORARIES) {
        return (*t)[i];
    }
    return F64_CONSTANTS[i - F64_TEMPORARIES];
}

// Runs instructions [start, end) on x, y and z (registers 0 to 2; a function of fewer inputs
// gets its last one again) and returns register `result`. The bound goes through opaque_zero (the driver's
// params.zero, 0) so that no compiler unrolls the loop back into the inlined code it replaces.
fn f64_program_run(start: u32, end: u32, result: u32, x: U64, y: U64, z: U64) -> U64 {
    var r: array<U64, F64_TEMPORARIES>;
    r[0] = x;
    r[1] = y;
    r[2] = z;
    for (var pc = start; pc < end + opaque_zero; pc++) {
        let instruction = F64_PROGRAM[pc];
        let op = instruction.x & 0xffu;
        let a = f64_read(&r, instruction.y & 0x3ffu);
        let b = f64_read(&r, (instruction.y >> 10u) & 0x3ffu);
        let c = f64_read(&r, instruction.y >> 20u);
        var out: U64;
        if (op <= F64_OP_ADD_UNLESS_ZERO) {
            let sum = f64_add(a, select(b, f64_negate(b), op == F64_OP_SUB));
            let keep = op == F64_OP_ADD_UNLESS_ZERO && u64_is_zero(U64(b.x, b.y & 0x7fffffffu));
            out = select(sum, a, keep);
        } else if (op == F64_OP_MUL) {
            out = f64_mul(a, b);
        } else if (op == F64_OP_PRODUCT_ERROR) {
            out = f64_product_error(a, b, c);
        } else {
            out = f64_program_step(op, a, b, c, bitcast<i32>(instruction.x) >> 16u);
        }
        r[(instruction.x >> 8u) & 0xffu] = out;
    }
    return f64_read(&r, result);
}

// Element representation: uint32 (PRelu only). Never negative, so PRelu returns X; values
// >= 2^31 are large positives, not negatives. Interface: see dtype_f32.wgsl.

alias Word = u32;
alias Bits = u32;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return false;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return a * b;
}

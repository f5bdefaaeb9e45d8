// Element representation: uint64, emulated on vec2<u32> (low, high). Never negative: PRelu
// returns X, and values >= 2^63 are large positives. Interface: see dtype_f32.wgsl.

alias Word = vec2<u32>;
alias Bits = vec2<u32>;
const LANES: u32 = 1u;

fn is_negative(b: Bits) -> bool {
    return false;
}

fn multiply(a: Bits, b: Bits) -> Bits {
    return mul_u64_pair(a, b);
}

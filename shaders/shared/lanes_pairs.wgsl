// Lane layout for 64-bit elements held as (low, high) u32 pairs: a vec4<u32> Vector is one
// Lanes value of 2 elements, and a Word is one element (with shared/lanes_one_group.wgsl and
// shared/lanes_like_words.wgsl).

fn vector_word(v: Vector, j: u32) -> Word {
    return select(v.xy, v.zw, j == 1u);
}

fn with_vector_word(v: Vector, j: u32, w: Word) -> Vector {
    if (j == 0u) {
        return Vector(w, v.zw);
    }
    return Vector(v.xy, w);
}

fn splat(e: Element) -> Lanes {
    return Lanes(e, e);
}

// One mask component per u32 of the pair, so select() keeps or replaces whole elements.
fn pair_mask(first: bool, second: bool) -> vec4<bool> {
    return vec4<bool>(first, first, second, second);
}

// Whether unsigned pair a is below unsigned pair b.
fn pair_below(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// The two's-complement negation of a pair.
fn pair_negated(p: vec2<u32>) -> vec2<u32> {
    let low = ~p.x + 1u;
    return vec2<u32>(low, ~p.y + select(0u, 1u, low == 0u));
}

// The sum of two pairs modulo 2^64.
fn pair_sum(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = a.x + b.x;
    return vec2<u32>(low, a.y + b.y + select(0u, 1u, low < a.x));
}

// The integer part of a magnitude m, 0 <= m < 2^64, as a pair (exactly: an f32 at or above 2^24
// is an integer, its significand shifted left).
fn pair_from_magnitude(m: f32) -> vec2<u32> {
    if m < 4294967296.0 {
        return vec2<u32>(u32(m), 0u);
    }
    let bits = bitcast<u32>(m);
    let significand = (bits & 0x7fffffu) | 0x800000u;
    let shift = ((bits >> 23u) & 0xffu) - 150u; // 9 to 40 here
    if shift < 32u {
        return vec2<u32>(significand << shift, significand >> (32u - shift));
    }
    return vec2<u32>(0u, significand << (shift - 32u));
}

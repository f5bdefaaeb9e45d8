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

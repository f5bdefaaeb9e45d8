// Lane layout for 64-bit elements held as (low, high) u32 pairs: a vec4<u32> Vector is one
// Lanes value of 2 elements, and a Word is one element.

const GROUPS: u32 = 1u;
// Element i of a group is element group_offset(g) + i * LANE_STEP of its Vector.
const LANE_STEP: u32 = 1u;

fn group_offset(g: u32) -> u32 {
    return 0u;
}

fn group(v: Vector, g: u32) -> Lanes {
    return v;
}

fn with_group(v: Vector, g: u32, l: Lanes) -> Vector {
    return l;
}

fn vector_word(v: Vector, j: u32) -> Word {
    return select(v.xy, v.zw, j == 1u);
}

fn with_vector_word(v: Vector, j: u32, w: Word) -> Vector {
    if (j == 0u) {
        return Vector(w, v.zw);
    }
    return Vector(v.xy, w);
}

fn word_element(w: Word, i: u32) -> Element {
    return w;
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    return e;
}

fn lane(l: Lanes, i: u32) -> Element {
    return select(l.xy, l.zw, i == 1u);
}

fn with_lane(l: Lanes, i: u32, e: Element) -> Lanes {
    return with_vector_word(l, i, e);
}

fn splat(e: Element) -> Lanes {
    return Lanes(e, e);
}

// One mask component per u32 of the pair, so select() keeps or replaces whole elements.
fn pair_mask(first: bool, second: bool) -> vec4<bool> {
    return vec4<bool>(first, first, second, second);
}

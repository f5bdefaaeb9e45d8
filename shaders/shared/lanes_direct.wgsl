// Lane layout for representations whose Vector is one Lanes value and whose Word is one
// Element: f32, i32, u32 (vec4<u32>) and the native 64-bit types (vec2<T>).

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
    return v[j];
}

fn with_vector_word(v: Vector, j: u32, w: Word) -> Vector {
    var out = v;
    out[j] = w;
    return out;
}

fn word_element(w: Word, i: u32) -> Element {
    return w;
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    return e;
}

fn lane(l: Lanes, i: u32) -> Element {
    return l[i];
}

fn with_lane(l: Lanes, i: u32, e: Element) -> Lanes {
    var out = l;
    out[i] = e;
    return out;
}

fn splat(e: Element) -> Lanes {
    return Lanes(e);
}

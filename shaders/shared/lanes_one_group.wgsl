// Lane layout for representations whose Vector is one Lanes value and whose Word is one
// Element: the 32-bit types (vec4<u32>), the native 64-bit types (vec2<T>) and the 64-bit
// (low, high) pairs (vec4<u32>, with shared/lanes_pairs.wgsl).

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

fn word_element(w: Word, i: u32) -> Element {
    return w;
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    return e;
}

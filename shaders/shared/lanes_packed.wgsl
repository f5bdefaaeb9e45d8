// Lane layout for elements of PACKED_BITS bits (16 or 8) packed into u32 words, lowest first: a
// vec4<u32> Vector holds 4 * GROUPS elements as GROUPS groups, group g holding the g-th element
// of each word (elements g, g + GROUPS, ...), each in the low bits of one Lanes component, zero
// above. Splitting and joining cost a mask and a shift per word. PACKED_BITS and GROUPS (32 /
// PACKED_BITS) come from the representation's Layout (src/repr.rs). Used with
// shared/words_indexed.wgsl and shared/lanes_like_words.wgsl.

// Element i of a group is element group_offset(g) + i * LANE_STEP of its Vector.
const LANE_STEP: u32 = GROUPS;
const PACKED_MASK: u32 = (1u << PACKED_BITS) - 1u;

fn group_offset(g: u32) -> u32 {
    return g;
}

fn group(v: Vector, g: u32) -> Lanes {
    return (v >> Lanes(PACKED_BITS * g)) & Lanes(PACKED_MASK);
}

fn with_group(v: Vector, g: u32, l: Lanes) -> Vector {
    let shift = Lanes(PACKED_BITS * g);
    return (v & ~(Lanes(PACKED_MASK) << shift)) | ((l & Lanes(PACKED_MASK)) << shift);
}

fn word_element(w: Word, i: u32) -> Element {
    return (w >> (PACKED_BITS * i)) & PACKED_MASK;
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    let shift = PACKED_BITS * i;
    return (w & ~(PACKED_MASK << shift)) | ((e & PACKED_MASK) << shift);
}

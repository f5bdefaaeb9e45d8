// Lane layout for 16-bit elements packed two per u32 word, low half first: a vec4<u32> Vector
// holds 8 elements, as two groups, the low halves (elements 0, 2, 4, 6) and the high halves
// (1, 3, 5, 7), each element in the low 16 bits of one Lanes component. Splitting and joining
// cost a mask and a shift per word. Used with shared/words_indexed.wgsl and
// shared/lanes_like_words.wgsl.

const GROUPS: u32 = 2u;
// Element i of a group is element group_offset(g) + i * LANE_STEP of its Vector.
const LANE_STEP: u32 = 2u;

fn group_offset(g: u32) -> u32 {
    return g;
}

fn group(v: Vector, g: u32) -> Lanes {
    return (v >> Lanes(16u * g)) & Lanes(0xffffu);
}

fn with_group(v: Vector, g: u32, l: Lanes) -> Vector {
    let shift = Lanes(16u * g);
    return (v & ~(Lanes(0xffffu) << shift)) | ((l & Lanes(0xffffu)) << shift);
}

fn word_element(w: Word, i: u32) -> Element {
    return (w >> (16u * i)) & 0xffffu;
}

fn with_word_element(w: Word, i: u32, e: Element) -> Word {
    let shift = 16u * i;
    return (w & ~(0xffffu << shift)) | ((e & 0xffffu) << shift);
}

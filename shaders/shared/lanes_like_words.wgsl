// Register access for the layouts whose Lanes value has a Vector's type and whose Element a
// Word's (all on u32 words, and the native 64-bit types): a lane is read and written like a word.

fn lane(l: Lanes, i: u32) -> Element {
    return vector_word(l, i);
}

fn with_lane(l: Lanes, i: u32, e: Element) -> Lanes {
    return with_vector_word(l, i, e);
}

// Lane access for representations with one element per word (Word == Bits).

fn word_lane(w: Word, i: u32) -> Bits {
    return w;
}

fn with_lane(w: Word, i: u32, b: Bits) -> Word {
    return b;
}

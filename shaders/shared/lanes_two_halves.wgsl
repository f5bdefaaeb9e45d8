// Lane access for 16-bit elements packed two per u32 word, low half first.

fn word_lane(w: Word, i: u32) -> Bits {
    return (w >> (16u * i)) & 0xffffu;
}

fn with_lane(w: Word, i: u32, b: Bits) -> Word {
    let shift = 16u * i;
    return (w & ~(0xffffu << shift)) | ((b & 0xffffu) << shift);
}

// Storage access for representations whose Vector is a WGSL vector of Words: the 32-bit
// types, the native 64-bit types and the 16-bit types packed in u32 words. Their Lanes and
// Element have the types of Vector and Word, and splat fills every component.

fn vector_word(v: Vector, j: u32) -> Word {
    return v[j];
}

fn with_vector_word(v: Vector, j: u32, w: Word) -> Vector {
    var out = v;
    out[j] = w;
    return out;
}

fn splat(e: Element) -> Lanes {
    return Lanes(e);
}

// Bindings of X for a kernel that overwrites X (the driver's {{IO}}): one read_write binding
// per view, since WebGPU forbids binding one range both read-only and writable in a dispatch.

@group(0) @binding(1) var<storage, read_write> x: array<Vector>;
@group(0) @binding(3) var<storage, read_write> x_words: array<Word>;

fn load_x(v: u32) -> Vector {
    return x[v];
}

fn store_y(v: u32, value: Vector) {
    x[v] = value;
}

fn load_x_word(i: u32) -> Word {
    return x_words[i];
}

fn load_y_word(i: u32) -> Word {
    return x_words[i];
}

fn store_y_word(i: u32, w: Word) {
    x_words[i] = w;
}

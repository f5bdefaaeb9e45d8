// Bindings of X and Y for a kernel that writes a separate Y (the driver's {{IO}}).

@group(0) @binding(1) var<storage, read> x: array<Vector>;
@group(0) @binding(2) var<storage, read_write> y: array<Vector>;
@group(0) @binding(3) var<storage, read> x_words: array<Word>;
@group(0) @binding(4) var<storage, read_write> y_words: array<Word>;

fn load_x(v: u32) -> Vector {
    return x[v];
}

fn store_y(v: u32, value: Vector) {
    y[v] = value;
}

fn load_x_word(i: u32) -> Word {
    return x_words[i];
}

fn load_y_word(i: u32) -> Word {
    return y_words[i];
}

fn store_y_word(i: u32, w: Word) {
    y_words[i] = w;
}

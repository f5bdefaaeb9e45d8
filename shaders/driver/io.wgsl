// Bindings of X and Y (the driver's {{IO}}), with placeholders of their own:
//   {{X_ACCESS}}    `read` where the kernel writes a separate Y; `read_write` where it overwrites
//                   X, since WebGPU forbids binding one range both read-only and writable in a
//                   dispatch (X's views are then also Y's)
//   {{Y_BINDINGS}}  Y's own views (io_separate_y.wgsl), or nothing in place
//   {{Y}}           what Y is written through: `y`, or `x` in place

@group(0) @binding(1) var<storage, {{X_ACCESS}}> x: array<Vector>;
@group(0) @binding(3) var<storage, {{X_ACCESS}}> x_words: array<Word>;
{{Y_BINDINGS}}

fn load_x(v: u32) -> Vector {
    return x[v];
}

fn store_y(v: u32, value: Vector) {
    {{Y}}[v] = value;
}

fn load_x_word(i: u32) -> Word {
    return x_words[i];
}

fn load_y_word(i: u32) -> Word {
    return {{Y}}_words[i];
}

fn store_y_word(i: u32, w: Word) {
    {{Y}}_words[i] = w;
}

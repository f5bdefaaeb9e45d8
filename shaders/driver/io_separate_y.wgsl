// Y's own views, where the kernel writes a separate Y (io.wgsl's {{Y_BINDINGS}}).
@group(0) @binding(2) var<storage, read_write> y: array<Vector>;
@group(0) @binding(4) var<storage, read_write> y_words: array<Word>;

// Rows of the kernel over an axis (driver/axis.wgsl, whose functions these call) too long for
// one invocation or one workgroup, in chunks: each chunk's top and sums go to scratch buffers
// (bindings 3 and 4) for the dispatches after it.
//   vector_chunk_*  on CPU adapters, rows along the last axis of a multiple of four elements: an
//                   invocation a chunk of params.chunk elements, read a vector at a time, in three
//                   dispatches (two for Hardmax): vector_chunk_tops, vector_chunk_sums (against
//                   the row's maximum, joined from every chunk's top), vector_chunk_results; no
//                   workgroup barrier, which makes a kernel a coroutine on llvmpipe (a row of 2^16
//                   ran at 0.06 of the copy kernel a workgroup a row);
//   strided_chunk_* on CPU adapters, rows along another axis (inner a multiple of four) that
//                   strided_vectors does not take: an invocation a chunk of four neighbouring
//                   rows, element i of the four read as one vector, in the same three dispatches
//                   and with the same records a row as vector_chunk_* (over axis 0 of [2^16, 64],
//                   a workgroup a row read every cache line of the tensor for each row);
//   held_chunk_*    the other rows longer than a workgroup holds (every long row on a GPU): a
//                   workgroup a chunk of HELD_CHUNK elements, held in registers, X read twice:
//                   held_chunk_tops (the chunk's top, and its sums against its own maximum),
//                   held_chunk_join (a workgroup a row: the row's top, and its sums from its
//                   chunks', each rescaled once by e^(the chunk's maximum - the row's), into the
//                   row's first chunk's records), held_chunk_results (X read again; Hardmax
//                   reads only the records). A row takes as many workgroups as it has chunks,
//                   where row_segments gave it one and read it three times.
// CPU twin: src/cpu/axis.rs (the results; how the sums are split and joined is the kernel's).

// What the vector_chunk_* dispatches pass on, per chunk of each row: its top (nan 0 or 1) and
// its sums.
struct ChunkTop {
    order: i32,
    first: u32,
    first_nan: u32,
    nan: u32,
}

@group(0) @binding(3) var<storage, read_write> chunk_tops: array<ChunkTop>;
@group(0) @binding(4) var<storage, read_write> chunk_sums: array<SumsRecord>;

// Every binding of the chunked entry points is in each one's layout, so that one bind group
// serves all of a row's dispatches: the scratch here, X and Y as each family binds them.
fn chunk_scratch_bindings() {
    _ = arrayLength(&chunk_tops);
    _ = arrayLength(&chunk_sums);
}

fn every_chunk_binding() {
    _ = arrayLength(&x_vectors);
    _ = arrayLength(&y_vectors);
    chunk_scratch_bindings();
}

// The chunk an invocation of vector_chunk_* takes: its number (its row's chunks first), its
// vectors [first, end) (none past the last row), the index in the row of its first element, and
// the number of its row's first chunk.
struct VectorChunk {
    number: u32,
    first: u32,
    end: u32,
    start: u32,
    first_chunk: u32,
}

// The number of an invocation of vector_chunk_* or strided_chunk_* (AXIS_WORKGROUP a
// workgroup), whose every binding it names.
fn chunk_invocation(group: vec3<u32>, local: u32) -> u32 {
    every_chunk_binding();
    return axis_invocation(group, local);
}

fn vector_chunk_of(group: vec3<u32>, local: u32) -> VectorChunk {
    let number = chunk_invocation(group, local);
    let row = number / params.chunks;
    let start = number % params.chunks * params.chunk;
    let end = select(start, min(start + params.chunk, params.n), row < params.rows);
    let row_first = row * (params.n / 4u);
    return VectorChunk(number, row_first + start / 4u, row_first + end / 4u, start, number - number % params.chunks);
}

// The top of the row chunk c is of, joined from every chunk's in `chunk_tops` (the first chunk
// with the largest order holds the row's first maximum).
fn row_top_of_chunks(c: VectorChunk) -> Top {
    var order = -ORDER_INFINITY - 1;
    var first = 0u;
    var first_nan = params.n;
    for (var k = 0u; k < params.chunks; k++) {
        let chunk_top = chunk_tops[c.first_chunk + k];
        first = select(first, chunk_top.first, chunk_top.order > order);
        order = max(order, chunk_top.order);
        first_nan = min(first_nan, chunk_top.first_nan);
    }
    return Top(vec4(order), vec4(first), vec4(first_nan < params.n), vec4(first_nan));
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn vector_chunk_tops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = vector_chunk_of(group, local);
    if c.end == c.first {
        return;
    }
    let top = vectors_top(c.first, c.end, c.start);
    chunk_tops[c.number] = ChunkTop(top.order.x, top.first.x, top.first_nan.x, select(0u, 1u, top.nan.x));
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn vector_chunk_sums(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = vector_chunk_of(group, local);
    if c.end == c.first {
        return;
    }
    let sums = vectors_sums(c.first, c.end, row_maximum(row_top_of_chunks(c)));
    chunk_sums[c.number] = record_of(sums);
}

// The chunk's results, from its row's top and sums joined from every chunk's, in the chunks'
// order (so every chunk of a row joins the same sums).
@compute @workgroup_size(AXIS_WORKGROUP)
fn vector_chunk_results(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = vector_chunk_of(group, local);
    if c.end == c.first {
        return;
    }
    var sums = no_sums();
    if KIND != HARDMAX {
        for (var k = 0u; k < params.chunks; k++) {
            sums = joined_sums(sums, sums_of(chunk_sums[c.first_chunk + k]));
        }
    }
    store_vectors_results(c.first, c.end, c.start, row_top_of_chunks(c), sums);
}

// The chunk an invocation of strided_chunk_* takes: four neighbouring rows from first_row (the
// axis not the last, inner a multiple of four, so that element i of the four is one vector),
// their elements [start, end) (none past the last row), the vector of element `start`, the
// vectors between elements i and i + 1, and the chunk's number in each row.
struct StridedChunk {
    chunk: u32,
    first_row: u32,
    start: u32,
    end: u32,
    first_vector: u32,
    stride: u32,
}

fn strided_chunk_of(group: vec3<u32>, local: u32) -> StridedChunk {
    // Neighbouring invocations take neighbouring rows' chunk k, so that they read neighbouring
    // vectors (rows is a multiple of four). Where 16 quads lie side by side (inner a multiple of
    // 64), invocation q of each 16 takes quad q % 8 * 2 + q / 8: llvmpipe runs eight invocations
    // as one batch of lanes, and its batches one after another; so each batch reads every
    // other vector of the 16 (every cache line of their element i, in turn) and the next reads
    // the others, found in cache, where each batch read half the lines and the next batch read
    // the rest again from memory (over axis 0 of [2^16, 64], Hardmax 0.71-0.74 -> 0.79-0.82 of
    // the copy kernel, Softmax 0.28 -> 0.30-0.33).
    let number = chunk_invocation(group, local);
    let quads = params.rows / 4u;
    let q = number % quads;
    let interleaved = q - q % 16u + q % 8u * 2u + q % 16u / 8u;
    let first_row = select(q, interleaved, params.inner % 64u == 0u) * 4u;
    let chunk = number / quads;
    let start = chunk * params.chunk;
    let end = select(start, min(start + params.chunk, params.n), chunk < params.chunks);
    let stride = params.inner / 4u;
    let row_first = (first_row / params.inner * params.n * params.inner + first_row % params.inner) / 4u;
    return StridedChunk(chunk, first_row, start, end, row_first + start * stride, stride);
}

// Where the records of chunk k of the row in lane `lane` sit: a row's chunks in order, as the
// vector chunks' (a row's number times its chunks, plus k).
fn strided_record(c: StridedChunk, lane: u32, k: u32) -> u32 {
    return (c.first_row + lane) * params.chunks + k;
}

// The tops of the four rows of c, a row a lane, joined from every chunk's (the first chunk with
// the largest order holds the row's first maximum).
fn strided_rows_top(c: StridedChunk) -> Top {
    var order = vec4(-ORDER_INFINITY - 1);
    var first = vec4(0u);
    var first_nan = vec4(params.n);
    for (var k = 0u; k < params.chunks; k++) {
        let t = array(chunk_tops[strided_record(c, 0u, k)], chunk_tops[strided_record(c, 1u, k)],
            chunk_tops[strided_record(c, 2u, k)], chunk_tops[strided_record(c, 3u, k)]);
        let chunk_order = vec4(t[0].order, t[1].order, t[2].order, t[3].order);
        first = select(first, vec4(t[0].first, t[1].first, t[2].first, t[3].first), chunk_order > order);
        order = max(order, chunk_order);
        first_nan = min(first_nan, vec4(t[0].first_nan, t[1].first_nan, t[2].first_nan, t[3].first_nan));
    }
    return Top(order, first, first_nan < vec4(params.n), first_nan);
}

// The vector of element i of c's four rows.
fn strided_vector(c: StridedChunk, i: u32) -> u32 {
    return c.first_vector + (i - c.start) * c.stride;
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn strided_chunk_tops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = strided_chunk_of(group, local);
    if c.end == c.start {
        return;
    }
    var top = no_top(params.n);
    for (var i = c.start; i < c.end; i++) {
        top = seen_in_rows(top, load_vector(strided_vector(c, i)), vec4(i), vec4(true));
    }
    for (var lane = 0u; lane < 4u; lane++) {
        chunk_tops[strided_record(c, lane, c.chunk)] =
            ChunkTop(top.order[lane], top.first[lane], top.first_nan[lane], select(0u, 1u, top.nan[lane]));
    }
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn strided_chunk_sums(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = strided_chunk_of(group, local);
    if c.end == c.start {
        return;
    }
    let m = row_maximum(strided_rows_top(c));
    var sums = no_sums();
    for (var i = c.start; i < c.end; i++) {
        sums = summed(sums, load_vector(strided_vector(c, i)), m, vec4(true));
    }
    for (var lane = 0u; lane < 4u; lane++) {
        chunk_sums[strided_record(c, lane, c.chunk)] = record_of(lane_of(sums, lane));
    }
}

// The chunk's results, from its rows' tops and sums joined from every chunk's, in the chunks'
// order (so every chunk of a row joins the same sums).
@compute @workgroup_size(AXIS_WORKGROUP)
fn strided_chunk_results(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = strided_chunk_of(group, local);
    if c.end == c.start {
        return;
    }
    let top = strided_rows_top(c);
    if KIND == HARDMAX {
        let marked = select(top.first, top.first_nan, top.nan);
        for (var i = c.start; i < c.end; i++) {
            store_vector(strided_vector(c, i), select(Compute(0.0), Compute(1.0), marked == vec4(i)));
        }
        return;
    }
    var sums = no_sums();
    for (var k = 0u; k < params.chunks; k++) {
        let r = array(chunk_sums[strided_record(c, 0u, k)], chunk_sums[strided_record(c, 1u, k)],
            chunk_sums[strided_record(c, 2u, k)], chunk_sums[strided_record(c, 3u, k)]);
        let chunk = Sums(vec4(r[0].at_max, r[1].at_max, r[2].at_max, r[3].at_max),
            Compensated(vec4(r[0].sum, r[1].sum, r[2].sum, r[3].sum),
                vec4(r[0].compensation, r[1].compensation, r[2].compensation, r[3].compensation)));
        sums = joined_sums(sums, chunk);
    }
    let row = finished(top, sums);
    for (var i = c.start; i < c.end; i++) {
        let v = strided_vector(c, i);
        store_vector(v, results(load_vector(v), row));
    }
}

// A held chunk: elements [start, end) of a row that one workgroup holds in registers, the row's
// element 0 at base; at most HELD_CHUNK elements: ROW_WORKGROUP invocations, four lanes and
// CACHED_CHUNKS vectors each, neighbouring invocations reading neighbouring elements (as
// row_segments holds a row of up to HELD_CHUNK).
struct Held {
    start: u32,
    end: u32,
    base: vec4<u32>,
}

const HELD_CHUNK: u32 = ROW_WORKGROUP * 4u * CACHED_CHUNKS;

fn held_of(row: u32, start: u32) -> Held {
    let base = vec4((row / params.inner) * params.n * params.inner + row % params.inner);
    return Held(start, min(start + HELD_CHUNK, params.n), base);
}

// The row indices of an invocation's k-th vector of h.
fn held_lanes(h: Held, k: u32, local: u32) -> vec4<u32> {
    return vec4(h.start + (k * ROW_WORKGROUP + local) * 4u) + vec4(0u, 1u, 2u, 3u);
}

// An invocation's elements of h.
fn held_read(h: Held, local: u32) -> array<Compute, CACHED_CHUNKS> {
    var v: array<Compute, CACHED_CHUNKS>;
    for (var k = 0u; k < CACHED_CHUNKS; k++) {
        let i = held_lanes(h, k, local);
        v[k] = load(h.base + i * vec4(params.inner), i < vec4(h.end));
    }
    return v;
}

fn held_top(h: Held, local: u32, v: array<Compute, CACHED_CHUNKS>) -> Top {
    var top = no_top(params.n);
    for (var k = 0u; k < CACHED_CHUNKS; k++) {
        let i = held_lanes(h, k, local);
        top = seen(top, v[k], i, i < vec4(h.end));
    }
    return top;
}

fn held_sums(h: Held, local: u32, v: array<Compute, CACHED_CHUNKS>, m: Compute) -> Sums {
    var sums = no_sums();
    for (var k = 0u; k < CACHED_CHUNKS; k++) {
        sums = summed(sums, v[k], m, held_lanes(h, k, local) < vec4(h.end));
    }
    return sums;
}

fn store_held_vector(h: Held, k: u32, local: u32, value: Compute) {
    let i = held_lanes(h, k, local);
    let index = h.base + i * vec4(params.inner);
    if PAIRED_STORES && params.inner == 1u && params.n % 2u == 0u {
        store_quad(index, i < vec4(h.end), value);
    } else {
        store_lanes(index, i < vec4(h.end), value);
    }
}

// Hardmax's marks for h, from its row's top.
fn store_held_marks(h: Held, local: u32, row_top: Top) {
    let marked = select(row_top.first, row_top.first_nan, row_top.nan);
    for (var k = 0u; k < CACHED_CHUNKS; k++) {
        store_held_vector(h, k, local, select(Compute(0.0), Compute(1.0), marked == held_lanes(h, k, local)));
    }
}

fn store_held_results(h: Held, local: u32, v: array<Compute, CACHED_CHUNKS>, row: Row) {
    for (var k = 0u; k < CACHED_CHUNKS; k++) {
        store_held_vector(h, k, local, results_branching(v[k], row));
    }
}

fn every_held_chunk_binding() {
    _ = arrayLength(&x);
    _ = arrayLength(&y);
    chunk_scratch_bindings();
}

// A held chunk (params.chunk is HELD_CHUNK) and the number of its row's first chunk.
struct HeldChunk {
    held: Held,
    first_chunk: u32,
}

fn held_chunk_of(number: u32) -> HeldChunk {
    let row = number / params.chunks;
    let first_chunk = number - number % params.chunks;
    return HeldChunk(held_of(row, (number - first_chunk) * HELD_CHUNK), first_chunk);
}

fn held_chunk_number(group: vec3<u32>) -> u32 {
    opaque_zero = params.zero;
    every_held_chunk_binding();
    return group.y * params.groups_x + group.x;
}

// top with a chunk's top seen after it (the earlier chunk keeps a tie).
fn with_chunk_top(top: Top, t: ChunkTop) -> Top {
    let above = vec4(t.order) > top.order;
    return Top(select(top.order, vec4(t.order), above), select(top.first, vec4(t.first), above),
        top.nan | vec4(t.nan != 0u), min(top.first_nan, vec4(t.first_nan)));
}

fn chunk_top_of(top: Top) -> ChunkTop {
    return ChunkTop(top.order.x, top.first.x, top.first_nan.x, select(0u, 1u, top.nan.x));
}

fn top_of_chunk(t: ChunkTop) -> Top {
    return Top(vec4(t.order), vec4(t.first), vec4(t.nan != 0u), vec4(t.first_nan));
}

// sums with a chunk's sums (against the chunk's own maximum, its top t) added for the row's
// maximum m. The chunk that holds the row's maximum adds its sums as they are; every other one
// is rescaled once by e^(its maximum - m) = 2^k (s + s_err) (term), its whole sum (times
// OTHERS_SCALE) being the row's others, the product with s kept with its error, scaled in two
// exact steps (k down to -170: the product is at least 2^96 2^-170); a chunk below TERM_FLOOR of m
// counts as vanished terms. A chunk of -inf alone has no terms; a row holding NaN or +inf is NaN
// throughout anyway. In lane x alone (the others' sums stay 0, as lanes_summed adds the lanes).
fn with_chunk_sums(sums: Sums, t: ChunkTop, record: SumsRecord, m: Compute) -> Sums {
    let defined = vec4((t.order > -ORDER_INFINITY) & (t.order < ORDER_INFINITY) & (t.nan == 0u), false, false, false);
    let chunk = sums_of(record);
    let d = difference(select(Compute(0.0), from_order(vec4(t.order)), defined.x), m);
    let holds_max = defined & (d.hi == Compute(0.0));
    var next = sums;
    next.at_max += select(Compute(0.0), chunk.at_max, holds_max);
    next.others = joined(next.others, Compensated(select(Compute(0.0), chunk.others.sum, holds_max),
        select(Compute(0.0), chunk.others.compensation, holds_max)));
    let below = defined & !holds_max;
    let e = term(d.hi, d.lo);
    let counted = (d.hi > Compute(TERM_FLOOR)) & below;
    let head = two_sum(chunk.at_max * OTHERS_SCALE, chunk.others.sum);
    let tail = head.e + chunk.others.compensation;
    let p = rounded_product(head.s, e.s);
    let p_err = product_error(head.s, e.s, p) + (head.s * e.s_err + tail * e.s);
    let first = power_of_two(max(e.k, Compute(-100.0)));
    let second = power_of_two(min(e.k + 100.0, Compute(0.0)));
    next.others = added(next.others, select(Compute(0.0), (p * first) * second, counted));
    next.others.compensation += select(Compute(0.0), (p_err * first) * second, counted);
    if KIND == LOG_SOFTMAX {
        next.others.compensation += vanished_mark(below & !counted, from_order(vec4(t.order)));
    }
    return next;
}

@compute @workgroup_size(ROW_WORKGROUP)
fn held_chunk_tops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let number = held_chunk_number(group);
    // Uniform across the workgroup: every invocation returns, or none (barriers follow).
    if number >= params.rows * params.chunks {
        return;
    }
    let h = held_chunk_of(number).held;
    let v = held_read(h, local);
    let chunk_top = workgroup_top(held_top(h, local, v), local, params.n, ROW_WORKGROUP);
    var sums = no_sums();
    if KIND != HARDMAX {
        sums = workgroup_sums(held_sums(h, local, v, row_maximum(chunk_top)), local, ROW_WORKGROUP);
    }
    if local == 0u {
        chunk_tops[number] = chunk_top_of(chunk_top);
        chunk_sums[number] = record_of(sums);
    }
}

// A workgroup a row: its top and sums, from its chunks', into its first chunk's records (each
// invocation joins every ROW_WORKGROUP-th chunk in order, then the workgroup joins them as
// row_segments joins its invocations).
@compute @workgroup_size(ROW_WORKGROUP)
fn held_chunk_join(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let row = held_chunk_number(group);
    if row >= params.rows {
        return;
    }
    let first_chunk = row * params.chunks;
    var top = no_top(params.n);
    for (var j = local; j < params.chunks; j += ROW_WORKGROUP) {
        top = with_chunk_top(top, chunk_tops[first_chunk + j]);
    }
    let row_top = workgroup_top(top, local, params.n, ROW_WORKGROUP);
    var sums = no_sums();
    if KIND != HARDMAX {
        let m = row_maximum(row_top);
        for (var j = local; j < params.chunks; j += ROW_WORKGROUP) {
            sums = with_chunk_sums(sums, chunk_tops[first_chunk + j], chunk_sums[first_chunk + j], m);
        }
        sums = workgroup_sums(sums, local, ROW_WORKGROUP);
    }
    if local == 0u {
        chunk_tops[first_chunk] = chunk_top_of(row_top);
        chunk_sums[first_chunk] = record_of(sums);
    }
}

@compute @workgroup_size(ROW_WORKGROUP)
fn held_chunk_results(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let number = held_chunk_number(group);
    if number >= params.rows * params.chunks {
        return;
    }
    let c = held_chunk_of(number);
    let row_top = top_of_chunk(chunk_tops[c.first_chunk]);
    if KIND == HARDMAX {
        store_held_marks(c.held, local, row_top);
        return;
    }
    let row_sums = sums_of(chunk_sums[c.first_chunk]);
    store_held_results(c.held, local, held_read(c.held, local), finished(row_top, row_sums));
}

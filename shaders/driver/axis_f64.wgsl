// The kernel over an axis for f64 elements: Softmax, LogSoftmax and Hardmax (src/ops/axis.rs) on
// both f64 paths, native f64 (compute/f64.wgsl) and the software one on u32 pairs
// (compute/f64_soft.wgsl), where an Element is an F64. The tensor is seen as rows (src/axis.rs):
// element i of row r is at (r / inner * n + i) * inner + r % inner. Two forms:
//   row_per_invocation  short rows, an invocation each, reading each row three times (its
//                       maximum; its sum; its results); neighbouring invocations read
//                       neighbouring elements where the axis is not the last (no transpose)
//   chunk_*             longer rows in chunks of params.chunk elements, a workgroup each, a few
//                       elements an invocation, in four dispatches: chunk_tops (each chunk's
//                       maximum, into `tops`), chunk_partial_sums (the row's maximum from
//                       `tops`; each invocation's sum of terms, into `sums`), chunk_sums (an
//                       invocation a chunk joins its partial sums), chunk_results (the row's
//                       maximum and sum from every chunk's, then the chunk's results); Hardmax
//                       takes the first and the last
// Why so: llvmpipe stops an invocation after 65535 loop iterations in all, each step of the
// software path's interpreter counting; a browser's watchdog stops a dispatch that runs for
// seconds; and a workgroup barrier makes a kernel a coroutine on llvmpipe, whose compiler took
// 18 s over a kernel with barriers beside the software path's math (1 s without), so the one
// join with barriers (chunk_tops's) has no math beside it.
// CPU twin: src/cpu/axis_f64.rs, whose steps are recorded into d_softmax_term, d_compensated,
// d_softmax_quotient, d_log_of_sum and d_log_softmax_difference (math/f64.wgsl's
// {{F64_FUNCTIONS}}), called through f64_call: a shader compiler inlines every call site of the
// software path's interpreter, so each loop here makes one call a step (its bound hidden behind
// opaque_zero, so that no compiler unrolls it).
//
// Placeholders, filled by src/kernel/axis.rs:
//   {{KIND}}          0 Softmax, 1 LogSoftmax, 2 Hardmax
//   {{WORKGROUP}}     invocations per workgroup
//   {{INPUT_ACCESS}}  X's access: read, or read_write where X and Y are disjoint ranges of one
//                     buffer (see driver/axis.wgsl)
//
// The numbers, per row: its maximum m chosen on the values (the first of equal ones; NaN apart);
// the terms e^(x - m), x - m split exactly, summed with Neumaier's compensation, partial sums
// joined by the same step; Softmax's term over the rounded sum with its quotient corrected
// by the residual; LogSoftmax's (x - m) - log(S), log(S) as log1p of the other terms' sum where
// S < 2. A row holding NaN or +inf, or only -inf, is NaN throughout; -inf beside finite values
// gives 0 and -inf; LogSoftmax at a maximum whose other terms all vanished below 2^-1075 is
// -0.0 (0 minus a positive number too small for f64).

const KIND: u32 = {{KIND}}u;
const SOFTMAX: u32 = 0u;
const LOG_SOFTMAX: u32 = 1u;
const HARDMAX: u32 = 2u;
const AXIS_F64_WORKGROUP: u32 = {{WORKGROUP}}u;
const AXIS_ZERO: F64 = {{F64 0.0}};
const AXIS_ONE: F64 = {{F64 1.0}};
const AXIS_MAX: F64 = {{F64 1.7976931348623157e308}};
const AXIS_LOWEST: F64 = {{F64 -1.7976931348623157e308}};

// `params`: driver/axis_params.wgsl.
@group(0) @binding(1) var<storage, {{INPUT_ACCESS}}> x: array<Element>;
@group(0) @binding(2) var<storage, read_write> y: array<Element>;

// What the chunk_* dispatches pass on, per chunk of each row.
struct ChunkTop {
    value: F64,
    first: u32,
    first_nan: u32,
}

struct ChunkSums {
    sum: F64,
    compensation: F64,
    vanished: u32,
    pad: u32,
}

@group(0) @binding(3) var<storage, read_write> tops: array<ChunkTop>;
@group(0) @binding(4) var<storage, read_write> sums: array<ChunkSums>;

var<private> opaque_zero: u32;

var<workgroup> shared_value: array<F64, AXIS_F64_WORKGROUP>;
var<workgroup> shared_first: array<u32, AXIS_F64_WORKGROUP>;
var<workgroup> shared_first_nan: array<u32, AXIS_F64_WORKGROUP>;

// A special value from its bits and its f32 (d_from_bits: the native path takes the f32, which
// comes through opaque_zero because a constant bitcast to NaN is a shader-creation error in
// Tint).
fn special(bits: vec2<u32>, f32_bits: u32) -> F64 {
    return d_from_bits(bits, bitcast<f32>(f32_bits | opaque_zero));
}

// A row's largest value so far (first: its index, n where there is none) and its first NaN's
// index (n where none).
struct Top {
    value: F64,
    first: u32,
    first_nan: u32,
}

fn no_top(n: u32) -> Top {
    return Top(AXIS_ZERO, n, n);
}

// top with b seen too: b's value where larger, or equal and first (-0.0 equals +0.0, as max
// does); the first NaN of both.
fn top_joined(top: Top, b: Top, n: u32) -> Top {
    var joined = Top(top.value, top.first, min(top.first_nan, b.first_nan));
    let larger = b.first != n && (top.first == n || d_greater(b.value, top.value));
    if larger || (b.first != n && !d_greater(top.value, b.value) && b.first < top.first) {
        joined.value = b.value;
        joined.first = b.first;
    }
    return joined;
}

// The top of elements [first_index, past_last) of the row at `base`, every `stride`-th.
fn top_over(base: u32, first_index: u32, past_last: u32, stride: u32) -> Top {
    let n = params.n;
    var top = no_top(n);
    for (var i = first_index; i < past_last; i += stride) {
        let v = x[base + i * params.inner];
        if d_is_nan(v) {
            top.first_nan = min(top.first_nan, i);
        } else {
            top = top_joined(top, Top(v, i, n), n);
        }
    }
    return top;
}

// The workgroup's tops joined in workgroup memory, into invocation 0's (called by every
// invocation: barriers). The one join with barriers: they make a kernel a coroutine on llvmpipe,
// whose compiler took 18 s over one with the software path's math beside them, 1 s without.
fn workgroup_top(top: Top, local: u32) -> Top {
    let n = params.n;
    shared_value[local] = top.value;
    shared_first[local] = top.first;
    shared_first_nan[local] = top.first_nan;
    for (var half = AXIS_F64_WORKGROUP / 2u; half > 0u; half /= 2u) {
        workgroupBarrier();
        if local < half {
            let other = local + half;
            let joined = top_joined(Top(shared_value[local], shared_first[local], shared_first_nan[local]),
                Top(shared_value[other], shared_first[other], shared_first_nan[other]), n);
            shared_value[local] = joined.value;
            shared_first[local] = joined.first;
            shared_first_nan[local] = joined.first_nan;
        }
    }
    return Top(shared_value[0], shared_first[0], shared_first_nan[0]);
}

// A row's sum of terms so far with Neumaier's compensation, and whether a term of a finite
// element vanished (rounded to 0).
struct Sums {
    sum: F64,
    compensation: F64,
    vanished: bool,
}

fn no_sums() -> Sums {
    return Sums(AXIS_ZERO, AXIS_ZERO, false);
}

// The sums of the terms of elements [first_index, past_last) of the row at `base`, every `stride`-th, for the
// row's maximum m: each element's term, then the compensation, one f64_call a step.
fn sums_over(base: u32, first_index: u32, past_last: u32, stride: u32, m: F64) -> Sums {
    var s = no_sums();
    for (var i = first_index; i < past_last; i += stride) {
        let v = x[base + i * params.inner];
        var term = AXIS_ZERO;
        for (var step = 0u; step < 2u + opaque_zero; step++) {
            let first = step == 0u;
            let r = f64_call(select(F64_FN_COMPENSATED, F64_FN_SOFTMAX_TERM, first), select(s.compensation, v, first),
                select(s.sum, m, first), term);
            if first {
                term = r;
            } else {
                s.compensation = r;
            }
        }
        s.sum = d_add(s.sum, term);
        s.vanished = s.vanished || (!d_greater(term, AXIS_ZERO) && !d_less(v, AXIS_LOWEST));
    }
    return s;
}

// a and b's sums joined.
fn sums_joined(a: Sums, b: Sums) -> Sums {
    let compensation = d_add(f64_call(F64_FN_COMPENSATED, a.compensation, a.sum, b.sum), b.compensation);
    return Sums(d_add(a.sum, b.sum), compensation, a.vanished || b.vanished);
}

// A row holding NaN or +inf, or only -inf, is NaN throughout.
fn undefined_row(top: Top) -> bool {
    return top.first_nan < params.n || d_greater(top.value, AXIS_MAX) || d_less(top.value, AXIS_LOWEST);
}

// The row's maximum for its terms: 0 in an undefined row (its results are NaN whatever it is),
// so that the sums stay finite.
fn row_maximum(top: Top) -> F64 {
    return select(top.value, AXIS_ZERO, undefined_row(top));
}

// Writes the results of elements [first_index, past_last) of the row at `base`, every `stride`-th, from the
// row's top and sums. LogSoftmax takes log of the sum first, in the loop's first step (one
// f64_call a step).
fn store_results(base: u32, first_index: u32, past_last: u32, stride: u32, top: Top, s: Sums) {
    let n = params.n;
    let m = row_maximum(top);
    let undefined = undefined_row(top);
    let nan = special(vec2(0u, 0x7ff80000u), 0x7fc00000u);
    if KIND == HARDMAX {
        let marked = select(top.first, top.first_nan, top.first_nan < n);
        for (var i = first_index; i < past_last; i += stride) {
            y[base + i * params.inner] = select(AXIS_ZERO, AXIS_ONE, i == marked);
        }
        return;
    }
    // LogSoftmax: every other term vanished (the sum is the maximum's 1 alone, with no error to
    // carry): -0.0 at the maximum.
    let others_vanished = s.vanished && !d_greater(s.sum, AXIS_ONE) && !d_greater(s.compensation, AXIS_ZERO)
        && !d_less(s.compensation, AXIS_ZERO);
    let negative_zero = special(vec2(0u, 0x80000000u), 0x80000000u);
    var row_constant = d_add(s.sum, s.compensation);
    var log_pending = KIND == LOG_SOFTMAX;
    var i = first_index;
    loop {
        if i >= past_last {
            break;
        }
        let index = base + i * params.inner;
        let v = x[index];
        var function = F64_FN_SOFTMAX_QUOTIENT;
        if KIND == LOG_SOFTMAX {
            function = select(F64_FN_LOG_SOFTMAX_DIFFERENCE, F64_FN_LOG_OF_SUM, log_pending);
        }
        let r = f64_call(function, select(v, s.sum, log_pending), select(m, s.compensation, log_pending), row_constant);
        if log_pending {
            row_constant = r;
            log_pending = false;
            continue;
        }
        var result = r;
        if KIND == LOG_SOFTMAX {
            result = select(r, negative_zero, others_vanished && !d_greater(m, v));
        }
        y[index] = select(result, nan, undefined);
        i += stride;
    }
}

// Short rows, an invocation each.
@compute @workgroup_size(AXIS_F64_WORKGROUP)
fn row_per_invocation(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    opaque_zero = params.zero;
    let row = (group.y * params.groups_x + group.x) * AXIS_F64_WORKGROUP + local;
    if row >= params.rows {
        return;
    }
    let base = (row / params.inner) * params.n * params.inner + row % params.inner;
    let top = top_over(base, 0u, params.n, 1u);
    var s = no_sums();
    if KIND != HARDMAX {
        s = sums_over(base, 0u, params.n, 1u, row_maximum(top));
    }
    store_results(base, 0u, params.n, 1u, top, s);
}

// Every binding of the chunk_* entry points is in each one's layout, so that one bind group
// serves all three.
fn every_chunk_binding() {
    _ = arrayLength(&x);
    _ = arrayLength(&y);
    _ = arrayLength(&tops);
    _ = arrayLength(&sums);
}

// The chunk a workgroup of chunk_* takes: its row's first element, the chunk's number, its
// elements [start, end) of the row (empty past the last row), and its row's first chunk.
struct Chunk {
    base: u32,
    number: u32,
    start: u32,
    end: u32,
    first_chunk: u32,
}

fn chunk_of(group: vec3<u32>) -> Chunk {
    opaque_zero = params.zero;
    every_chunk_binding();
    let number = group.y * params.groups_x + group.x;
    let row = number / params.chunks;
    let start = number % params.chunks * params.chunk;
    let end = select(start, min(start + params.chunk, params.n), row < params.rows);
    return Chunk((row / params.inner) * params.n * params.inner + row % params.inner, number, start, end,
        number - number % params.chunks);
}

// The top of the row a chunk is of, from every chunk's top in `tops` (each invocation reads them
// all: no barrier, see the top of the file).
fn row_top_of_chunks(c: Chunk) -> Top {
    var top = no_top(params.n);
    for (var k = 0u; k < params.chunks; k++) {
        let chunk_top = tops[c.first_chunk + k];
        top = top_joined(top, Top(chunk_top.value, chunk_top.first, chunk_top.first_nan), params.n);
    }
    return top;
}

@compute @workgroup_size(AXIS_F64_WORKGROUP)
fn chunk_tops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = chunk_of(group);
    let top = workgroup_top(top_over(c.base, c.start + local, c.end, AXIS_F64_WORKGROUP), local);
    if local == 0u && c.end > c.start {
        tops[c.number] = ChunkTop(top.value, top.first, top.first_nan);
    }
}

// Each invocation's sum of its elements' terms, for the row's maximum from every chunk's top,
// into the first rows x chunks x AXIS_F64_WORKGROUP of `sums`.
@compute @workgroup_size(AXIS_F64_WORKGROUP)
fn chunk_partial_sums(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = chunk_of(group);
    if c.end == c.start {
        return;
    }
    let m = row_maximum(row_top_of_chunks(c));
    sums[c.number * AXIS_F64_WORKGROUP + local] =
        packed_sums(sums_over(c.base, c.start + local, c.end, AXIS_F64_WORKGROUP, m));
}

// Each chunk's sum, its invocations' partial sums joined (an invocation a chunk), into `sums`
// after the partial sums.
@compute @workgroup_size(AXIS_F64_WORKGROUP)
fn chunk_sums(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    opaque_zero = params.zero;
    every_chunk_binding();
    let number = (group.y * params.groups_x + group.x) * AXIS_F64_WORKGROUP + local;
    let chunk_count = params.rows * params.chunks;
    if number >= chunk_count {
        return;
    }
    var s = no_sums();
    for (var k = 0u; k < AXIS_F64_WORKGROUP + opaque_zero; k++) {
        s = sums_joined(s, unpacked_sums(sums[number * AXIS_F64_WORKGROUP + k]));
    }
    sums[chunk_count * AXIS_F64_WORKGROUP + number] = packed_sums(s);
}

// The chunk's results, from the row's top and sum joined from every chunk's.
@compute @workgroup_size(AXIS_F64_WORKGROUP)
fn chunk_results(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let c = chunk_of(group);
    if c.end == c.start {
        return;
    }
    let top = row_top_of_chunks(c);
    var s = no_sums();
    if KIND != HARDMAX {
        let chunk_sums_start = params.rows * params.chunks * AXIS_F64_WORKGROUP;
        for (var k = 0u; k < params.chunks; k++) {
            s = sums_joined(s, unpacked_sums(sums[chunk_sums_start + c.first_chunk + k]));
        }
    }
    store_results(c.base, c.start + local, c.end, AXIS_F64_WORKGROUP, top, s);
}

fn packed_sums(s: Sums) -> ChunkSums {
    return ChunkSums(s.sum, s.compensation, select(0u, 1u, s.vanished), 0u);
}

fn unpacked_sums(s: ChunkSums) -> Sums {
    return Sums(s.sum, s.compensation, s.vanished != 0u);
}

// The kernel over an axis: Softmax, LogSoftmax and Hardmax (src/ops/axis.rs), computed in the f32
// arithmetic (compute/f32.wgsl, math/f32.wgsl) for f32, f16 and bf16 elements. The tensor is seen
// as rows (src/axis.rs): element i of row r is at (r / inner * n + i) * inner + r % inner. The
// entry points here read each row three times (its maximum; its sum; its results), but where a
// workgroup holds it:
//   rows               an invocation takes four rows, one per lane of Compute: short rows, and
//                      rows along an axis that is not the last, where neighbouring invocations
//                      read neighbouring elements (no transpose);
//   row_vectors        an invocation takes one row along the last axis whose length is a
//                      multiple of four, four neighbouring elements a lane, each read and
//                      written as one vector (load_vector, store_vector): CPU adapters, which
//                      run a batch of invocations as one thread and gather every word of
//                      `rows` alone;
//   row_run_vectors    row_vectors taking params.rows_an_invocation rows, one after the other
//                      (about a page, where rows are longer than a cache line);
//   strided_vectors    `rows` where four neighbouring rows lie side by side (an axis not the
//                      last, inner a multiple of four), on CPU adapters: the four rows' element
//                      i read and written as one vector;
//   row_segments       a segment of a workgroup's invocations (params.segment of them, a power
//                      of two up to the whole workgroup) takes one row, each invocation four
//                      elements at a time, joined in workgroup memory (workgroup_top,
//                      workgroup_sums); a row of up to 4096 elements is held in registers and
//                      read once. On a GPU a segment has as many invocations as the row has
//                      vectors of four, so that shorter rows leave no invocation idle (a row of
//                      128 used 32 of 256), and rows along the last axis take it however short;
//                      on CPU adapters a segment is the whole workgroup, and longer rows take it
//                      there alone (llvmpipe also stops an invocation after 65535 loop
//                      iterations in all).
// Longer rows go in chunks, driver/axis_chunks.wgsl: on CPU adapters vector_chunk_* (an
// invocation a chunk), on GPUs held_chunk_* (a workgroup a chunk it holds, X read twice).
// CPU twin: src/cpu/axis.rs.
//
// Placeholders, filled by src/kernel/axis.rs:
//   {{KIND}}          0 Softmax, 1 LogSoftmax, 2 Hardmax
//   {{Y_WORD}}        Y's storage word: u32 (f32 elements), atomic<u32> (16-bit elements, two per
//                     word: a word may hold elements of two rows, which two invocations write)
//   {{WORKGROUP}}     invocations per workgroup of `rows`
//   {{ROW_WORKGROUP}} invocations per workgroup of `row_segments` (a power of two)
//   {{CACHED_CHUNKS}} vectors of four elements each invocation of `row_segments` and the
//                     held chunks hold in registers (so HELD_CHUNK, the longest row read once,
//                     is src/kernel/axis.rs's HELD_ROW_MAX)
//   {{PLAIN_BODY}}    false; true for the bench's yardstick alone (`wgpu-act bench`'s plain-body
//                     column): Softmax's and LogSoftmax's function bodies in plain f32, exp(x -
//                     max) summed plainly, then exp(x - max) / sum or (x - max) - log(sum), in
//                     the same entry points
//   {{EXACT_PRODUCTS}} true where `mul` is the exact product on integers (a device that flushes
//                     subnormals): GPU forms then take Softmax's scaling on the float unit where
//                     no lane needs it (results_branching)
//   {{INPUT_ACCESS}}  X's access: read, or read_write where X and Y are disjoint ranges of one
//                     buffer (a framework's pooled allocations): WebGPU cannot bind one buffer
//                     read-only beside writable in one dispatch
// and one of driver/axis_io_*.wgsl defines load(i: vec4<u32>, live: vec4<bool>) -> Compute,
// load_vector(v: u32) -> Compute and store_vector(v: u32, value: Compute) (elements 4v to
// 4v + 3, over X and Y bound again as vectors of four elements),
// store(i: u32, v: f32), and PAIRED_STORES with store_pairs and store_quad, which write two
// elements of one row a word where the elements are 16-bit and no other invocation writes it
// (driver/axis_io_pairs_16.wgsl).
//
// The numbers, per row with maximum m (decided on the bits, as the elementwise kernels decide
// NaN): d = x - m split exactly into d_hi + d_lo (a two-sum), e^d = 2^k (1 + p)(1 + d_lo) from
// exp_parts (p within 2^-29), its mantissa 1 + t kept as a two-sum (s, s_err); the row's sum
// S = (elements at m) + (the others' terms, compensated: Neumaier's), the count apart so that the
// others keep their own precision in rows of 2^20, and the others times 2^96, so that terms down
// to TERM_FLOOR stay normal f32 in one sum; Softmax's result (s + s_err) / S by the device's
// quotient corrected by its residual, then scaled by 2^k in two exact steps (subnormal results
// rounded once, by mul, exact on a device that flushes); LogSoftmax's d - log(S), log(S) as
// log1p of the sum of the other terms where S < 2 (a row one term dominates), else
// j ln2 + log1p(S 2^-j - 1).

const KIND: u32 = {{KIND}}u;
const EXACT_PRODUCTS: bool = {{EXACT_PRODUCTS}};
const SOFTMAX: u32 = 0u;
const LOG_SOFTMAX: u32 = 1u;
const HARDMAX: u32 = 2u;
const AXIS_WORKGROUP: u32 = {{WORKGROUP}}u;
const ROW_WORKGROUP: u32 = {{ROW_WORKGROUP}}u;
const PLAIN_BODY: bool = {{PLAIN_BODY}};
const CACHED_CHUNKS: u32 = {{CACHED_CHUNKS}}u;

// `params`: driver/axis_params.wgsl.
@group(0) @binding(1) var<storage, {{INPUT_ACCESS}}> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> y: array<{{Y_WORD}}>;

var<private> opaque_zero: u32;

// f32_order's value of +inf and of -inf.
const ORDER_INFINITY: i32 = 0x7f800000;

fn from_order(order: vec4<i32>) -> Compute {
    let magnitude = bitcast<vec4<u32>>(abs(order));
    return bitcast<Compute>(magnitude | select(vec4(0u), vec4(0x80000000u), order < vec4(0)));
}

// e^d for d = d_hi + d_lo <= 0 as 2^k (s + s_err): exp_parts' 2^k (1 + p), times 1 + d_lo.
struct Term {
    k: Compute,
    s: Compute,
    s_err: Compute,
}

// The smallest d whose term the sums count: 2^-170, below which 2^20 terms do not reach the
// smallest subnormal (LogSoftmax's result at a maximum, -others, is subnormal where the others
// lie about 2^-150 below it; at 2^-150 a floor lost up to 79 ULP there over a row of 8192).
const TERM_FLOOR: f32 = -117.8;

fn term(d_hi: Compute, d_lo: Compute) -> Term {
    let parts = exp_parts(max(d_hi, Compute(TERM_FLOOR)));
    let t = parts.p + (d_lo + parts.p * d_lo);
    let s = hidden(1.0 + t);
    return Term(parts.k, s, t - (s - 1.0));
}

// x - m as d_hi + d_lo exactly (Knuth's two-sum; hidden so that no compiler folds it), for finite
// x and m; an infinite difference (x and m of opposite signs near f32's largest) has d_lo 0.
struct Difference {
    hi: Compute,
    lo: Compute,
}

fn difference(v: Compute, m: Compute) -> Difference {
    let hi = hidden(v - m);
    let back = hidden(hi - v);
    let lo = (v - (hi - back)) + (-m - back);
    return Difference(hi, select(lo, Compute(0.0), f32_order(absolute(hi)) >= vec4(ORDER_INFINITY)));
}

// log(S) for S = hi + lo >= 1, given others = S - 1 (to its own precision) where S < 2.
fn log_of_sum(hi: Compute, lo: Compute, others: Compute) -> Compute {
    let bits = bitcast<vec4<u32>>(hi);
    let j = Compute(vec4<f32>(bitcast<vec4<i32>>(bits >> vec4(23u)) - vec4(127)));
    let mantissa = bitcast<Compute>((bits & vec4(0x7fffffu)) | vec4(0x3f800000u));
    let scaled_lo = lo * power_of_two(-j);
    let above = j * LN2_HI + (log1p_of_unit((mantissa - 1.0) + scaled_lo) + j * LN2_LO);
    return select(above, log1p_of_unit(others), hi < Compute(2.0));
}

// A row's maximum so far, on the bits (f32_order), whether it holds NaN, and (Hardmax) where
// its first maximum and first NaN are.
struct Top {
    order: vec4<i32>,
    first: vec4<u32>,
    nan: vec4<bool>,
    first_nan: vec4<u32>,
}

fn no_top(n: u32) -> Top {
    return Top(vec4(-ORDER_INFINITY - 1), vec4(0u), vec4(false), vec4(n));
}

// top with elements v (at indices i, where live) seen after it.
fn seen(top: Top, v: Compute, i: vec4<u32>, live: vec4<bool>) -> Top {
    let order = f32_order(v);
    let nan = f32_is_nan(v) & live;
    let above = (order > top.order) & !nan & live;
    return Top(
        select(top.order, order, above),
        select(top.first, i, above),
        top.nan | nan,
        select(top.first_nan, i, nan & !top.nan),
    );
}

// `seen` where a lane is live or its whole row is not (whose results are never stored): for
// Hardmax, whose marks need only the first maximum, with NaN ordered above every value, so
// that a row's first NaN is marked where it has one (nan stays false). Half of `seen`'s work:
// llvmpipe ran Hardmax over rows of 1000 at 0.76 of the copy kernel with `seen`, 0.82 so.
fn seen_in_rows(top: Top, v: Compute, i: vec4<u32>, live_rows: vec4<bool>) -> Top {
    if KIND != HARDMAX {
        return seen(top, v, i, live_rows);
    }
    let bits = bitcast<vec4<i32>>(v);
    let magnitude = bits & vec4(0x7fffffff);
    let order = select(select(magnitude, -magnitude, bits < vec4(0)), vec4(0x7fffffff),
        magnitude > vec4(ORDER_INFINITY));
    return Top(max(top.order, order), select(top.first, i, order > top.order), top.nan, top.first_nan);
}

// A sum kept with its rounding errors (Neumaier's), to its own precision however many terms.
struct Compensated {
    sum: Compute,
    compensation: Compute,
}

fn added(a: Compensated, b: Compute) -> Compensated {
    let sum = hidden(a.sum + b);
    let big = select(b, a.sum, absolute(a.sum) >= absolute(b));
    let small = select(a.sum, b, absolute(a.sum) >= absolute(b));
    return Compensated(sum, a.compensation + ((big - sum) + small));
}

fn joined(a: Compensated, b: Compensated) -> Compensated {
    var sum = added(a, b.sum);
    sum.compensation += b.compensation;
    return sum;
}

// The sums of a row's terms (see the top of the file): the elements at the maximum (terms of 1)
// counted apart, so that the others' sum keeps its own precision (LogSoftmax at the maximum is
// -log1p of it); the others times OTHERS_SCALE, down to TERM_FLOOR (2^-170 of the maximum, 2^-74
// scaled: normal, so a device that flushes keeps them; 2^32 terms of at most 1 stay finite).
struct Sums {
    at_max: Compute,
    others: Compensated,
}

const OTHERS_EXPONENT: f32 = 96.0;
const OTHERS_SCALE: f32 = 0x1p96f;
const OTHERS_UNSCALE: f32 = 0x1p-96f;
// 2^-24, scaled like the others: below it log1p of the others rounds to them.
const OTHERS_TINY_SCALED: f32 = 0x1p-24f * OTHERS_SCALE;

// Sums of one row, lane x's, as workgroup memory and the chunks' scratch (driver/axis_chunks.wgsl)
// hold them.
struct SumsRecord {
    at_max: f32,
    sum: f32,
    compensation: f32,
}

fn record_of(sums: Sums) -> SumsRecord {
    return SumsRecord(sums.at_max.x, sums.others.sum.x, sums.others.compensation.x);
}

fn sums_of(r: SumsRecord) -> Sums {
    return Sums(Compute(r.at_max), Compensated(Compute(r.sum), Compute(r.compensation)));
}

fn no_sums() -> Sums {
    return Sums(Compute(0.0), Compensated(Compute(0.0), Compute(0.0)));
}

fn joined_sums(a: Sums, b: Sums) -> Sums {
    return Sums(a.at_max + b.at_max, joined(a.others, b.others));
}

// Lane c of sums, in every lane.
fn lane_of(sums: Sums, c: u32) -> Sums {
    return Sums(Compute(sums.at_max[c]), Compensated(Compute(sums.others.sum[c]), Compute(sums.others.compensation[c])));
}

// sums with the terms of elements v (where live) added, for the row's maximum m.
fn summed(sums: Sums, v: Compute, m: Compute, live: vec4<bool>) -> Sums {
    var next = sums;
    if PLAIN_BODY {
        next.others.sum += select(Compute(0.0), exp(v - m), live);
        return next;
    }
    let d = difference(v, m);
    let e = term(d.hi, d.lo);
    let at_max = live & (d.hi == Compute(0.0));
    let counted = (d.hi > Compute(TERM_FLOOR)) & live & !at_max;
    // e.k + OTHERS_EXPONENT >= -74 where counted.
    let scale = power_of_two(max(e.k + OTHERS_EXPONENT, Compute(-80.0)));
    next.at_max += select(Compute(0.0), Compute(1.0), at_max);
    next.others = added(next.others, select(Compute(0.0), e.s * scale, counted));
    next.others.compensation += select(Compute(0.0), e.s_err * scale, counted);
    if KIND == LOG_SOFTMAX {
        next.others.compensation += vanished_mark(live & !counted & !at_max, v);
    }
    return next;
}

// The term of a finite element (or chunk maximum) v below TERM_FLOOR is not 0 (even where v - m
// overflows to -inf): at the maximum, LogSoftmax's -log1p(others) is then -0.0, not +0.0.
// 2^-124 (scaled: 2^-220) stands for it, below every subnormal result's rounding.
fn vanished_mark(below_floor: vec4<bool>, v: Compute) -> Compute {
    return select(Compute(0.0), Compute(0x1p-124f), below_floor & (f32_order(v) > vec4(-ORDER_INFINITY)));
}

// What a row's results need, from its maximum and sums (the same in every lane where the lanes
// hold one row).
struct Row {
    m: Compute,
    undefined: vec4<bool>,
    total: Compute,
    total_lo: Compute,
    log_total: Compute,
    others_tiny: vec4<bool>,
    at_maximum: Compute,
}

// A row holding NaN or +inf, or only -inf, is NaN throughout (the function bodies' max); its m
// is then 0, so that the sums stay finite.
fn row_maximum(top: Top) -> Compute {
    return select(from_order(top.order), Compute(0.0), row_undefined(top));
}

fn row_undefined(top: Top) -> vec4<bool> {
    return top.nan | (top.order == vec4(ORDER_INFINITY)) | (top.order <= vec4(-ORDER_INFINITY));
}

fn finished(top: Top, sums: Sums) -> Row {
    if PLAIN_BODY {
        let zero = Compute(0.0);
        return Row(row_maximum(top), row_undefined(top), sums.others.sum, zero, zero, vec4(false), zero);
    }
    // The others unscaled: exact but where below 2^-126, far below the rounding of at_max >= 1.
    let others_sum = sums.others.sum * OTHERS_UNSCALE;
    let others_compensation = sums.others.compensation * OTHERS_UNSCALE;
    let head = two_sum(sums.at_max, others_sum);
    let tail = head.e + others_compensation;
    let total = hidden(head.s + tail);
    let total_lo = tail - (total - head.s);
    // The sum of the terms but the maximum's (exact but for the others' own rounding where one
    // element holds the maximum), and scaled, where it is below 2^-24 (2^72 scaled): there
    // log1p of it rounds to it, and the results at the maximum are minus it, scaled in two exact
    // steps (k hidden: with both its steps constant, a compiler folds 2^54 2^-150 into 0).
    let others = ((sums.at_max - 1.0) + others_sum) + others_compensation;
    let others_scaled = (sums.at_max - 1.0) * OTHERS_SCALE + (sums.others.sum + sums.others.compensation);
    let others_tiny = (total < Compute(1.0000001)) & (others_scaled < Compute(OTHERS_TINY_SCALED));
    // Negated on the bits: 0 - a subnormal is flushed where the device flushes. 2^54 2^-150 is
    // OTHERS_UNSCALE.
    var at_maximum = negate(scaled_once(others_scaled * 0x1p54f, hidden(Compute(-150.0))));
    // +0.0 where nothing else is in the row: (x - max) - log(1) is 0 - 0.
    at_maximum = select(at_maximum, Compute(0.0), others_scaled == Compute(0.0));
    return Row(row_maximum(top), row_undefined(top), total, total_lo, log_of_sum(total, total_lo, others),
        others_tiny, at_maximum);
}

// Softmax's or LogSoftmax's results for elements v of the row (a CPU adapter's forms, which run
// both sides of a branch).
fn results(v: Compute, row: Row) -> Compute {
    return results_of(v, row, false);
}

// results, with Softmax's scaling by 2^k on the float unit where no kept lane has k below
// SCALED_ON_THE_FLOAT_UNIT (a GPU's forms): where `mul` is the exact product on integers (a
// device that flushes subnormals) every element paid for it, 2.7 times the instructions of
// held_chunk_results with the float unit's products (AMD's compiler), for the rare result below
// 2^-100; a GPU skips the side of a branch that no lane of a subgroup takes.
fn results_branching(v: Compute, row: Row) -> Compute {
    return results_of(v, row, true);
}

// From this k on, Softmax's result mantissa 2^k is normal (the mantissa e.s / S is at least
// 2^-31: S counts at most 2^31 terms of at most 1), and scaled_once's second factor is 1: the
// float unit's product gives its bits.
const SCALED_ON_THE_FLOAT_UNIT: f32 = -90.0;

fn results_of(v: Compute, row: Row, branching: bool) -> Compute {
    if PLAIN_BODY {
        return select((v - row.m) - log(row.total), exp(v - row.m) / row.total, KIND == SOFTMAX);
    }
    let d = difference(v, row.m);
    var result: Compute;
    if KIND == SOFTMAX {
        let e = term(d.hi, d.lo);
        let q = quotient(e.s, row.total);
        let r = residual(e.s, q, row.total) + (e.s_err - q * row.total_lo);
        let mantissa = q + quotient(r, row.total);
        let vanished = d.hi < Compute(-104.0);
        var scaled: Compute;
        if branching && EXACT_PRODUCTS && !any(!vanished & (e.k < Compute(SCALED_ON_THE_FLOAT_UNIT))) {
            scaled = mantissa * power_of_two(e.k);
        } else {
            scaled = scaled_once(mantissa, max(e.k, Compute(-151.0)));
        }
        result = select(scaled, Compute(0.0), vanished);
    } else {
        let a = hidden(d.hi - row.log_total);
        let a_back = hidden(a - d.hi);
        let a_err = (d.hi - (a - a_back)) + (-row.log_total - a_back);
        let minus_infinity = bitcast<Compute>(vec4(0xff800000u | opaque_zero));
        result = select(a + (a_err + d.lo), minus_infinity, f32_order(d.hi) == vec4(-ORDER_INFINITY));
        result = select(result, row.at_maximum, row.others_tiny & (d.hi == Compute(0.0)));
    }
    return select(result, bitcast<Compute>(vec4(0x7fc00000u | opaque_zero)), row.undefined);
}

// The number of an invocation of an entry point of AXIS_WORKGROUP invocations a workgroup, its
// workgroups in a grid of params.groups_x columns; it sets opaque_zero first, as every entry
// point must.
fn axis_invocation(group: vec3<u32>, local: u32) -> u32 {
    opaque_zero = params.zero;
    return (group.y * params.groups_x + group.x) * AXIS_WORKGROUP + local;
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn rows(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let first_row = axis_invocation(group, local) * 4u;
    if first_row >= params.rows {
        return;
    }
    let n = params.n;
    let inner = params.inner;
    let row = vec4(first_row) + vec4(0u, 1u, 2u, 3u);
    let live = row < vec4(params.rows);
    let base = (row / vec4(inner)) * vec4(n * inner) + row % vec4(inner);
    var top = no_top(n);
    for (var i = 0u; i < n; i++) {
        top = seen_in_rows(top, load(base + vec4(i * inner), live), vec4(i), live);
    }
    let paired = PAIRED_STORES && inner == 1u && n % 2u == 0u;
    if KIND == HARDMAX {
        let marked = select(top.first, top.first_nan, top.nan);
        for (var i = 0u; i < n; i++) {
            let value = select(Compute(0.0), Compute(1.0), marked == vec4(i));
            if !paired {
                store_lanes(base + vec4(i * inner), live, value);
            } else if (i & 1u) == 1u {
                store_pairs(base + vec4(i - 1u), live, select(Compute(0.0), Compute(1.0), marked == vec4(i - 1u)), value);
            }
        }
        return;
    }
    let m = row_maximum(top);
    var sums = no_sums();
    for (var i = 0u; i < n; i++) {
        sums = summed(sums, load(base + vec4(i * inner), live), m, live);
    }
    let finished_row = finished(top, sums);
    var previous = Compute(0.0);
    for (var i = 0u; i < n; i++) {
        let index = base + vec4(i * inner);
        let value = results(load(index, live), finished_row);
        if !paired {
            store_lanes(index, live, value);
        } else if (i & 1u) == 1u {
            store_pairs(index - vec4(1u), live, previous, value);
        }
        previous = value;
    }
}

var<workgroup> shared_order: array<i32, ROW_WORKGROUP>;
var<workgroup> shared_first: array<u32, ROW_WORKGROUP>;
var<workgroup> shared_first_nan: array<u32, ROW_WORKGROUP>;
var<workgroup> shared_sums: array<SumsRecord, ROW_WORKGROUP>;

// The four lanes' Top joined into lane x (the first maximum: the smallest index at the largest
// order; the first NaN: the smallest index).
fn lanes_joined(top: Top) -> Top {
    let order = max(max(top.order.x, top.order.y), max(top.order.z, top.order.w));
    let at = select(vec4(0xffffffffu), top.first, top.order == vec4(order));
    let first = min(min(at.x, at.y), min(at.z, at.w));
    let first_nan = min(min(top.first_nan.x, top.first_nan.y), min(top.first_nan.z, top.first_nan.w));
    return Top(vec4(order), vec4(first), vec4(any(top.nan)), vec4(first_nan));
}

// A row's sums, from its lanes' (joined by two-sums), in every lane.
fn lanes_summed(sums: Sums) -> Sums {
    var all = lane_of(sums, 0u);
    for (var c = 1u; c < 4u; c++) {
        all = joined_sums(all, lane_of(sums, c));
    }
    return all;
}

// `rows` where the axis is not the last and four neighbouring rows lie side by side (inner a
// multiple of four), on CPU adapters: the four rows' element i read and written as one vector.
@compute @workgroup_size(AXIS_WORKGROUP)
fn strided_vectors(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let first_row = axis_invocation(group, local) * 4u;
    if first_row >= params.rows {
        return;
    }
    let n = params.n;
    let stride = params.inner / 4u;
    let first = (first_row / params.inner * n * params.inner + first_row % params.inner) / 4u;
    var top = no_top(n);
    for (var i = 0u; i < n; i++) {
        top = seen_in_rows(top, load_vector(first + i * stride), vec4(i), vec4(true));
    }
    if KIND == HARDMAX {
        let marked = select(top.first, top.first_nan, top.nan);
        for (var i = 0u; i < n; i++) {
            store_vector(first + i * stride, select(Compute(0.0), Compute(1.0), marked == vec4(i)));
        }
        return;
    }
    let m = row_maximum(top);
    var sums = no_sums();
    for (var i = 0u; i < n; i++) {
        sums = summed(sums, load_vector(first + i * stride), m, vec4(true));
    }
    let finished_row = finished(top, sums);
    for (var i = 0u; i < n; i++) {
        store_vector(first + i * stride, results(load_vector(first + i * stride), finished_row));
    }
}

// The top of a row's vectors [first, end), vector `first` holding its elements start to
// start + 3.
fn vectors_top(first: u32, end: u32, start: u32) -> Top {
    let lanes = vec4(start) + vec4(0u, 1u, 2u, 3u);
    var top = no_top(params.n);
    for (var v = first; v < end; v++) {
        top = seen_in_rows(top, load_vector(v), lanes + vec4((v - first) * 4u), vec4(true));
    }
    return lanes_joined(top);
}



// The sums of the terms of a row's vectors [first, end), for the row's maximum m, in every lane.
fn vectors_sums(first: u32, end: u32, m: Compute) -> Sums {
    var sums = no_sums();
    for (var v = first; v < end; v++) {
        sums = summed(sums, load_vector(v), m, vec4(true));
    }
    return lanes_summed(sums);
}

// The results of a row's vectors [first, end) (vector `first` holding elements start to
// start + 3), from the row's top and sums (Hardmax: its top alone).
fn store_vectors_results(first: u32, end: u32, start: u32, row_top: Top, sums: Sums) {
    if KIND == HARDMAX {
        let marked = select(row_top.first, row_top.first_nan, row_top.nan) - vec4(start) - vec4(0u, 1u, 2u, 3u);
        for (var v = first; v < end; v++) {
            store_vector(v, select(Compute(0.0), Compute(1.0), marked == vec4((v - first) * 4u)));
        }
        return;
    }
    let finished_row = finished(row_top, sums);
    for (var v = first; v < end; v++) {
        store_vector(v, results(load_vector(v), finished_row));
    }
}

@compute @workgroup_size(AXIS_WORKGROUP)
fn row_vectors(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let row = axis_invocation(group, local);
    if row >= params.rows {
        return;
    }
    vectors_row(row);
}

// row_vectors where each invocation takes params.rows_an_invocation rows, one after the other.
// Its own entry point: the loop around a row cost llvmpipe 10-15% over rows of 8, where one row
// an invocation is best.
@compute @workgroup_size(AXIS_WORKGROUP)
fn row_run_vectors(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let first_row = axis_invocation(group, local) * params.rows_an_invocation;
    let end_row = min(first_row + params.rows_an_invocation, params.rows);
    for (var row = first_row; row < end_row; row++) {
        vectors_row(row);
    }
}

// Row `row` along the last axis, a vector at a time.
fn vectors_row(row: u32) {
    let vectors = params.n / 4u;
    let first = row * vectors;
    let row_top = vectors_top(first, first + vectors, 0u);
    var sums = no_sums();
    if KIND != HARDMAX {
        sums = vectors_sums(first, first + vectors, row_maximum(row_top));
    }
    store_vectors_results(first, first + vectors, 0u, row_top, sums);
}

// The top of each segment's elements (each invocation's top of a row of n; a segment: `segment`
// neighbouring invocations, a power of two, ROW_WORKGROUP for the whole workgroup), joined in
// workgroup memory: the lanes, then the segment's invocations pairwise; in every invocation of
// the segment. Once an entry point (no barrier follows the reads of the result). `segment` is
// uniform: the barriers' loop.
fn workgroup_top(top: Top, local: u32, n: u32, segment: u32) -> Top {
    let joined = lanes_joined(top);
    shared_order[local] = joined.order.x;
    shared_first[local] = joined.first.x;
    shared_first_nan[local] = select(n, joined.first_nan.x, joined.nan.x);
    let in_segment = local & (segment - 1u);
    for (var half = segment / 2u; half > 0u; half /= 2u) {
        workgroupBarrier();
        if in_segment < half {
            let a = local;
            let b = local + half;
            let take_b = shared_order[b] > shared_order[a]
                || (shared_order[b] == shared_order[a] && shared_first[b] < shared_first[a]);
            if take_b {
                shared_order[a] = shared_order[b];
                shared_first[a] = shared_first[b];
            }
            shared_first_nan[a] = min(shared_first_nan[a], shared_first_nan[b]);
        }
    }
    workgroupBarrier();
    let first = local - in_segment;
    return Top(vec4(shared_order[first]), vec4(shared_first[first]), vec4(shared_first_nan[first] < n),
        vec4(shared_first_nan[first]));
}

// Each segment's sums (as workgroup_top's segments): the lanes, then the invocations, joined
// pairwise by two-sums; in every invocation of the segment. Once an entry point, as
// workgroup_top.
fn workgroup_sums(sums: Sums, local: u32, segment: u32) -> Sums {
    shared_sums[local] = record_of(lanes_summed(sums));
    let in_segment = local & (segment - 1u);
    for (var half = segment / 2u; half > 0u; half /= 2u) {
        workgroupBarrier();
        if in_segment < half {
            shared_sums[local] = record_of(joined_sums(sums_of(shared_sums[local]), sums_of(shared_sums[local + half])));
        }
    }
    workgroupBarrier();
    return sums_of(shared_sums[local - in_segment]);
}

@compute @workgroup_size(ROW_WORKGROUP)
fn row_segments(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    opaque_zero = params.zero;
    let segment = params.segment;
    let first_row = (group.y * params.groups_x + group.x) * (ROW_WORKGROUP / segment);
    // Uniform across the workgroup: every invocation returns, or none (barriers follow).
    if first_row >= params.rows {
        return;
    }
    let row = first_row + local / segment;
    let n = params.n;
    // A segment past the last row reads and writes nothing, but takes part in the barriers.
    let length = select(0u, n, row < params.rows);
    let inner = params.inner;
    let base = vec4((row / inner) * n * inner + row % inner);
    let lanes = vec4(0u, 1u, 2u, 3u);
    let start = (local & (segment - 1u)) * 4u;
    let step = segment * 4u;
    // A row of up to segment * 4 * CACHED_CHUNKS elements is read once, into registers.
    let whole_row_cached = n <= step * CACHED_CHUNKS;
    var cached: array<Compute, CACHED_CHUNKS>;
    var top = no_top(n);
    var chunk = 0u;
    for (var first = start; first < length; first += step) {
        let i = vec4(first) + lanes;
        let live = i < vec4(n);
        let v = load(base + i * vec4(inner), live);
        if chunk < CACHED_CHUNKS {
            cached[chunk] = v;
        }
        chunk++;
        top = seen(top, v, i, live);
    }
    let row_top = workgroup_top(top, local, n, segment);
    let paired = PAIRED_STORES && inner == 1u && n % 2u == 0u;
    if KIND == HARDMAX {
        let marked = select(row_top.first, row_top.first_nan, row_top.nan);
        for (var first = start; first < length; first += step) {
            let i = vec4(first) + lanes;
            let value = select(Compute(0.0), Compute(1.0), marked == i);
            if paired {
                store_quad(base + i, i < vec4(n), value);
            } else {
                store_lanes(base + i * vec4(inner), i < vec4(n), value);
            }
        }
        return;
    }
    let m = row_maximum(row_top);
    var sums = no_sums();
    chunk = 0u;
    for (var first = start; first < length; first += step) {
        let i = vec4(first) + lanes;
        let live = i < vec4(n);
        var v: Compute;
        if whole_row_cached {
            v = cached[min(chunk, CACHED_CHUNKS - 1u)];
        } else {
            v = load(base + i * vec4(inner), live);
        }
        chunk++;
        sums = summed(sums, v, m, live);
    }
    let finished_row = finished(row_top, workgroup_sums(sums, local, segment));
    chunk = 0u;
    for (var first = start; first < length; first += step) {
        let i = vec4(first) + lanes;
        let live = i < vec4(n);
        let index = base + i * vec4(inner);
        var v: Compute;
        if whole_row_cached {
            v = cached[min(chunk, CACHED_CHUNKS - 1u)];
        } else {
            v = load(index, live);
        }
        chunk++;
        let value = results_branching(v, finished_row);
        if paired {
            store_quad(index, live, value);
        } else {
            store_lanes(index, live, value);
        }
    }
}

fn store_lanes(index: vec4<u32>, live: vec4<bool>, value: Compute) {
    for (var c = 0u; c < 4u; c++) {
        if live[c] {
            store(index[c], value[c]);
        }
    }
}

// The slope of the PRelu step at chain position {{K}}: its bindings, and the ways to gather its
// values for one group of X's lanes. Expanded once per PRelu step by src/kernel.rs, with
// inline placeholders:
//   {{K}}                the step's position in the chain (it indexes params.steps)
//   {{VECTORS_BINDING}}  binding of the slope as Vectors (read only for a slope of X's shape,
//                        which is bound window for window like X, or of a trailing slope,
//                        bound whole)
//   {{WORDS_BINDING}}    binding of the slope as Words
//   {{SLOPE_ACCESS}}     read, or read_write where an input lies in the buffer the chain writes
//                        (WebGPU cannot bind one buffer read-only beside writable in a dispatch)
//   {{RUN}}              for the blocked general pattern, the aligned runs of elements that share
//                        a slope value (X's innermost dim broadcast), a power of two; else 1
// params.steps[{{K}}].slope: x = length of the runs of X that share a slope value, y = number
// of slope values before the pattern repeats, z = flat index of the first bound slope element.
// params.steps[{{K}}].jump: x, y = the cursor's move between an invocation's Vectors; z unused;
// w = log2 of the workgroups in a run, where the main pass's grid gives the channels.
// params.steps[{{K}}].divide: the run length and the channel count prepared for divide()
// (shared/divide.wgsl): magic numbers in x, y, modes in z, w.
// No path divides per element: the channel pattern divides once per invocation, by
// multiplication, then moves a cursor, or, where runs are whole workgroups, takes the channel
// from the main pass's grid.

@group(0) @binding({{VECTORS_BINDING}}) var<storage, {{SLOPE_ACCESS}}> slope_vectors_{{K}}: array<Vector>;
@group(0) @binding({{WORDS_BINDING}}) var<storage, {{SLOPE_ACCESS}}> slope_words_{{K}}: array<Word>;

fn slope_element_{{K}}(s: u32) -> Element {
    let i = s - params.steps[{{K}}].slope.z;
    return word_element(slope_words_{{K}}[i / WORD_LANES], i % WORD_LANES);
}

// One slope value for all of X.
fn slope_scalar_{{K}}() -> Lanes {
    return splat(slope_element_{{K}}(params.steps[{{K}}].slope.z));
}

// A slope of X's shape, read element by element (the tail; the main pass reads slope_vectors).
fn slope_same_{{K}}(element: u32, g: u32) -> Lanes {
    let first = element + group_offset(g);
    var l = splat(slope_element_{{K}}(first));
    for (var i = 1u; i < GROUP_LANES; i++) {
        l = with_lane(l, i, slope_element_{{K}}(first + i * LANE_STEP));
    }
    return l;
}

// The channel pattern, slope index (element / run) % channels: per channel ([C, 1, 1]),
// trailing dims, leading dims. A cursor is (position in the run, slope index).
fn slope_cursor_{{K}}(element: u32) -> vec2<u32> {
    let step = params.steps[{{K}}];
    let runs = divide(element, step.divide.x, step.divide.z);
    let channel = runs - divide(runs, step.divide.y, step.divide.w) * step.slope.y;
    return vec2<u32>(element - runs * step.slope.x, channel);
}

// The cursor `by` elements on, one element at a time (`by` is a few elements).
fn slope_step_{{K}}(cursor: vec2<u32>, by: u32) -> vec2<u32> {
    let run_length = params.steps[{{K}}].slope.x;
    let channels = params.steps[{{K}}].slope.y;
    var c = cursor;
    for (var i = 0u; i < by; i++) {
        c.x += 1u;
        if (c.x == run_length) {
            c.x = 0u;
            c.y += 1u;
            if (c.y == channels) {
                c.y = 0u;
            }
        }
    }
    return c;
}

// The cursor of the invocation's next Vector, VECTOR_STRIDE * VECTOR_LANES elements on.
fn slope_jump_{{K}}(cursor: vec2<u32>) -> vec2<u32> {
    let run_length = params.steps[{{K}}].slope.x;
    let channels = params.steps[{{K}}].slope.y;
    let jump = params.steps[{{K}}].jump;
    var c = cursor + jump.xy;
    if (c.x >= run_length) {
        c.x -= run_length;
        c.y += 1u;
    }
    if (c.y >= channels) {
        c.y -= channels;
    }
    return c;
}

// The slope for group g of the Vector whose first element the cursor is at: one value when the
// whole Vector lies in one run (the common case), else the cursor walks the lanes.
fn slope_channel_{{K}}(cursor: vec2<u32>, g: u32) -> Lanes {
    if (cursor.x + VECTOR_LANES <= params.steps[{{K}}].slope.x) {
        return splat(slope_element_{{K}}(cursor.y));
    }
    var c = slope_step_{{K}}(cursor, group_offset(g));
    var l = splat(slope_element_{{K}}(c.y));
    for (var i = 1u; i < GROUP_LANES; i++) {
        c = slope_step_{{K}}(c, LANE_STEP);
        l = with_lane(l, i, slope_element_{{K}}(c.y));
    }
    return l;
}

// The channel pattern when every Vector lies in one run: one slope value per Vector (or, for
// `channel_uniform`, per invocation, when all of an invocation's Vectors lie in one run).
fn slope_channel_aligned_{{K}}(cursor: vec2<u32>) -> Lanes {
    return splat(slope_element_{{K}}(cursor.y));
}

// The channel pattern where runs are a power of two of whole workgroups, in the main pass of a
// dispatch that starts at channel 0, whose grid's x spans one period of the channels
// (src/engine/dispatch.rs, `channel_grid`): workgroup x lies in a run of channel x / run's
// workgroups. No division: on lavapipe, whose SIMD lanes are invocations, the two per
// invocation took PRelu [C,1,1] f32 from 0.96 to 0.90 of the copy kernel, and even a dispatch's
// first channel added and wrapped cost it 3 points (BENCHMARKS.md).
fn slope_channel_grid_{{K}}(x: u32) -> Lanes {
    return splat(slope_element_{{K}}(x >> params.steps[{{K}}].jump.w));
}

// The channel pattern with runs of one element and a period of whole Vectors (a slope over X's
// trailing dims): the Vector of X at the cursor takes the slope's Vector at cursor.y. The slope
// is bound whole, as Vectors, from its element params.steps[{{K}}].slope.z (a whole Vector).
fn slope_trailing_{{K}}(cursor: vec2<u32>, g: u32) -> Lanes {
    return group(slope_vectors_{{K}}[(cursor.y - params.steps[{{K}}].slope.z) / VECTOR_LANES], g);
}

// Any other pattern, from a cursor at the Vector's first element (prelu.wgsl's
// general_cursor): the group's first lane group_offset(g) elements on, the others LANE_STEP
// apart, each a step of the cursor. The main pass keeps one cursor per invocation and moves it
// from Vector to Vector (slope_general_jump); the tail walks to its Vector's.
fn slope_general_at_{{K}}(cursor: vec4<u32>, g: u32) -> Lanes {
    var c = general_advance(cursor, group_offset(g));
    var l = splat(slope_element_{{K}}(c.x));
    for (var i = 1u; i < GROUP_LANES; i++) {
        c = general_advance(c, LANE_STEP);
        l = with_lane(l, i, slope_element_{{K}}(c.x));
    }
    return l;
}

fn slope_general_{{K}}(element: u32, g: u32) -> Lanes {
    return slope_general_at_{{K}}(general_cursor(element), g);
}

// The cursor of the invocation's next Vector, VECTOR_STRIDE * VECTOR_LANES elements on: stepped
// where an invocation's Vectors are consecutive (CPU drivers), walked anew where they are a
// workgroup apart (GPUs).
fn slope_general_jump_{{K}}(cursor: vec4<u32>) -> vec4<u32> {
    if (VECTOR_STRIDE == 1u) {
        return general_advance(cursor, VECTOR_LANES);
    }
    return general_cursor(cursor.w + VECTOR_STRIDE * VECTOR_LANES);
}

// The general pattern in blocks of an invocation's elements (CPU drivers) or of a Vector's
// (GPUs), src/broadcast.rs's SlopePlan::block: the cursor walks the dims outside the block and
// the block as one dim of slope stride 0, so cursor.x is the block's first slope index; each lane
// adds its offset from params.block_offsets, at its place in the block. No lane steps and no
// carries. On CPU drivers an invocation's Vectors are its block, so it walks once and its
// Vectors' places are constants (k * VECTOR_LANES): the table is read at the same place by every
// invocation, which lavapipe, whose SIMD lanes are invocations, reads once for all of them, not
// as a gather. On GPUs each Vector walks anew, and is its block.
//
// A lane in the run of the lane before it takes that lane's value without a load: on lavapipe
// each load is a gather, and the rank-6 pattern of the bench (runs of 2) ran at 0.42-0.44 of the
// copy kernel with a load per lane, 0.53 with one per run. The test is on constants where the
// place is (main, rest and listed), so the compiler drops it, and a block holds whole runs.
const SLOPE_RUN_{{K}}: u32 = {{RUN}}u;

fn slope_blocked_lanes_{{K}}(cursor: vec4<u32>, place: u32) -> Lanes {
    var value = slope_element_{{K}}(cursor.x + block_offset(place));
    var l = splat(value);
    for (var i = 1u; i < GROUP_LANES; i++) {
        let here = place + i * LANE_STEP;
        if (here / SLOPE_RUN_{{K}} != (here - LANE_STEP) / SLOPE_RUN_{{K}}) {
            value = slope_element_{{K}}(cursor.x + block_offset(here));
        }
        l = with_lane(l, i, value);
    }
    return l;
}

// The group g of the invocation's Vector k (main, rest and listed).
fn slope_blocked_at_{{K}}(cursor: vec4<u32>, k: u32, g: u32) -> Lanes {
    return slope_blocked_lanes_{{K}}(cursor, select(0u, k * VECTOR_LANES, VECTOR_STRIDE == 1u) + group_offset(g));
}

// The group g of the Vector from element (the tail).
fn slope_blocked_{{K}}(element: u32, g: u32) -> Lanes {
    let cursor = block_cursor(element);
    return slope_blocked_lanes_{{K}}(cursor, cursor.y + group_offset(g));
}

fn slope_blocked_jump_{{K}}(cursor: vec4<u32>) -> vec4<u32> {
    if (VECTOR_STRIDE == 1u) {
        return cursor;
    }
    return block_cursor(cursor.w + VECTOR_STRIDE * VECTOR_LANES);
}

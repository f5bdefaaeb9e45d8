//! The kernels over an axis (Softmax, LogSoftmax, Hardmax): `shaders/driver/axis.wgsl` expanded
//! per (operator, dtype, products) for the 16- and 32-bit floats, with the f32 arithmetic the
//! elementwise kernels use ([`super::arithmetic_files`]); `shaders/driver/axis_f64.wgsl` for f64,
//! on the f64 path the context chose (native or software) with its math recorded from
//! `src/cpu/axis_f64.rs`. Their CPU reference is `src/cpu/axis.rs`.

use super::{
    Products, Tuning, arithmetic_files, f64_constants, fill, input_access, input_access_label, prune, with_math_f64,
};
use crate::dtype::DType;
use crate::ops::AxisKind;
use crate::repr::Repr;

const AXIS: &str = include_str!("../../shaders/driver/axis.wgsl");
const AXIS_CHUNKS: &str = include_str!("../../shaders/driver/axis_chunks.wgsl");
const IO_F32: &str = include_str!("../../shaders/driver/axis_io_f32.wgsl");
const IO_F16: &str = include_str!("../../shaders/driver/axis_io_f16.wgsl");
const IO_BF16: &str = include_str!("../../shaders/driver/axis_io_bf16.wgsl");
const IO_PAIRS_16: &str = include_str!("../../shaders/driver/axis_io_pairs_16.wgsl");
const AXIS_F64: &str = include_str!("../../shaders/driver/axis_f64.wgsl");
const AXIS_PARAMS: &str = include_str!("../../shaders/driver/axis_params.wgsl");

/// Invocations per workgroup of the f64 kernel.
pub(crate) const AXIS_F64_WORKGROUP: u32 = 256;
/// Elements one invocation of the f64 kernel takes in a row, at most: rows of up to this many
/// take an invocation each, longer ones a workgroup per chunk of [`F64_CHUNK`] (llvmpipe stops an
/// invocation after 65535 loop iterations in all, and on the software path each step of the
/// math's interpreter is one).
pub(crate) const F64_ELEMENTS_PER_INVOCATION: usize = 16;
/// The elements a workgroup of the f64 kernel takes of a longer row.
pub(crate) const F64_CHUNK: usize = AXIS_F64_WORKGROUP as usize * F64_ELEMENTS_PER_INVOCATION;
/// The longest rows a CPU adapter's f64 kernel takes an invocation each, where there are
/// [`MANY_ROWS`]: a workgroup's barriers cost llvmpipe a coroutine switch each (Hardmax over
/// rows of 1000 ran at 0.12 of the copy kernel in chunks, 0.58 over rows of 8), and within
/// llvmpipe's 65535 loop iterations an invocation: three passes on the native path, about 170
/// interpreter steps an element on the software one.
const F64_CPU_ROW_MAX_NATIVE: usize = 4096;
const F64_CPU_ROW_MAX_SOFTWARE: usize = 256;

/// Invocations per workgroup of the `rows` entry point; each takes four rows.
pub(crate) const AXIS_WORKGROUP: u32 = 64;
/// Invocations per workgroup of the `row_segments` entry point, which takes a row a segment of
/// them ([`row_segment`]), and of the held chunks, a chunk a workgroup.
pub(crate) const ROW_WORKGROUP: u32 = 256;

/// The longest rows the `rows` entry point always takes; longer ones take a workgroup each,
/// unless a CPU adapter has [`MANY_ROWS`] of at most [`STRIDED_ROW_MAX`]: then four rows an
/// invocation fill it without the workgroup's barriers (on lavapipe, Softmax over rows of 1000
/// ran at 0.02 of the copy kernel a workgroup a row), and where the axis is not the last,
/// neighbouring invocations read neighbouring elements. (llvmpipe stops an invocation after
/// 65535 loop iterations: three passes of 16384.)
pub(crate) const SHORT_ROW_MAX: usize = 32;
/// See [`SHORT_ROW_MAX`].
pub(crate) const STRIDED_ROW_MAX: usize = 16384;
/// See [`SHORT_ROW_MAX`].
pub(crate) const MANY_ROWS: usize = 1024;
/// The longest rows `row_segments` holds in registers (read once: `CACHED_CHUNKS` in the
/// driver). On a GPU such rows take that entry point however many they are, and longer ones
/// chunks of this many, each held by a workgroup; a CPU adapter, whose workgroup barriers are
/// costly, keeps four rows an invocation for many rows.
pub(crate) const HELD_ROW_MAX: usize = ROW_WORKGROUP as usize * 4 * CACHED_CHUNKS as usize;

/// The invocations of `row_segments` that take a row of `n` (a power of two, at most
/// [`ROW_WORKGROUP`]): on a GPU, one per vector of four elements up to the whole workgroup, so
/// that no invocation idles where the row is short (a workgroup a row of 128 left 224 of its
/// 256 idle, and a GPU keeps too few loads in flight to stream); on a CPU adapter the whole
/// workgroup (its barriers are coroutine switches, paid per workgroup).
pub(crate) fn row_segment(n: usize, on_cpu: bool) -> u32 {
    if on_cpu {
        return ROW_WORKGROUP;
    }
    let vectors = u32::try_from(n.div_ceil(4)).unwrap_or(u32::MAX);
    vectors.checked_next_power_of_two().unwrap_or(ROW_WORKGROUP).clamp(1, ROW_WORKGROUP)
}

/// The bytes of consecutive rows one invocation of `row_vectors` walks on a CPU adapter: a page.
/// llvmpipe runs a batch of eight invocations as one thread's SIMD lanes, each walking its own
/// row. Rows no longer than a cache line lie side by side under the batch's loads, and rows of
/// a page or more are a stream of their own each, which the CPU's prefetcher follows; rows
/// between put eight walks in one page, which it does not. Over rows of 128 f32 (512 bytes),
/// Hardmax ran at 0.44-0.48 of the copy kernel a row an invocation, 0.80-0.88 eight rows an
/// invocation; over rows of 1000, at 0.78-0.85 either way; over rows of 8, 0.57-0.65 a row an
/// invocation and 0.48-0.49 eight (Softmax over rows of 128: 14.2-18.4 ms -> 9.8-13.1 ms).
pub(crate) const ROW_VECTORS_WALK_BYTES: usize = 4096;
/// Rows of at most this many bytes lie side by side under a batch's loads (a cache line).
const ROW_VECTORS_SIDE_BY_SIDE_BYTES: usize = 64;

/// The rows each invocation of `row_vectors` takes, one after the other, for `rows` rows of
/// `row_bytes` on a CPU adapter of `threads` threads: as many as make [`ROW_VECTORS_WALK_BYTES`]
/// where rows are longer than a cache line, while the workgroups still give each thread
/// [`CHUNK_WORKGROUPS_A_THREAD`]; one otherwise. More than one runs
/// [`AxisEntry::RowRunVectors`] ([`AxisEntry::in_runs`]). (A page of f32 is 768 loop
/// iterations, far from llvmpipe's 65535.)
pub(crate) fn rows_an_invocation(rows: usize, row_bytes: usize, threads: usize) -> u32 {
    if row_bytes <= ROW_VECTORS_SIDE_BY_SIDE_BYTES {
        return 1;
    }
    let walk = ROW_VECTORS_WALK_BYTES.div_ceil(row_bytes);
    let busy = rows / (AXIS_WORKGROUP as usize * CHUNK_WORKGROUPS_A_THREAD * threads.max(1));
    u32::try_from(walk.min(busy).max(1)).unwrap_or(1)
}

/// Vectors of four elements each invocation holds in registers where a row or chunk is held
/// (`CACHED_CHUNKS` in the driver).
const CACHED_CHUNKS: u32 = 4;

/// The kernel's entry points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AxisEntry {
    /// Four rows an invocation.
    Rows,
    /// One row an invocation, read and written four elements a vector: rows along the last axis
    /// whose length is a multiple of four, on a CPU adapter.
    RowVectors,
    /// `row_vectors` taking [`rows_an_invocation`] rows an invocation, one after the other.
    RowRunVectors,
    /// Four rows an invocation, read and written a vector at a time: rows along an axis that is
    /// not the last, four neighbouring rows side by side (inner a multiple of four), on a CPU
    /// adapter.
    StridedVectors,
    /// One row a segment of a workgroup's invocations ([`row_segment`]): the whole workgroup on
    /// a CPU adapter, as many as the row has vectors of four on a GPU.
    RowSegments,
    /// The dispatches for longer rows of [`AxisEntry::RowVectors`]'s kind on a CPU adapter, an
    /// invocation per chunk of [`AxisKernelKey::chunk_len`] elements, without a workgroup's
    /// barriers: each chunk's top, each chunk's sums, then the results (Hardmax: its marks).
    VectorChunkTops,
    VectorChunkSums,
    VectorChunkResults,
    /// The same dispatches for longer rows of [`AxisEntry::StridedVectors`]'s kind (or fewer
    /// than [`MANY_ROWS`] of them) on a CPU adapter: an invocation per chunk of four
    /// neighbouring rows, with the same records a row.
    StridedChunkTops,
    StridedChunkSums,
    StridedChunkResults,
    /// The dispatches for the other rows longer than [`HELD_ROW_MAX`] (every such row on a GPU),
    /// a workgroup per chunk of [`HELD_ROW_MAX`] elements held in registers, X read twice: each
    /// chunk's top and its sums against its own maximum; a workgroup per row joining them (each
    /// chunk's sums rescaled once to the row's maximum); then the results (Hardmax: its marks).
    HeldChunkTops,
    HeldChunkJoin,
    HeldChunkResults,
    /// The f64 kernel's for short rows: an invocation each.
    F64RowPerInvocation,
    /// The f64 kernel's dispatches for longer rows, a workgroup per chunk of [`F64_CHUNK`]:
    /// each chunk's maximum, each invocation's sum of terms, each chunk's sum (an invocation a
    /// chunk), then the results.
    F64ChunkTops,
    F64ChunkPartialSums,
    F64ChunkSums,
    F64ChunkResults,
}

impl AxisEntry {
    /// The entry point for `rows` rows of `n` elements `inner` apart (16- and 32-bit floats);
    /// [`AxisEntry::VectorChunkTops`] stands for the first of its dispatches.
    pub(crate) fn for_rows(rows: usize, n: usize, inner: usize, on_cpu: bool) -> AxisEntry {
        let many = n <= STRIDED_ROW_MAX && rows >= MANY_ROWS;
        // On a GPU, short rows along the last axis take segments too, sized to them (two
        // invocations a row of 8, one up to 4), as GPU softmax kernels commonly give a short row
        // as many lanes as it has elements: each element read once, neighbouring invocations
        // reading neighbouring vectors, where four rows an invocation read each element alone,
        // three times, 128 bytes from the next invocation's. Along another axis, short rows keep
        // four an invocation, whose neighbouring invocations read neighbouring rows.
        let gpu_segments = !on_cpu && inner == 1 && n <= HELD_ROW_MAX;
        // Many rows four an invocation is for CPU adapters alone: on a GPU, 1024 rows of 5000
        // would have taken 256 invocations in all, each reading its rows three times.
        let four_rows = (n <= SHORT_ROW_MAX && !gpu_segments) || (many && on_cpu);
        // On llvmpipe, Hardmax over rows of 8 ran at 0.22 of the copy kernel four rows an
        // invocation, each word gathered and scattered alone; a vector at a time, at 0.52 (Softmax
        // over rows of 1000: 0.23 -> 0.31; its f16 rows 0.08 -> 0.18).
        let vectors = on_cpu && inner == 1 && n.is_multiple_of(4);
        // Along another axis, four rows side by side read as one vector: over axis 1 of
        // [N, 1000, 8] llvmpipe ran Hardmax at 0.55 of the copy kernel gathered, 0.90-0.96 so
        // (Softmax 0.22 -> 0.37-0.48), as fast as along the last axis.
        let strided = on_cpu && inner.is_multiple_of(4);
        // Longer rows of that kind in chunks: a workgroup a row, whose barriers are coroutine
        // switches on llvmpipe, ran Softmax over rows of 2^16 at 0.06 of the copy kernel and
        // Hardmax at 0.15; in chunks, at 0.24 and 0.70. Along another axis a workgroup a row
        // also read every cache line of the tensor for each row: over axis 0 of [2^16, 64],
        // Softmax ran at 0.04 of the copy kernel.
        match (four_rows, vectors) {
            (true, true) => AxisEntry::RowVectors,
            (true, false) if strided => AxisEntry::StridedVectors,
            (true, false) => AxisEntry::Rows,
            (false, true) => AxisEntry::VectorChunkTops,
            (false, false) if strided => AxisEntry::StridedChunkTops,
            // On a GPU, a row a workgroup read it three times where it was too long to hold; in
            // held chunks, twice, and its chunks fill the device. A CPU adapter, whose workgroup
            // barriers are coroutine switches, keeps a workgroup a row for the rows left here
            // (another axis, inner not a multiple of four): held chunks have sixteen times the
            // workgroups (over axis 0 of [2^16, 64], before such rows took strided chunks,
            // llvmpipe ran Softmax in 65-70 ms a workgroup a row, 96-99 ms in held chunks).
            (false, false) if n > HELD_ROW_MAX && !on_cpu => AxisEntry::HeldChunkTops,
            (false, false) => AxisEntry::RowSegments,
        }
    }

    /// Whether it binds the chunks' scratch buffers (bindings 3 and 4).
    pub(crate) fn chunked(self) -> bool {
        matches!(
            self,
            AxisEntry::F64ChunkTops
                | AxisEntry::F64ChunkPartialSums
                | AxisEntry::F64ChunkSums
                | AxisEntry::F64ChunkResults
                | AxisEntry::VectorChunkTops
                | AxisEntry::VectorChunkSums
                | AxisEntry::VectorChunkResults
                | AxisEntry::StridedChunkTops
                | AxisEntry::StridedChunkSums
                | AxisEntry::StridedChunkResults
                | AxisEntry::HeldChunkTops
                | AxisEntry::HeldChunkJoin
                | AxisEntry::HeldChunkResults
        )
    }

    /// The entry point itself, or [`AxisEntry::RowRunVectors`] for `row_vectors` where an
    /// invocation takes `rows_an_invocation` rows ([`rows_an_invocation`]) and more than one.
    pub(crate) fn in_runs(self, rows_an_invocation: u32) -> AxisEntry {
        match self {
            AxisEntry::RowVectors if rows_an_invocation > 1 => AxisEntry::RowRunVectors,
            entry => entry,
        }
    }

    /// Its WGSL name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AxisEntry::Rows => "rows",
            AxisEntry::RowVectors => "row_vectors",
            AxisEntry::RowRunVectors => "row_run_vectors",
            AxisEntry::StridedVectors => "strided_vectors",
            AxisEntry::RowSegments => "row_segments",
            AxisEntry::VectorChunkTops => "vector_chunk_tops",
            AxisEntry::VectorChunkSums => "vector_chunk_sums",
            AxisEntry::VectorChunkResults => "vector_chunk_results",
            AxisEntry::StridedChunkTops => "strided_chunk_tops",
            AxisEntry::StridedChunkSums => "strided_chunk_sums",
            AxisEntry::StridedChunkResults => "strided_chunk_results",
            AxisEntry::HeldChunkTops => "held_chunk_tops",
            AxisEntry::HeldChunkJoin => "held_chunk_join",
            AxisEntry::HeldChunkResults => "held_chunk_results",
            AxisEntry::F64RowPerInvocation => "row_per_invocation",
            AxisEntry::F64ChunkTops => "chunk_tops",
            AxisEntry::F64ChunkPartialSums => "chunk_partial_sums",
            AxisEntry::F64ChunkSums => "chunk_sums",
            AxisEntry::F64ChunkResults => "chunk_results",
        }
    }
}
/// Workgroups of chunks a CPU adapter is given for each of its threads (the host's), each a
/// thread's to run: one each leaves a thread idle where the other's take longer. More chunks
/// than that cost a join each: every chunk joins its row's tops and sums, so a chunk's share of
/// the row sets its join's share of its work. Over rows of 2^16 on lavapipe (2 threads), Hardmax
/// f32 ran at 0.79-0.80 of the copy kernel in 64 chunks a row of 1024, 0.88-0.94 in four of
/// 16384 (the least that gives each thread two workgroups of 64 rows); along axis 0 of [2^16,
/// 64], four rows an invocation, at 0.59-0.65 in chunks of 1024, 0.64-0.70 in 16 of 4096, and
/// 0.35-0.38 in four of 16384 (one workgroup: one thread).
pub(crate) const CHUNK_WORKGROUPS_A_THREAD: usize = 2;
/// A chunk joins at most one of its row's chunks for this many of its own elements: a row of n
/// takes at most sqrt(n / 16) chunks.
pub(crate) const CHUNK_ELEMENTS_A_JOINED_CHUNK: usize = 16;
/// The fewest and the most elements of a vector chunk. llvmpipe stops an invocation after 65535
/// loop iterations: a chunk of the most is 16384 vectors, and the longest row its 128 MiB binding
/// holds (2^26 16-bit elements) 1024 chunks, whose tops and sums each invocation joins.
pub(crate) const VECTOR_CHUNK_MIN: usize = 1024;
pub(crate) const VECTOR_CHUNK_MAX: usize = 1 << 16;

/// Rows one invocation takes (one per lane of the f32 Compute).
pub(crate) const ROWS_PER_INVOCATION: u32 = 4;

/// The dtypes the kernels run.
pub(crate) const AXIS_KERNEL_DTYPES: [DType; 4] = [DType::F32, DType::F16, DType::BF16, DType::F64];

/// One expansion of the kernel over an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct AxisKernelKey {
    pub(crate) kind: AxisKind,
    pub(crate) dtype: DType,
    /// Whether products with a subnormal are computed exactly on integers (a device that
    /// flushes subnormals), and whether the device's fma rounds once.
    pub(crate) exact_products: bool,
    pub(crate) fused_product_errors: bool,
    /// Whether X lies in Y's buffer (disjoint ranges), so that X is bound writable too.
    pub(crate) input_in_y_buffer: bool,
    /// f64 only: native f64 (SHADER_F64), or the software path on u32 pairs.
    pub(crate) native_f64: bool,
    /// The bench's yardstick alone (16- and 32-bit floats): Softmax's and LogSoftmax's function
    /// bodies in plain f32 in the same entry points (`PLAIN_BODY` in the driver).
    pub(crate) plain_body: bool,
}

impl AxisKernelKey {
    /// The key for `kind` on `dtype` with the context's tuning, X in Y's buffer or not, f64 on
    /// its native path or not.
    pub(crate) fn new(
        kind: AxisKind,
        dtype: DType,
        tuning: Tuning,
        input_in_y_buffer: bool,
        native_f64: bool,
    ) -> AxisKernelKey {
        let f64 = dtype == DType::F64;
        AxisKernelKey {
            kind,
            dtype,
            exact_products: !f64 && tuning.products != Products::Hardware,
            fused_product_errors: !f64 && tuning.fused_product_errors,
            input_in_y_buffer,
            native_f64: f64 && native_f64,
            plain_body: false,
        }
    }

    /// Its entry points for `rows` rows of `n` elements `inner` apart on a CPU adapter or not,
    /// one dispatch each, in order.
    pub(crate) fn entries(&self, rows: usize, n: usize, inner: usize, on_cpu: bool) -> Vec<AxisEntry> {
        match (self.dtype, self.kind) {
            (DType::F64, _) if n <= F64_ELEMENTS_PER_INVOCATION => vec![AxisEntry::F64RowPerInvocation],
            (DType::F64, _)
                if on_cpu
                    && rows >= MANY_ROWS
                    && n <= if self.native_f64 { F64_CPU_ROW_MAX_NATIVE } else { F64_CPU_ROW_MAX_SOFTWARE } =>
            {
                vec![AxisEntry::F64RowPerInvocation]
            }
            (DType::F64, AxisKind::Hardmax) => vec![AxisEntry::F64ChunkTops, AxisEntry::F64ChunkResults],
            (DType::F64, _) => vec![
                AxisEntry::F64ChunkTops,
                AxisEntry::F64ChunkPartialSums,
                AxisEntry::F64ChunkSums,
                AxisEntry::F64ChunkResults,
            ],
            _ => match AxisEntry::for_rows(rows, n, inner, on_cpu) {
                AxisEntry::VectorChunkTops if self.kind == AxisKind::Hardmax => {
                    vec![AxisEntry::VectorChunkTops, AxisEntry::VectorChunkResults]
                }
                AxisEntry::VectorChunkTops => {
                    vec![AxisEntry::VectorChunkTops, AxisEntry::VectorChunkSums, AxisEntry::VectorChunkResults]
                }
                AxisEntry::StridedChunkTops if self.kind == AxisKind::Hardmax => {
                    vec![AxisEntry::StridedChunkTops, AxisEntry::StridedChunkResults]
                }
                AxisEntry::StridedChunkTops => {
                    vec![AxisEntry::StridedChunkTops, AxisEntry::StridedChunkSums, AxisEntry::StridedChunkResults]
                }
                AxisEntry::HeldChunkTops => {
                    vec![AxisEntry::HeldChunkTops, AxisEntry::HeldChunkJoin, AxisEntry::HeldChunkResults]
                }
                entry => vec![entry],
            },
        }
    }

    /// The elements a chunk of a row of `n` takes, where its entry points (`first`, the first of
    /// its dispatches) are chunked: f64's [`F64_CHUNK`]; the held chunks' [`HELD_ROW_MAX`]; the
    /// vector chunks' and strided chunks' (a CPU adapter of `threads` threads, `rows` rows) a
    /// share of the row: as many chunks as give each thread [`CHUNK_WORKGROUPS_A_THREAD`]
    /// workgroups, no more than [`CHUNK_ELEMENTS_A_JOINED_CHUNK`] allows, in whole vectors from
    /// [`VECTOR_CHUNK_MIN`] to [`VECTOR_CHUNK_MAX`] elements.
    pub(crate) fn chunk_len(&self, n: usize, rows: usize, threads: usize, first: AxisEntry) -> usize {
        if self.dtype == DType::F64 {
            return F64_CHUNK;
        }
        if first == AxisEntry::HeldChunkTops {
            return HELD_ROW_MAX;
        }
        // An invocation of the strided chunks takes a chunk of four rows.
        let rows_an_invocation = if first == AxisEntry::StridedChunkTops { ROWS_PER_INVOCATION as usize } else { 1 };
        let invocations = CHUNK_WORKGROUPS_A_THREAD * threads.max(1) * AXIS_WORKGROUP as usize;
        let wanted = invocations.div_ceil((rows / rows_an_invocation).max(1));
        let most = (n / CHUNK_ELEMENTS_A_JOINED_CHUNK).isqrt().max(1);
        n.div_ceil(wanted.min(most)).next_multiple_of(4).clamp(VECTOR_CHUNK_MIN, VECTOR_CHUNK_MAX)
    }

    /// Bytes of scratch a chunk takes: its top's (`ChunkTop`) and its sums' (`SumsRecord`; f64's
    /// invocations' partial sums, then its own).
    pub(crate) fn chunk_scratch_bytes(&self) -> [u64; 2] {
        if self.dtype == DType::F64 { [16, 24 * (u64::from(AXIS_F64_WORKGROUP) + 1)] } else { [16, 12] }
    }

    /// The pipeline's label.
    pub(crate) fn label(&self) -> String {
        format!(
            "wgpu-activations.axis.{:?}.{}{}{}{}{}{}",
            self.kind,
            self.dtype,
            match (self.dtype, self.native_f64) {
                (DType::F64, true) => ".native",
                (DType::F64, false) => ".software",
                _ => "",
            },
            if self.exact_products { ".exact" } else { "" },
            if self.fused_product_errors { ".fma" } else { "" },
            input_access_label(self.input_in_y_buffer),
            if self.plain_body { ".plain-body" } else { "" }
        )
    }

    /// The kernel's WGSL for entry point `entry`, pruned to what it reaches.
    pub(crate) fn wgsl(&self, entry: AxisEntry) -> String {
        if self.dtype == DType::F64 {
            return self.f64_wgsl();
        }
        let mut src = f32_arithmetic(self.exact_products, self.fused_product_errors);
        let (io, y_word) = elements_of(self.dtype);
        let access = [("{{INPUT_ACCESS}}", input_access(self.input_in_y_buffer))];
        src.push_str(&fill(io, &access));
        if matches!(self.dtype, DType::F16 | DType::BF16) {
            src.push_str(&fill(IO_PAIRS_16, &access));
        }
        let kind = self.kind_code();
        let (workgroup, row_workgroup) = (AXIS_WORKGROUP.to_string(), ROW_WORKGROUP.to_string());
        let cached_chunks = CACHED_CHUNKS.to_string();
        let fills = [
            ("{{CACHED_CHUNKS}}", cached_chunks.as_str()),
            ("{{KIND}}", kind),
            ("{{Y_WORD}}", y_word),
            ("{{WORKGROUP}}", &workgroup),
            ("{{ROW_WORKGROUP}}", &row_workgroup),
            ("{{PLAIN_BODY}}", if self.plain_body { "true" } else { "false" }),
            ("{{EXACT_PRODUCTS}}", if self.exact_products { "true" } else { "false" }),
            ("{{INPUT_ACCESS}}", input_access(self.input_in_y_buffer)),
        ];
        src.push_str(AXIS_PARAMS);
        src.push_str(&fill(AXIS, &fills));
        src.push_str(&fill(AXIS_CHUNKS, &fills));
        prune::prune_to_entry(&src, entry.name())
    }

    /// The f64 kernel's WGSL: `driver/axis_f64.wgsl` on the f64 path's arithmetic, with the math
    /// functions it calls recorded in.
    fn f64_wgsl(&self) -> String {
        let spec = if self.native_f64 { Repr::F64 } else { Repr::F64Soft }.spec();
        let mut src = String::from(spec.enable);
        src.push_str(&spec.declarations());
        for file in arithmetic_files(spec, Tuning::default()) {
            src.push_str(&f64_constants(file, spec.native));
        }
        let workgroup = AXIS_F64_WORKGROUP.to_string();
        let fills = [
            ("{{KIND}}", self.kind_code()),
            ("{{WORKGROUP}}", workgroup.as_str()),
            ("{{INPUT_ACCESS}}", input_access(self.input_in_y_buffer)),
        ];
        src.push_str(AXIS_PARAMS);
        src.push_str(&f64_constants(&fill(AXIS_F64, &fills), spec.native));
        with_math_f64(&src, spec.native)
    }

    /// `{{KIND}}` of both drivers.
    fn kind_code(&self) -> &'static str {
        match self.kind {
            AxisKind::Softmax => "0",
            AxisKind::LogSoftmax => "1",
            AxisKind::Hardmax => "2",
        }
    }
}

/// The f32 arithmetic of the kernels outside the elementwise driver, its products exact on
/// integers where `exact_products` (a device that flushes subnormals) and its products' errors
/// from fma where `fused_product_errors`, and the f16 conversions on the bits.
fn f32_arithmetic(exact_products: bool, fused_product_errors: bool) -> String {
    let tuning = Tuning {
        products: if exact_products { Products::OnIntegers } else { Products::Hardware },
        fused_product_errors,
        ..Tuning::default()
    };
    let spec = Repr::F32.spec();
    let mut src = String::from(spec.enable);
    src.push_str(&spec.declarations());
    for file in arithmetic_files(spec, tuning).into_iter().chain([crate::repr::F16_BITS]) {
        src.push_str(&f64_constants(file, true));
    }
    src
}

/// The elements' file for `dtype` (`driver/axis_io_*.wgsl`) and Y's storage word.
fn elements_of(dtype: DType) -> (&'static str, &'static str) {
    match dtype {
        DType::F16 => (IO_F16, "atomic<u32>"),
        DType::BF16 => (IO_BF16, "atomic<u32>"),
        _ => (IO_F32, "u32"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every expansion is valid WGSL (naga, with no optional capability).
    #[test]
    fn every_axis_kernel_validates() {
        for kind in [AxisKind::Softmax, AxisKind::LogSoftmax, AxisKind::Hardmax] {
            for dtype in AXIS_KERNEL_DTYPES {
                for (exact_products, fused_product_errors, input_in_y_buffer) in
                    [(false, false, false), (true, false, false), (false, true, false), (false, false, true)]
                {
                    for native_f64 in [false, true] {
                        let tuning = Tuning {
                            products: if exact_products { Products::OnIntegers } else { Products::Hardware },
                            fused_product_errors,
                            ..Tuning::default()
                        };
                        let mut key = AxisKernelKey::new(kind, dtype, tuning, input_in_y_buffer, native_f64);
                        key.plain_body = dtype == DType::F32 && exact_products;
                        let entries = match dtype {
                            DType::F64 => vec![AxisEntry::F64RowPerInvocation],
                            _ => vec![
                                AxisEntry::Rows,
                                AxisEntry::RowVectors,
                                AxisEntry::RowRunVectors,
                                AxisEntry::StridedVectors,
                                AxisEntry::RowSegments,
                                AxisEntry::VectorChunkTops,
                                AxisEntry::VectorChunkSums,
                                AxisEntry::VectorChunkResults,
                                AxisEntry::StridedChunkTops,
                                AxisEntry::StridedChunkSums,
                                AxisEntry::StridedChunkResults,
                                AxisEntry::HeldChunkTops,
                                AxisEntry::HeldChunkJoin,
                                AxisEntry::HeldChunkResults,
                            ],
                        };
                        for entry in entries {
                            let label = format!("{}.{}", key.label(), entry.name());
                            let wgsl = key.wgsl(entry);
                            let module = naga::front::wgsl::parse_str(&wgsl)
                                .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(&wgsl)));
                            // Native f64 alone needs a capability.
                            let capabilities = if key.native_f64 {
                                naga::valid::Capabilities::FLOAT64
                            } else {
                                naga::valid::Capabilities::empty()
                            };
                            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
                                .validate(&module)
                                .unwrap_or_else(|e| panic!("{label}: {e:?}"));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_rows_of_vectors_take_chunks_on_a_cpu_adapter() {
        let key = |kind| AxisKernelKey::new(kind, DType::F32, Tuning::default(), false, false);
        let chunked = [AxisEntry::VectorChunkTops, AxisEntry::VectorChunkSums, AxisEntry::VectorChunkResults];
        assert_eq!(key(AxisKind::Softmax).entries(1, 1 << 16, 1, true), chunked);
        assert_eq!(key(AxisKind::Hardmax).entries(3, 1 << 16, 1, true), [chunked[0], chunked[2]]);
        assert!(chunked.iter().all(|e| e.chunked()));
        // Rows of odd length, or along another axis not four side by side, on a CPU adapter: a
        // workgroup a row.
        for (n, inner) in [((1 << 16) + 1, 1), (1 << 16, 2)] {
            assert_eq!(key(AxisKind::Softmax).entries(1, n, inner, true), [AxisEntry::RowSegments]);
        }
        // Four side by side: chunks of four rows, long or few.
        let strided = [AxisEntry::StridedChunkTops, AxisEntry::StridedChunkSums, AxisEntry::StridedChunkResults];
        assert_eq!(key(AxisKind::Softmax).entries(64, 1 << 16, 64, true), strided);
        assert_eq!(key(AxisKind::LogSoftmax).entries(8, 1000, 8, true), strided);
        assert_eq!(key(AxisKind::Hardmax).entries(MANY_ROWS, STRIDED_ROW_MAX + 1, 4, true), [strided[0], strided[2]]);
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, 1000, 8, true), [AxisEntry::StridedVectors]);
        assert!(strided.iter().all(|e| e.chunked()));
        // Every long row on a GPU: a workgroup a chunk of HELD_ROW_MAX, read twice; a workgroup a
        // row where it holds the row.
        let held = [AxisEntry::HeldChunkTops, AxisEntry::HeldChunkJoin, AxisEntry::HeldChunkResults];
        for (n, inner) in [((1 << 16) + 1, 1), (1 << 16, 2), (1 << 16, 1), (HELD_ROW_MAX + 1, 1)] {
            for kind in [AxisKind::Softmax, AxisKind::Hardmax] {
                assert_eq!(key(kind).entries(1, n, inner, false), held);
            }
            // However many rows.
            assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, n, inner, false), held);
            assert_eq!(key(AxisKind::Softmax).chunk_len(n, 1, 2, held[0]), HELD_ROW_MAX);
        }
        assert!(held.iter().all(|e| e.chunked()));
        assert_eq!(key(AxisKind::Softmax).entries(1, HELD_ROW_MAX, 1, false), [AxisEntry::RowSegments]);
        // Shorter rows on a GPU, however many: segments of a workgroup sized to the row; along
        // another axis, rows of up to SHORT_ROW_MAX four an invocation.
        for (n, inner) in [(1, 1), (8, 1), (SHORT_ROW_MAX, 1), (33, 1), (128, 1), (1000, 1), (40, 5)] {
            assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, n, inner, false), [AxisEntry::RowSegments]);
        }
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, SHORT_ROW_MAX, 3, false), [AxisEntry::Rows]);
        assert_eq!(
            [1, 4, 5, 8, 128, 129, 1000, 1024, 1025, 4096].map(|n| row_segment(n, false)),
            [1, 1, 2, 2, 32, 64, 256, 256, 256, 256]
        );
        assert_eq!(row_segment(8, true), ROW_WORKGROUP);
        // Many rows of up to STRIDED_ROW_MAX: a row an invocation.
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, 1000, 1, true), [AxisEntry::RowVectors]);
        // A page of rows an invocation where rows are longer than a cache line, as the threads'
        // workgroups allow: rows of 8 and of 16 f32 side by side; rows of 128 f32 eight an
        // invocation (four where the rows give 2 threads only 8 a thread, one for 16 threads);
        // rows of a page and more, one.
        let runs = |rows, row_bytes, threads| rows_an_invocation(rows, row_bytes, threads);
        assert_eq!(
            [32, 64, 68, 256, 512, 528, 2000, 4096, 8192].map(|b| runs(1 << 15, b, 2)),
            [1, 1, 61, 16, 8, 8, 3, 1, 1]
        );
        assert_eq!([runs(1024, 512, 2), runs(1024, 512, 16), runs(1, 512, 2)], [4, 1, 1]);
        assert_eq!(AxisEntry::RowVectors.in_runs(8), AxisEntry::RowRunVectors);
        assert_eq!(AxisEntry::RowVectors.in_runs(1), AxisEntry::RowVectors);
        assert_eq!(AxisEntry::Rows.in_runs(8), AxisEntry::Rows);
        // Two workgroups a thread where the rows allow, a chunk joining at most one chunk per 16
        // of its elements, whole vectors from VECTOR_CHUNK_MIN to VECTOR_CHUNK_MAX.
        let chunk_len =
            |n, rows, threads| key(AxisKind::Softmax).chunk_len(n, rows, threads, AxisEntry::VectorChunkTops);
        assert_eq!(chunk_len(1 << 16, 64, 2), 1 << 14);
        assert_eq!(chunk_len(1 << 16, 64, 16), 1 << 11);
        assert_eq!(chunk_len(1 << 16, 1, 2), 1024);
        assert_eq!(chunk_len(1 << 20, 1, 2), 4096);
        assert_eq!(chunk_len(1 << 26, 1, 2), 1 << 16);
        assert_eq!(chunk_len(8192, 8, 2), 1024);
        assert_eq!(chunk_len(100_004, 1, 2), 1268);
        let strided = key(AxisKind::Softmax).chunk_len(1 << 16, 64, 2, AxisEntry::StridedChunkTops);
        assert_eq!(strided, 4096);
        let f64_key = AxisKernelKey::new(AxisKind::Softmax, DType::F64, Tuning::default(), false, true);
        assert_eq!(f64_key.chunk_len(8, 1, 2, AxisEntry::F64ChunkTops), F64_CHUNK);
    }

    #[test]
    fn f64_rows_take_an_invocation_then_chunks() {
        let key = |kind| AxisKernelKey::new(kind, DType::F64, Tuning::default(), false, false);
        let short = key(AxisKind::Softmax).entries(7, F64_ELEMENTS_PER_INVOCATION, 1, false);
        assert_eq!(short, [AxisEntry::F64RowPerInvocation]);
        let long = key(AxisKind::LogSoftmax).entries(1, F64_ELEMENTS_PER_INVOCATION + 1, 1, true);
        assert_eq!(long.len(), 4);
        assert!(long.iter().all(|e| e.chunked()));
        let marks = key(AxisKind::Hardmax).entries(1, 1 << 20, 1, false);
        assert_eq!(marks, [AxisEntry::F64ChunkTops, AxisEntry::F64ChunkResults]);
        // Many rows on a CPU adapter: an invocation each while the loop budget allows.
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, 256, 1, true), [AxisEntry::F64RowPerInvocation]);
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, 257, 1, true).len(), 4);
        assert_eq!(key(AxisKind::Softmax).entries(MANY_ROWS, 256, 1, false).len(), 4);
    }
}

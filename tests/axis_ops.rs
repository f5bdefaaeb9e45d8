//! Softmax, LogSoftmax and Hardmax on the GPU against the CPU reference (`src/cpu/axis.rs`,
//! f64 and double-double, rounded once): every axis of several shapes and each version's rows,
//! the rows' special cases, rows of 1 to 2^20 elements, subnormal probabilities, LogSoftmax
//! near 0, and what is refused.

mod common;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::ops::{AXIS_OPS, AxisOp, HARDMAX, LOG_SOFTMAX, SOFTMAX};
use wgpu_activations::{AxisLayout, Context, ContextOptions, DType, FloatElement, axis_op, reference, ulp};

/// The shared context and one that takes a GPU's forms of the kernels over an axis wherever it
/// runs (long rows in chunks each held by a workgroup, read twice; on a GPU, the same forms
/// twice), or none (test skipped) when no adapter exists and none is required.
fn contexts() -> Option<[&'static Context; 2]> {
    static GPU_FORMS: std::sync::OnceLock<Option<Context>> = std::sync::OnceLock::new();
    let gpu_forms = GPU_FORMS.get_or_init(|| common::ctx_with(ContextOptions::from_env().with_axis_cpu_forms(false)));
    Some([common::ctx()?, gpu_forms.as_ref()?])
}

/// Random values with the rows' typical spread (normal-ish, scale `scale`), a few repeated.
fn random<T: FloatElement>(rng: &mut StdRng, shape: &[usize], scale: f64) -> ArrayD<T> {
    let len: usize = shape.iter().product();
    let values: Vec<T> = (0..len)
        .map(|i| {
            let u: f64 = rng.random_range(-1.0..1.0);
            let v: f64 = rng.random_range(-1.0..1.0);
            T::from_f64(if i % 7 == 3 { 2.5 * scale } else { scale * (u + v) * 2.0 })
        })
        .collect();
    ArrayD::from_shape_vec(IxDyn(shape), values).unwrap()
}

/// The worst ULP distance of `op` on `x` against the reference, asserting the bound.
fn check<T: FloatElement + wgpu_activations::Blocking>(
    ctx: &Context,
    op: &'static AxisOp,
    version: u32,
    x: &ArrayD<T>,
    axis: i64,
    what: &str,
) -> u64 {
    let expected = reference::axis_op(op, Some(version), x.view(), axis).unwrap();
    let y = axis_op(ctx, op, Some(version), x.view(), axis).unwrap_or_else(|e| panic!("{what}: {e}"));
    worst_distance(op, &y, &expected, what)
}

/// [`check`] of version 13 along the last axis against the reference's `expected`, computed
/// once for the adapters that share it.
fn check_rows_against<T: FloatElement + wgpu_activations::Blocking>(
    ctx: &Context,
    op: &'static AxisOp,
    x: &ArrayD<T>,
    expected: &ArrayD<T>,
    what: &str,
) -> u64 {
    let y = axis_op(ctx, op, Some(13), x.view(), -1).unwrap_or_else(|e| panic!("{what}: {e}"));
    worst_distance(op, &y, expected, what)
}

/// The worst ULP distance of `y` from `expected`, asserting `op`'s bound.
fn worst_distance<T: FloatElement>(op: &AxisOp, y: &ArrayD<T>, expected: &ArrayD<T>, what: &str) -> u64 {
    let bound = op.max_ulp.for_dtype(T::DTYPE);
    let mut worst = 0;
    for (i, (&a, &e)) in y.iter().zip(expected.iter()).enumerate() {
        let distance = ulp::ulp_distance(a, e).unwrap_or(u64::MAX);
        assert!(
            ulp::within_ulp(a, e, bound),
            "{} {} {what}: element {i} of {:?}: {:e} against {:e} ({distance} ULP > {bound})",
            op.onnx_name,
            T::DTYPE,
            y.shape(),
            a.to_f64(),
            e.to_f64()
        );
        worst = worst.max(distance);
    }
    worst
}

fn every_axis_and_version<T: FloatElement + wgpu_activations::Blocking>() {
    let ctx = gpu_or_skip!();
    let mut rng = StdRng::seed_from_u64(0x50f7);
    for op in AXIS_OPS {
        let mut worst = 0;
        for shape in [&[7usize][..], &[3, 5], &[2, 3, 4], &[4, 1, 9, 6], &[1, 1], &[2, 0, 3]] {
            let x = random::<T>(&mut rng, shape, 3.0);
            let rank = shape.len() as i64;
            for version in [1, 11, 13] {
                if !op.accepts_at(T::DTYPE, version) {
                    continue;
                }
                for axis in -rank..rank {
                    worst = worst.max(check(ctx, op, version, &x, axis, &format!("v{version} axis {axis}")));
                }
            }
        }
        println!("{} {}: worst {worst} ULP over every axis", op.onnx_name, T::DTYPE);
    }
}

tests_per_dtype!(every_axis_and_version: f32, f16, bf16, f64);

/// Rows of every length the kernel meets, up to 2^20, spread wide enough that exponents
/// differ by dozens (and some probabilities are subnormal).
fn long_rows<T: FloatElement + wgpu_activations::Blocking>() {
    let ctx = gpu_or_skip!();
    let mut rng = StdRng::seed_from_u64(0x10ff);
    // (12, 300) and (100, 1024): rows a CPU adapter reads a vector at a time, short, and many.
    // (4097, 2) and (20001, 3): odd rows longer than a workgroup holds (a workgroup a row on a
    // CPU adapter; held chunks on a GPU, and in long_rows_in_a_gpus_forms).
    let shapes = [
        (1usize, 3usize),
        (2, 5),
        (12, 300),
        (33, 9),
        (100, 1024),
        (1000, 4),
        (4097, 2),
        (20001, 3),
        (1 << 16, 1),
        (1 << 20, 1),
    ];
    for (n, rows) in shapes {
        // The longest row once, in f32 (the 16-bit types share its sums).
        if (T::DTYPE != DType::F32 && n > 1 << 16) || (T::DTYPE == DType::F64 && n > 5000) {
            continue;
        }
        for scale in [1.0, 30.0] {
            let x = random::<T>(&mut rng, &[rows, n], scale);
            for op in [&SOFTMAX, &LOG_SOFTMAX, &HARDMAX] {
                let worst = check(ctx, op, 13, &x, -1, &format!("rows of {n}, scale {scale}"));
                println!("{} {} rows of {n} (scale {scale}): worst {worst} ULP", op.onnx_name, T::DTYPE);
            }
        }
    }
}

/// Rows longer than a workgroup holds in a GPU's forms (chunks of 4096, each held by a
/// workgroup, with its sums against its own maximum rescaled once to the row's), on whatever
/// adapter runs the tests: odd lengths, a last chunk of one element, a row along the first axis.
/// (Many rows take the same entry points: `kernel::axis`'s tests.)
fn long_rows_in_a_gpus_forms<T: FloatElement + wgpu_activations::Blocking>() {
    let Some([_, gpu_forms]) = contexts() else { return };
    let mut rng = StdRng::seed_from_u64(0x4e1d);
    let cases = [(vec![2, 4097], -1), (vec![3, 20001], -1), (vec![2, 1 << 16], -1), (vec![5000, 3], 0)];
    for (shape, axis) in cases {
        for scale in [1.0, 30.0] {
            let x = random::<T>(&mut rng, &shape, scale);
            for op in [&SOFTMAX, &LOG_SOFTMAX, &HARDMAX] {
                let what = format!("{shape:?} along axis {axis}, scale {scale}");
                let worst = check(gpu_forms, op, 13, &x, axis, &what);
                println!("{} {} {what}: worst {worst} ULP", op.onnx_name, T::DTYPE);
            }
        }
    }
}

tests_per_dtype!(long_rows_in_a_gpus_forms: f32, f16, bf16);

/// Rows a workgroup holds, in a GPU's forms: along the last axis a segment of a workgroup's
/// invocations a row, sized to it (one invocation for rows of up to 4, two for 8, 16 for 33, 32
/// for 128, 64 for 129, the whole workgroup from 1000), with row counts that leave the last
/// workgroup part empty; and rows along another axis. In each shape a row holds NaN, one +inf, one a tie for
/// its maximum (Hardmax marks the first), one -inf but for one element.
fn rows_in_segments_in_a_gpus_forms<T: FloatElement + wgpu_activations::Blocking>() {
    let Some([_, gpu_forms]) = contexts() else { return };
    let mut rng = StdRng::seed_from_u64(0x5e9);
    let cases = [
        (vec![2, 0], -1),
        (vec![0, 5], -1),
        (vec![3, 1], -1),
        (vec![7, 3], -1),
        (vec![130, 8], -1),
        (vec![9, 33], -1),
        (vec![33, 64], -1),
        (vec![17, 128], -1),
        (vec![5, 129], -1),
        (vec![6, 1000], -1),
        (vec![5, 1025], -1),
        (vec![4, 4096], -1),
        (vec![3, 40, 5], 1),
    ];
    for (shape, axis) in cases {
        let mut x = random::<T>(&mut rng, &shape, 3.0);
        let n = shape[shape.len() - 1];
        if axis == -1 && n >= 2 && shape[0] >= 4 {
            let mut set = |row: usize, i: usize, v: f64| x[[row, i]] = T::from_f64(v);
            set(0, n / 2, f64::NAN);
            set(1, n - 1, f64::INFINITY);
            set(2, n / 3, 40.0);
            set(2, n - 1, 40.0);
            for i in 0..n {
                set(3, i, f64::NEG_INFINITY);
            }
            set(3, n - 2, 1.0);
        }
        for op in AXIS_OPS {
            let what = format!("{shape:?} along axis {axis}, a GPU's forms");
            let worst = check(gpu_forms, op, 13, &x, axis, &what);
            println!("{} {} {what}: worst {worst} ULP", op.onnx_name, T::DTYPE);
        }
        if axis == -1 && n >= 3 && shape[0] >= 4 {
            let y = axis_op(gpu_forms, &HARDMAX, None, x.view(), -1).unwrap();
            let marked = (0..n).filter(|&i| y[[2, i]].to_f64() == 1.0).collect::<Vec<_>>();
            assert_eq!(marked, [n / 3], "{shape:?}: the first of a tie");
        }
    }
}

tests_per_dtype!(rows_in_segments_in_a_gpus_forms: f32, f16, bf16);

tests_per_dtype!(long_rows: f32, f16, bf16);

/// The function bodies' special rows: NaN or +inf anywhere (NaN throughout), only -inf (NaN),
/// -inf beside finite values (0 and -inf: attention masks), huge values of both signs, ties
/// (Hardmax marks the first), and LogSoftmax near 0 (one term dominating).
#[test]
fn special_rows_follow_the_function_bodies() {
    let ctx = gpu_or_skip!();
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let rows: [[f32; 4]; 10] = [
        [1.0, nan, 2.0, 3.0],
        [1.0, inf, 2.0, 3.0],
        [-inf, -inf, -inf, -inf],
        [-inf, 1.0, -inf, 2.0],
        [3.0e38, -3.0e38, 1.0, 3.0e38],
        [0.0, -30.0, -40.0, -90.0],
        [0.0, -100.0, -101.0, -103.5],
        [2.0, 2.0, 1.0, -0.0],
        [-0.0, 0.0, -1e-45, 1e-45],
        [5.0, nan, 7.0, nan],
    ];
    let x = ndarray::Array2::from_shape_vec((rows.len(), 4), rows.concat()).unwrap();
    for op in AXIS_OPS {
        let y = axis_op(ctx, op, None, x.view(), -1).unwrap();
        let expected = reference::axis_op(op, None, x.view(), -1).unwrap();
        for (i, (&a, &e)) in y.iter().zip(expected.iter()).enumerate() {
            assert!(ulp::within_ulp(a, e, op.max_ulp.f32), "{} row {}: {a:e} against {e:e}", op.onnx_name, i / 4);
        }
    }
    let softmax = axis_op(ctx, &SOFTMAX, None, x.view(), -1).unwrap();
    assert!(softmax.row(0).iter().chain(softmax.row(1).iter()).chain(softmax.row(2).iter()).all(|v| v.is_nan()));
    assert_eq!(softmax.row(3)[0], 0.0);
    assert!(softmax.row(6)[3] > 0.0 && softmax.row(6)[3] < f32::MIN_POSITIVE, "a subnormal probability");
    let log_softmax = axis_op(ctx, &LOG_SOFTMAX, None, x.view(), -1).unwrap();
    assert_eq!(log_softmax.row(3)[0], f32::NEG_INFINITY);
    assert!(log_softmax.row(5)[0] < 0.0 && log_softmax.row(5)[0] > -1e-12, "{}", log_softmax.row(5)[0]);
    let hardmax = axis_op(ctx, &HARDMAX, None, x.view(), -1).unwrap();
    assert_eq!(hardmax.row(7).to_vec(), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(hardmax.row(9).to_vec(), [0.0, 1.0, 0.0, 0.0]);
}

/// The special rows again, each special element in its own part of a long row: rows of 8192 (a
/// CPU adapter's vector chunks: 8 of 1024, each chunk's top and sums joined for the row) and of
/// 8193 (a workgroup a row there), along the last axis and along axis 0 of the transpose (a CPU
/// adapter's chunks of four rows side by side), and both in a GPU's forms (chunks of 4096 held by a
/// workgroup, each chunk's sums against its own maximum, rescaled once to the row's). The first maximum where a later chunk ties it,
/// NaN or +inf in one late chunk, a row masked to -inf but for one element, only -inf, one term
/// far above the rest (LogSoftmax near 0), and one so far above that the other chunks' sums are
/// below 2^-100 of it (LogSoftmax's result at it subnormal).
fn special_elements_in_long_rows<T: FloatElement + wgpu_activations::Blocking>() {
    let Some(contexts) = contexts() else { return };
    for n in [8192, 8193] {
        let mut rng = StdRng::seed_from_u64(0xc4a2);
        let mut x = random::<T>(&mut rng, &[8, n], 1.0);
        let mut set = |row: usize, i: usize, v: f64| x[[row, i]] = T::from_f64(v);
        set(0, 5 * 1024 + 17, 9.0);
        set(0, 7 * 1024 + 2, 9.0);
        set(0, n - 1, 9.0);
        set(0, 1024 + 5, 8.5);
        set(1, 6 * 1024 + 3, f64::NAN);
        set(1, 7 * 1024 + 1000, f64::NAN);
        set(2, 3 * 1024 + 511, f64::INFINITY);
        for i in 0..n {
            set(3, i, f64::NEG_INFINITY);
            set(4, i, f64::NEG_INFINITY);
        }
        set(3, 4 * 1024 + 9, 0.5);
        set(5, 3 * 1024 + 100, 40.0);
        set(6, n - 1, 20.0);
        set(7, 2, 101.0);
        let expected: Vec<_> =
            AXIS_OPS.iter().map(|op| reference::axis_op(op, Some(13), x.view(), -1).unwrap()).collect();
        for (ctx, form) in contexts.into_iter().zip(["the adapter's forms", "a GPU's forms"]) {
            special_elements_in_a_long_row(
                ctx,
                &x,
                &expected,
                &format!("special elements in long rows of {n}, {form}"),
            );
        }
    }
}

/// [`special_elements_in_long_rows`] on one context, `expected` the reference of each of
/// `AXIS_OPS`.
fn special_elements_in_a_long_row<T: FloatElement + wgpu_activations::Blocking>(
    ctx: &Context,
    x: &ArrayD<T>,
    expected: &[ArrayD<T>],
    what: &str,
) {
    let n = x.shape()[1];
    // The same rows along axis 0 of the transpose, eight side by side (a CPU adapter's chunks of
    // four rows read as vectors, a GPU's held chunks read across rows).
    let transposed = x.t().as_standard_layout().into_owned();
    for (op, expected) in AXIS_OPS.iter().zip(expected) {
        let worst = check_rows_against(ctx, op, x, expected, what);
        println!("{} {} {what}: worst {worst} ULP", op.onnx_name, T::DTYPE);
        let y = axis_op(ctx, op, Some(13), transposed.view(), 0).unwrap_or_else(|e| panic!("{what}: {e}"));
        let along_axis_0 = format!("{what}, along axis 0");
        let worst = worst_distance(op, &y.t().as_standard_layout().into_owned(), expected, &along_axis_0);
        println!("{} {} {along_axis_0}: worst {worst} ULP", op.onnx_name, T::DTYPE);
    }
    let row_of = |op, row: usize| -> Vec<f64> {
        let y = axis_op(ctx, op, None, x.view(), -1).unwrap();
        (0..n).map(|i| y[[row, i]].to_f64()).collect()
    };
    let marked = |row| row_of(&HARDMAX, row).iter().position(|&v| v == 1.0);
    assert_eq!(
        [0, 1, 2, 5, 6, 7].map(|row| marked(row).unwrap()),
        [5 * 1024 + 17, 6 * 1024 + 3, 3 * 1024 + 511, 3 * 1024 + 100, n - 1, 2],
        "{what}"
    );
    assert!([1, 2, 4].iter().all(|&row| row_of(&SOFTMAX, row).iter().all(|v| v.is_nan())));
    assert!(row_of(&SOFTMAX, 3).iter().enumerate().all(|(i, &v)| v == if i == 4 * 1024 + 9 { 1.0 } else { 0.0 }));
    let near_zero = row_of(&LOG_SOFTMAX, 5)[3 * 1024 + 100];
    // About -5e-12: -0.0 in f16.
    assert!(near_zero.is_sign_negative() && near_zero > -1e-9, "{what}: {near_zero:e}");
    let nearer_zero = row_of(&LOG_SOFTMAX, 7)[2];
    assert!(nearer_zero.is_sign_negative() && nearer_zero > -1e-35, "{what}: {nearer_zero:e}");
}

tests_per_dtype!(special_elements_in_long_rows: f32, f16);

/// Ties for a row's maximum in more chunks than a workgroup has invocations (a GPU's forms: 600
/// chunks of 4096, each invocation of the join taking every 256th chunk, then the workgroup
/// joining its invocations): the first maximum is in chunk 260 (invocation 4's second), tied
/// later in its own invocation's third chunk (516), in another invocation's (300) and in an
/// earlier invocation's third (515). Hardmax marks the first; Softmax and LogSoftmax count every
/// tie once. (The CPU adapters' forms join a row's chunks in order: `special_elements_in_long_rows`.)
#[test]
fn ties_across_more_chunks_than_a_workgroup_has_invocations() {
    let Some([_, gpu_forms]) = contexts() else { return };
    const CHUNK: usize = 4096;
    let n = 600 * CHUNK;
    let mut rng = StdRng::seed_from_u64(0x600);
    let mut x = random::<f32>(&mut rng, &[2, n], 1.0);
    let first = 260 * CHUNK + 4000;
    for i in [515 * CHUNK + 7, first, 300 * CHUNK, 516 * CHUNK + 1] {
        x[[0, i]] = 50.0;
    }
    x[[1, n - 1]] = 50.0;
    let what = "ties across 600 chunks, a GPU's forms";
    for op in AXIS_OPS {
        let worst = check(gpu_forms, op, 13, &x, -1, what);
        println!("{} f32 {what}: worst {worst} ULP", op.onnx_name);
    }
    let y = axis_op(gpu_forms, &HARDMAX, None, x.view(), -1).unwrap();
    let marked: Vec<Vec<usize>> = (0..2).map(|row| (0..n).filter(|&i| y[[row, i]] == 1.0).collect()).collect();
    assert_eq!(marked, [vec![first], vec![n - 1]], "{what}");
}

/// LogSoftmax near 0 over rows of 2^20 (and 2^20 + 1: other forms), one element dominating by
/// 20, 40 and 101: at it the result is -log1p of the others' sum, whose terms lie about e^-20,
/// e^-40 and (below 2^-100 of the maximum) e^-101 below it. A sum of the others that carried the
/// maximum's 1, or the smallest terms summed plainly, was 8 and 70 ULP off here.
#[test]
fn log_softmax_near_zero_over_rows_of_a_million() {
    let Some(contexts) = contexts() else { return };
    let mut rng = StdRng::seed_from_u64(0x77);
    for n in [1usize << 20, (1 << 20) + 1] {
        let mut x = random::<f32>(&mut rng, &[3, n], 1.0);
        for (row, above) in [20.0, 40.0, 101.0].into_iter().enumerate() {
            x[[row, 5 + 1000 * row]] = above;
        }
        for op in [&LOG_SOFTMAX, &SOFTMAX] {
            let expected = reference::axis_op(op, Some(13), x.view(), -1).unwrap();
            for (ctx, form) in contexts.into_iter().zip(["the adapter's forms", "a GPU's forms"]) {
                let what = format!("rows of {n}, one element far above, {form}");
                let worst = check_rows_against(ctx, op, &x, &expected, &what);
                println!("{} f32 {what}: worst {worst} ULP", op.onnx_name);
            }
        }
    }
}

/// The special rows along the first axis, where neighbouring rows lie side by side (a CPU
/// adapter reads four of them as one vector): columns of [12, 1024] holding NaN, +inf, only
/// -inf, -inf but one element, a tie and one term far above the rest, beside random ones.
fn special_elements_in_rows_side_by_side<T: FloatElement + wgpu_activations::Blocking>() {
    let ctx = gpu_or_skip!();
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let mut x = random::<T>(&mut rng, &[12, 1024], 1.0);
    let mut set = |i: usize, column: usize, v: f64| x[[i, column]] = T::from_f64(v);
    set(5, 0, f64::NAN);
    set(7, 1, f64::INFINITY);
    for i in 0..12 {
        set(i, 2, f64::NEG_INFINITY);
        set(i, 3, f64::NEG_INFINITY);
    }
    set(11, 3, -2.0);
    set(2, 4, 9.0);
    set(9, 4, 9.0);
    set(6, 5, 40.0);
    set(3, 6, f64::NAN);
    set(8, 6, f64::NAN);
    for op in AXIS_OPS {
        check(ctx, op, 13, &x, 0, "special elements in rows side by side");
    }
    let hardmax = axis_op(ctx, &HARDMAX, None, x.view(), 0).unwrap();
    let marked = |column: usize| (0..12).find(|&i| hardmax[[i, column]].to_f64() == 1.0);
    assert_eq!([0, 1, 3, 4, 5, 6].map(marked), [5, 7, 11, 2, 6, 3].map(Some));
}

tests_per_dtype!(special_elements_in_rows_side_by_side: f32, f16);

/// Many rows longer than a cache line and shorter than a page (a CPU adapter takes a page of them
/// an invocation, one after the other): rows of 36, 64 and 132, row counts that leave the last
/// invocation fewer, NaN, +inf, only -inf, a masked row, a tie and a dominant term in rows at the
/// beginning, the middle and the end of the runs.
fn special_rows_in_runs<T: FloatElement + wgpu_activations::Blocking>() {
    let ctx = gpu_or_skip!();
    let mut rng = StdRng::seed_from_u64(0x7a9e);
    for (rows, n) in [(1501usize, 36usize), (2050, 64), (4099, 132)] {
        let mut x = random::<T>(&mut rng, &[rows, n], 3.0);
        let mut set = |row: usize, i: usize, v: f64| x[[row, i]] = T::from_f64(v);
        for (k, row) in [0, 1, 7, rows / 2, rows / 2 + 1, rows - 3, rows - 2, rows - 1].into_iter().enumerate() {
            match k % 6 {
                0 => set(row, n / 3, f64::NAN),
                1 => set(row, n - 1, f64::INFINITY),
                2 => (0..n).for_each(|i| set(row, i, f64::NEG_INFINITY)),
                3 => (0..n).filter(|i| i % 5 != 2).for_each(|i| set(row, i, f64::NEG_INFINITY)),
                4 => [3, n - 2].into_iter().for_each(|i| set(row, i, 50.0)),
                _ => set(row, n / 2, 40.0),
            }
        }
        for op in AXIS_OPS {
            check(ctx, op, 13, &x, -1, &format!("{rows} rows of {n} in runs"));
        }
    }
}

tests_per_dtype!(special_rows_in_runs: f32, f16, bf16);

/// Long rows along the first axis in runs of sixteen groups of four side by side (inner 128: a CPU
/// adapter's chunks of four rows, each run's groups taken by its invocations interleaved), each
/// row's maximum at its own place in one of its three chunks, NaN in two rows: Hardmax marks
/// each row's own maximum, and Softmax and LogSoftmax hold their bounds.
fn long_rows_in_runs_side_by_side<T: FloatElement + wgpu_activations::Blocking>() {
    let ctx = gpu_or_skip!();
    let (n, columns) = (3000, 128);
    let mut rng = StdRng::seed_from_u64(0x1a7e);
    let mut x = random::<T>(&mut rng, &[n, columns], 1.0);
    let top = |column: usize| (column * 397 + 11) % n;
    for column in 0..columns {
        x[[top(column), column]] = T::from_f64(9.0);
    }
    x[[2500, 17]] = T::from_f64(f64::NAN);
    x[[40, 100]] = T::from_f64(f64::NAN);
    for op in AXIS_OPS {
        check(ctx, op, 13, &x, 0, "long rows in runs side by side");
    }
    let hardmax = axis_op(ctx, &HARDMAX, None, x.view(), 0).unwrap();
    for column in 0..columns {
        let marked: Vec<_> = (0..n).filter(|&i| hardmax[[i, column]].to_f64() == 1.0).collect();
        let expected = match column {
            17 => 2500,
            100 => 40,
            _ => top(column),
        };
        assert_eq!(marked, [expected], "Hardmax {} column {column}", T::DTYPE);
    }
}

tests_per_dtype!(long_rows_in_runs_side_by_side: f32, f16);

/// Hardmax's order among zeros of either sign (equal: the first marked), subnormals (the
/// 16-bit kernels compare them without converting them exactly) and NaN (the first marked), in
/// rows of 8 and of 7 along the last axis and in columns along the first, in both forms.
fn hardmax_orders_zeros_subnormals_and_nan<T: FloatElement + wgpu_activations::Blocking>() {
    let Some(contexts) = contexts() else { return };
    let (normal, s) = match T::DTYPE {
        DType::F16 => (2f64.powi(-14), 2f64.powi(-24)),
        DType::BF16 => (2f64.powi(-126), 2f64.powi(-133)),
        _ => (2f64.powi(-126), 2f64.powi(-149)),
    };
    let (inf, nan, top) = (f64::INFINITY, f64::NAN, normal - s);
    let rows: [([f64; 8], usize); 8] = [
        ([-0.0, 0.0, -s, -2.0 * s, -1.0, -inf, 0.0, -0.0], 0),
        ([s, 2.0 * s, -0.0, 0.0, 2.0 * s, s, 0.0, -s], 1),
        ([top, normal, top, normal, 0.0, -0.0, s, 2.0 * s], 1),
        ([-top, -s, -0.0, -normal, 0.0, -s, -0.0, -normal], 2),
        ([0.0, -0.0, nan, s, nan, normal, 1.0, 2.0], 2),
        ([-inf, -inf, -inf, -s, -inf, -inf, -inf, -inf], 3),
        ([s; 8], 0),
        ([-s, -s, -0.0, -s, -s, -s, -s, -s], 2),
    ];
    let values: Vec<T> = rows.iter().flat_map(|(row, _)| row.map(T::from_f64)).collect();
    assert!(
        values
            .iter()
            .zip(rows.iter().flat_map(|(row, _)| *row))
            .all(|(v, w)| v.to_f64().to_bits() == w.to_bits() || w.is_nan())
    );
    let x = ArrayD::from_shape_vec(IxDyn(&[rows.len(), 8]), values).unwrap();
    let odd = x.slice(ndarray::s![.., ..7]).to_owned().into_dyn();
    let columns = x.t().as_standard_layout().to_owned();
    let cases = [(&x, -1, "rows of 8"), (&odd, -1, "rows of 7"), (&columns, 0, "columns")];
    for ((x, axis, what), ctx) in cases.into_iter().flat_map(|case| contexts.map(|ctx| (case, ctx))) {
        let y = axis_op(ctx, &HARDMAX, None, x.view(), axis).unwrap();
        let expected = reference::axis_op(&HARDMAX, None, x.view(), axis).unwrap();
        let y = if axis == 0 { y.t().to_owned() } else { y };
        let expected = if axis == 0 { expected.t().to_owned() } else { expected };
        for (r, (_, first)) in rows.iter().enumerate() {
            let marked: Vec<usize> = (0..y.shape()[1]).filter(|&i| y[[r, i]].to_f64() == 1.0).collect();
            assert_eq!(marked, [*first], "{} {what}, row {r}", T::DTYPE);
            let zeros = (0..y.shape()[1]).filter(|&i| y[[r, i]].to_f64().to_bits() == 0).count();
            assert_eq!(zeros, y.shape()[1] - 1, "{} {what}, row {r}: +0 elsewhere", T::DTYPE);
        }
        assert!(y.iter().zip(expected.iter()).all(|(a, e)| a.to_f64().to_bits() == e.to_f64().to_bits()));
    }
}

tests_per_dtype!(hardmax_orders_zeros_subnormals_and_nan: f32, f16, bf16);

/// An axis out of range, a dtype a version does not allow and an unknown version are refused
/// with an error naming the operator; nothing panics.
#[test]
fn bad_input_is_refused() {
    let ctx = gpu_or_skip!();
    let x = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let error = axis_op(ctx, &SOFTMAX, Some(13), x.view(), 2).unwrap_err().to_string();
    assert!(error.contains("Softmax") && error.contains("axis"), "{error}");
    let b = ArrayD::<bf16>::zeros(IxDyn(&[2, 3]));
    let error = axis_op(ctx, &LOG_SOFTMAX, Some(11), b.view(), 1).unwrap_err().to_string();
    assert!(error.contains("LogSoftmax") && error.contains("bf16"), "{error}");
    assert!(axis_op(ctx, &HARDMAX, Some(0), x.view(), 1).is_err());
    let scalar = ArrayD::<f16>::zeros(IxDyn(&[]));
    assert!(axis_op(ctx, &SOFTMAX, None, scalar.view(), 0).is_err());
    assert_eq!(AxisLayout::new(&SOFTMAX, 13, &[2, 3], -1).unwrap().rows(), 2);
}

/// LogSoftmax at a row's maximum where every other term is below 2^-150: -log1p(others) is a
/// negative number too small for the dtype, so -0.0; with nothing else in the row, +0.0.
#[test]
fn log_softmax_at_a_maximum_far_above_the_rest_is_minus_zero() {
    let ctx = gpu_or_skip!();
    let x = ndarray::Array2::from_shape_vec(
        (3, 3),
        vec![139.0f32, 0.0, -1.0, 5.0, f32::NEG_INFINITY, f32::NEG_INFINITY, 7.0, 0.0, -1e30],
    )
    .unwrap();
    let y = axis_op(ctx, &LOG_SOFTMAX, None, x.view(), -1).unwrap();
    assert_eq!(y[[0, 0]].to_bits(), (-0.0f32).to_bits());
    assert_eq!(y[[1, 0]].to_bits(), 0.0f32.to_bits());
    let expected = reference::axis_op(&LOG_SOFTMAX, None, x.view(), -1).unwrap();
    for (a, e) in y.iter().zip(expected.iter()) {
        assert!(ulp::within_ulp(*a, *e, 3), "{a:e} against {e:e}");
    }
    let h =
        ndarray::Array2::from_shape_vec((1, 3), vec![f16::from_f32(139.0), f16::from_f32(0.0), f16::from_f32(6.5e-6)])
            .unwrap();
    let y = axis_op(ctx, &LOG_SOFTMAX, None, h.view(), -1).unwrap();
    assert_eq!(y[[0, 0]].to_bits(), f16::from_f32(-0.0).to_bits());
}

/// f64 on each f64 path the adapter has (native f64, and the software path on u32 pairs): rows
/// of 1 to 2^16 elements (2^20 on the native path), the longest in chunks of a workgroup each,
/// an axis other than the last, spreads that make probabilities subnormal or vanish, the
/// function bodies' special rows, and device tensors in the caller's encoder, bit for bit as
/// the host call. The paths run side by side, each reference computed once for both: the exact
/// arithmetic over these rows took most of the test's two minutes on lavapipe when each path
/// computed its own.
#[test]
fn f64_on_every_path() {
    let _ = gpu_or_skip!();
    struct Case {
        shape: Vec<usize>,
        axis: i64,
        scale: f64,
        x: ArrayD<f64>,
        expected: [std::sync::OnceLock<ArrayD<f64>>; 2],
    }
    let mut rng = StdRng::seed_from_u64(0x64);
    let mut shapes: Vec<(Vec<usize>, i64)> = [(1usize, 3usize), (5, 4), (16, 3), (17, 2), (1000, 3), (4097, 2)]
        .into_iter()
        .map(|(n, rows)| (vec![rows, n], -1))
        .collect();
    shapes.push((vec![5000, 3], 0));
    // Many rows: an invocation each on a CPU adapter (while its loop budget allows), chunks
    // elsewhere.
    shapes.push((vec![1024, 40], -1));
    shapes.push((vec![1024, 300], -1));
    shapes.push((vec![1, 1 << 16], -1));
    // The native path's alone.
    let native_only = vec![1, 1 << 20];
    shapes.push((native_only.clone(), -1));
    let mut cases = Vec::new();
    for (shape, axis) in shapes {
        // The longest rows at one spread: the reference takes seconds over them.
        let scales: &[f64] = if shape.iter().product::<usize>() > 1 << 14 { &[30.0] } else { &[1.0, 30.0, 250.0] };
        for &scale in scales {
            let x = random::<f64>(&mut rng, &shape, scale);
            cases.push(Case { shape: shape.clone(), axis, scale, x, expected: Default::default() });
        }
    }
    common::on_every_path(DType::F64, |path, ctx| {
        let native = matches!(ctx.dtype_path(DType::F64), wgpu_activations::DTypePath::Native(_));
        let mut worst = [0u64; 2];
        for case in cases.iter().filter(|case| native || case.shape != native_only) {
            let (shape, axis, x) = (&case.shape, case.axis, &case.x);
            for (k, op) in [&SOFTMAX, &LOG_SOFTMAX].into_iter().enumerate() {
                // The 2^20 row once: LogSoftmax shares its chunks' dispatches.
                if k == 1 && shape.iter().product::<usize>() >= 1 << 20 {
                    continue;
                }
                let what = format!("{path}: {shape:?} axis {axis}, scale {}", case.scale);
                let expected =
                    case.expected[k].get_or_init(|| reference::axis_op(op, Some(13), x.view(), axis).unwrap());
                let y = axis_op(ctx, op, Some(13), x.view(), axis).unwrap_or_else(|e| panic!("{what}: {e}"));
                worst[k] = worst[k].max(worst_distance(op, &y, expected, &what));
            }
            let hardmax = axis_op(ctx, &HARDMAX, None, x.view(), axis).unwrap();
            assert_eq!(hardmax, reference::axis_op(&HARDMAX, None, x.view(), axis).unwrap(), "{path}: {shape:?}");
        }
        println!("f64 ({path}): Softmax worst {} ULP, LogSoftmax worst {} ULP", worst[0], worst[1]);

        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let rows: [[f64; 4]; 10] = [
            [1.0, nan, 2.0, 3.0],
            [1.0, inf, 2.0, 3.0],
            [-inf, -inf, -inf, -inf],
            [-inf, 1.0, -inf, 2.0],
            [1.7e308, -1.7e308, 1.0, 1.7e308],
            [0.0, -40.0, -700.0, -900.0],
            [0.0, -740.0, -744.0, -760.0],
            [1e30, -1e30, -inf, -2e30],
            [-0.0, 0.0, -5e-324, 5e-324],
            [5.0, nan, 7.0, nan],
        ];
        let x = ndarray::Array2::from_shape_vec((rows.len(), 4), rows.concat()).unwrap().into_dyn();
        for op in AXIS_OPS {
            let y = axis_op(ctx, op, None, x.view(), -1).unwrap();
            let expected = reference::axis_op(op, None, x.view(), -1).unwrap();
            for (i, (&a, &e)) in y.iter().zip(expected.iter()).enumerate() {
                assert!(
                    ulp::within_ulp(a, e, op.max_ulp.f64),
                    "{path} {} row {}: {a:e} against {e:e}",
                    op.onnx_name,
                    i / 4
                );
            }
            // Device tensors, recorded into the caller's encoder: the host call's bits.
            let device_x = ctx.upload(x.view()).unwrap();
            let device_y = ctx.empty_tensor(x.shape(), DType::F64).unwrap();
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            ctx.encode_axis(&mut encoder, op, &device_x, &device_y, -1, None).unwrap();
            ctx.queue().submit([encoder.finish()]);
            let encoded = ctx.download::<f64>(&device_y).unwrap();
            assert!(encoded.iter().zip(y.iter()).all(|(a, b)| a.to_bits() == b.to_bits()), "{path} {}", op.onnx_name);
        }
        let softmax = axis_op(ctx, &SOFTMAX, None, x.view(), -1).unwrap();
        assert_eq!(softmax[[3, 0]], 0.0);
        let subnormal = softmax[[6, 1]];
        assert!(subnormal > 0.0 && subnormal < f64::MIN_POSITIVE, "{path}: a subnormal probability, {subnormal:e}");
        let log_softmax = axis_op(ctx, &LOG_SOFTMAX, None, x.view(), -1).unwrap();
        assert_eq!(log_softmax[[3, 0]], f64::NEG_INFINITY);
        assert!(log_softmax[[5, 0]] < 0.0 && log_softmax[[5, 0]] > -1e-16, "{path}: {}", log_softmax[[5, 0]]);
        assert_eq!(log_softmax[[7, 0]].to_bits(), (-0.0f64).to_bits(), "{path}: the rest vanished");
    });
}

//! Softmax, LogSoftmax and Hardmax on the GPU against the CPU reference (`src/cpu/axis.rs`,
//! f64 and double-double, rounded once): every axis of several shapes and each version's rows,
//! the rows' special cases, rows of 1 to 2^20 elements, subnormal probabilities, LogSoftmax
//! near 0, and what is refused.

mod common;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::ops::{AXIS_OPS, AxisOp, HARDMAX, LOG_SOFTMAX, SOFTMAX};
use wgpu_activations::{AxisLayout, Context, DType, FloatElement, axis_op, reference, ulp};

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
    let y = axis_op(ctx, op, Some(version), x.view(), axis).unwrap_or_else(|e| panic!("{what}: {e}"));
    let expected = reference::axis_op(op, Some(version), x.view(), axis).unwrap();
    let bound = op.max_ulp.for_dtype(T::DTYPE);
    let mut worst = 0;
    for (i, (&a, &e)) in y.iter().zip(expected.iter()).enumerate() {
        let distance = ulp::ulp_distance(a, e).unwrap_or(u64::MAX);
        assert!(
            ulp::within_ulp(a, e, bound),
            "{} {} {what}: element {i} of {:?}: {:e} against {:e} ({distance} ULP > {bound})",
            op.onnx_name,
            T::DTYPE,
            x.shape(),
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
    for (n, rows) in [(1usize, 3usize), (2, 5), (33, 9), (1000, 4), (4097, 2), (1 << 16, 1), (1 << 20, 1)] {
        // The longest row once, in f32 (the 16-bit types share its sums).
        if (T::DTYPE != DType::F32 && n > 1 << 16) || (T::DTYPE == DType::F64 && n > 5000) {
            continue;
        }
        for scale in [1.0, 30.0] {
            let x = random::<T>(&mut rng, &[rows, n], scale);
            for op in [&SOFTMAX, &LOG_SOFTMAX] {
                let worst = check(ctx, op, 13, &x, -1, &format!("rows of {n}, scale {scale}"));
                println!("{} {} rows of {n} (scale {scale}): worst {worst} ULP", op.onnx_name, T::DTYPE);
            }
        }
    }
}

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

//! PRelu on the GPU against the CPU reference: every slope pattern (scalar, per channel,
//! leading and trailing dims, same shape, mixed) on every dtype and path, tensors large enough
//! that channel runs straddle Vectors and invocations, integer wrap-around, refusals, binding
//! windows and host pieces.

mod common;

use common::{Sample, assert_close, max_ulp, path_contexts, path_contexts_for, samples, to_dyn};
use half::{bf16, f16};
use ndarray::{Array, ArrayD, IxDyn, array};
use wgpu_activations::{Context, ContextOptions, Element, Error, prelu, reference};

fn check<T: Sample>(ctx: &Context, what: &str, x_shape: &[usize], slope_shape: &[usize], seed: u64) {
    let x = to_dyn(samples::<T>(x_shape.iter().product(), seed), x_shape);
    let slope = to_dyn(samples::<T>(slope_shape.iter().product(), seed + 1), slope_shape);
    let y = prelu(ctx, x.view(), slope.view()).unwrap();
    let expected = reference::prelu(x.view(), slope.view()).unwrap();
    let what = format!("{what}: PRelu {} x{x_shape:?} slope{slope_shape:?}", T::DTYPE);
    assert_eq!(max_ulp(&what, &y, &expected, &x), 0, "{what}");
}

/// Slope shapes over X [2, 3, 5, 7]: every collapsed pattern.
const PATTERNS: [&[usize]; 10] = [
    &[],           // scalar
    &[1],          // one element
    &[3, 1, 1],    // per channel
    &[1, 3, 1, 1], // per channel, full rank
    &[7],          // last dim
    &[5, 7],       // trailing two dims
    &[2, 3, 5, 7], // same shape
    &[2, 1, 1, 7], // outer and inner
    &[1, 1, 5, 1], // middle
    &[2, 1, 5, 1], // alternating
];

/// Large tensors: channel runs of odd lengths that straddle Vectors, runs that are whole
/// Vectors, whole invocations and whole workgroups (of every dtype, on the default kernel
/// shape: the main pass's grid then gives the channel), small channel counts that wrap, and
/// general patterns: one walked throughout, and two whose innermost dims form a block of whole
/// Vectors read through a table (the bench's rank-6 pattern, smaller; and a block of 28
/// elements, 7 Vectors of 4, that an invocation's Vectors leave).
const LARGE: [(&[usize], &[usize]); 10] = [
    (&[3, 37, 1013], &[37, 1]),
    (&[5, 2001, 3], &[2001, 1]),
    (&[100_003, 3], &[3]),
    (&[41, 7, 4099], &[41, 1, 1]),
    (&[4, 64, 32, 32], &[64, 1, 1]),
    (&[2, 16, 4096], &[16, 1]),
    (&[3, 5, 8192], &[5, 1]),
    (&[2, 9, 3, 5, 7, 311], &[2, 1, 3, 1, 7, 1]),
    (&[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1]),
    (&[64, 3, 7, 2, 2], &[64, 1, 7, 2, 1]),
];

fn every_pattern<T: Sample>() {
    for (path, ctx) in path_contexts_for(T::DTYPE) {
        for (i, slope) in PATTERNS.iter().enumerate() {
            check::<T>(&ctx, path, &[2, 3, 5, 7], slope, 10 * i as u64);
        }
        for (i, (x, slope)) in LARGE.iter().enumerate() {
            check::<T>(&ctx, path, x, slope, 100 + i as u64);
        }
        check::<T>(&ctx, path, &[2, 3, 4, 5, 3, 2], &[3, 1, 5, 1, 1], 2);
        check::<T>(&ctx, path, &[], &[], 3);
        check::<T>(&ctx, path, &[65537], &[1], 4);
        check::<T>(&ctx, path, &[1_000_003], &[1_000_003], 5);
        check::<T>(&ctx, path, &[4, 0, 3], &[3], 6);
        check::<T>(&ctx, path, &[2, 0, 4096], &[0, 1], 19);
        // Trailing slopes of whole Vectors for every dtype (8, 16 and 48 values hold whole
        // Vectors of 2, 4 and 8 lanes): X's Vectors read the slope's Vectors.
        check::<T>(&ctx, path, &[3, 5, 16], &[16], 7);
        check::<T>(&ctx, path, &[2, 3, 8, 6], &[8, 6], 8);
        check::<T>(&ctx, path, &[1001, 8], &[8], 9);
        check::<T>(&ctx, path, &[3, 4099, 16], &[1, 16], 11);
    }
}

tests_per_dtype!(every_pattern: f32, f16, bf16, f64, i32, i64, u32, u64);

#[test]
fn every_16_bit_pattern_times_random_slopes_is_exact() {
    fn run<T: Sample>(from_bits: fn(u16) -> T) {
        for (path, ctx) in path_contexts_for(T::DTYPE) {
            let x = to_dyn((0..=u16::MAX).map(from_bits).collect(), &[1 << 16]);
            let slope = to_dyn(samples::<T>(1 << 16, 16), &[1 << 16]);
            let y = prelu(&ctx, x.view(), slope.view()).unwrap();
            let expected = reference::prelu(x.view(), slope.view()).unwrap();
            let what = format!("PRelu {} {path}", T::DTYPE);
            assert_eq!(max_ulp(&what, &y, &expected, &x), 0, "{what}");
            common::assert_passthrough(&what, &y, &x);
        }
    }
    run(f16::from_bits);
    run(bf16::from_bits);
}

fn wraps<T: Element>(ctx: &Context, path: &str, values: &[T], slopes: &[T]) {
    // Every value against every slope, the slope broadcast along X's last dim.
    let x = to_dyn(values.iter().flat_map(|&v| slopes.iter().map(move |_| v)).collect(), &[values.len(), slopes.len()]);
    let slope = to_dyn(slopes.to_vec(), &[slopes.len()]);
    assert_eq!(
        prelu(ctx, x.view(), slope.view()).unwrap(),
        reference::prelu(x.view(), slope.view()).unwrap(),
        "PRelu {} {path}",
        T::DTYPE
    );
}

#[test]
fn integer_prelu_wraps_like_numpy() {
    for (path, ctx) in path_contexts() {
        wraps(
            &ctx,
            path,
            &[i32::MIN, i32::MIN + 1, -65537, -3, -1, 0, 1, 65536, i32::MAX],
            &[-1, 0, 1, 2, -65536, i32::MAX, i32::MIN, 12345],
        );
        let i64s = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 53) - 1,
            -(1 << 53) - 3,
            -(1 << 32),
            -(1 << 31) - 1,
            -1,
            0,
            1 << 62,
            i64::MAX,
        ];
        wraps(&ctx, path, &i64s, &[-1, 0, 3, -(1 << 32) - 7, i64::MAX, i64::MIN, (1 << 53) + 1]);
        wraps(&ctx, path, &[0u32, 1, 1 << 31, (1 << 31) + 5, u32::MAX], &[0, 2, u32::MAX]);
        wraps(&ctx, path, &[0u64, 1, 1 << 63, (1 << 63) + 5, u64::MAX, 1 << 53], &[0, 2, u64::MAX]);
        // The wrap cases written out.
        let y = prelu(&ctx, array![i32::MIN].view(), array![-1i32].view()).unwrap();
        assert_eq!(y[0], i32::MIN, "-2^31 * -1 wraps to -2^31");
        let y = prelu(&ctx, array![i64::MIN].view(), array![-1i64].view()).unwrap();
        assert_eq!(y[0], i64::MIN);
        let big = -(1i64 << 53) - 1;
        assert_eq!(
            prelu(&ctx, array![big].view(), array![3i64].view()).unwrap()[0],
            big * 3,
            "no rounding through f64"
        );
        assert_eq!(
            prelu(&ctx, array![u64::MAX].view(), array![0u64].view()).unwrap()[0],
            u64::MAX,
            "the top bit is not a sign"
        );
    }
}

#[test]
fn general_patterns_in_either_layout_of_an_invocations_vectors() {
    // Consecutive (CPU drivers' default: a block of whole invocations through the table) and a
    // workgroup apart (GPUs': a block of whole Vectors, walked to per Vector): each layout on
    // whatever adapter the suite has, so a CPU adapter checks the GPUs' kernels too. Slope
    // values in runs along X's innermost dim of 2 (the first three), of 8 and more (the last
    // two) and none (the other two), in blocks and walked.
    const GENERAL: [(&[usize], &[usize]); 7] = [
        (&[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1]),
        (&[64, 3, 7, 2, 2], &[64, 1, 7, 2, 1]),
        (&[2, 3, 4, 5, 3, 2], &[3, 1, 5, 1, 1]),
        (&[5, 33, 2, 3, 4], &[5, 1, 2, 1, 4]),
        (&[2, 9, 3, 5, 7, 311], &[2, 1, 3, 1, 7, 1]),
        (&[3, 5, 4, 6, 8], &[3, 1, 4, 1, 1]),
        (&[30, 2, 5, 24], &[30, 1, 5, 1]),
    ];
    // The layouts, and three Vectors an invocation: blocks of 12 f32, not a power of two (the
    // innermost runs of 24 share loads in runs of 4 there; runs of 8 would give the same results,
    // since no Vector straddles a run of 24).
    let layouts = [
        (true, None, "consecutive Vectors"),
        (false, None, "Vectors a workgroup apart"),
        (true, Some((64, 3)), "three consecutive Vectors"),
    ];
    for (contiguous, shape, path) in layouts {
        let mut options = ContextOptions::from_env().with_contiguous_vectors(contiguous);
        if let Some((invocations, vectors)) = shape {
            options = options.with_kernel_shape(invocations, vectors);
        }
        let Some(ctx) = common::ctx_with(options) else { return };
        for (i, (x, slope)) in GENERAL.iter().enumerate() {
            check::<f32>(&ctx, path, x, slope, 200 + i as u64);
            check::<f16>(&ctx, path, x, slope, 210 + i as u64);
            check::<f64>(&ctx, path, x, slope, 220 + i as u64);
            check::<i64>(&ctx, path, x, slope, 230 + i as u64);
        }
    }
}

#[test]
fn slopes_that_do_not_broadcast_are_refused() {
    let Some(ctx) = common::ctx() else { return };
    let x = ArrayD::<f32>::zeros(IxDyn(&[2, 3, 4]));
    for bad in [&[3usize][..], &[2, 1, 1, 1], &[4, 3], &[2, 1]] {
        let slope = ArrayD::<f32>::zeros(IxDyn(bad));
        match prelu(ctx, x.view(), slope.view()) {
            Err(Error::NotBroadcastable { x: xs, slope: ss, .. }) => {
                assert_eq!(xs, vec![2, 3, 4]);
                assert_eq!(ss, bad.to_vec());
            }
            other => panic!("slope {bad:?}: expected NotBroadcastable, got {other:?}"),
        }
    }
    let t = ctx.upload(x.view()).unwrap();
    let s = ctx.upload(ArrayD::<f64>::zeros(IxDyn(&[1])).view()).unwrap();
    assert!(matches!(ctx.run_prelu(&t, &s), Err(Error::DTypeMismatch { .. })));
}

#[test]
fn transposed_x() {
    let Some(ctx) = common::ctx() else { return };
    let base = Array::from_shape_vec((6, 4, 3), samples::<f32>(72, 9)).unwrap();
    let xt = base.view().reversed_axes();
    let slope = array![[0.5f32], [-2.0], [0.0], [4.0]];
    let y = prelu(ctx, xt, slope.view()).unwrap();
    assert_close("PRelu transposed", y.view(), reference::prelu(xt, slope.view()).unwrap().view(), xt, 0);
}

#[test]
fn large_tensors_run_in_binding_windows_and_host_pieces() {
    let options = ContextOptions::from_env().with_max_binding_bytes(4096).with_max_buffer_bytes(64 << 10);
    let Some(ctx) = common::ctx_with(options) else { return };
    check::<f32>(&ctx, "windows", &[7, 14287, 1], &[7, 1, 1], 3);
    check::<f32>(&ctx, "windows", &[100_003], &[100_003], 4);
    check::<f32>(&ctx, "windows", &[1001, 99, 1], &[1001, 1, 1], 5);
    check::<f16>(&ctx, "windows", &[3, 37, 1013], &[37, 1], 6);
    check::<i64>(&ctx, "windows", &[50_001], &[50_001], 7);
    check::<f32>(&ctx, "windows", &[9001, 64], &[64], 8);
    check::<bf16>(&ctx, "windows", &[2, 9001, 32], &[32], 9);
    check::<f32>(&ctx, "windows", &[3, 8, 16, 2, 16, 2], &[3, 1, 16, 1, 16, 1], 10);
    // A slope read whole by every window must fit one binding: refused with the sizes.
    let x = to_dyn(samples::<f32>(4 * 3000, 7), &[4, 3000]);
    let slope = to_dyn(samples::<f32>(3000, 8), &[3000]);
    assert!(matches!(prelu(&ctx, x.view(), slope.view()), Err(Error::TooLarge { .. })));
}

#[test]
fn channels_from_the_grid_follow_windows_and_host_pieces() {
    // Runs of one and two workgroups of f32 (the default shape's 4096 elements), windows of one
    // period of the channels and host pieces of four, the last piece shorter; windows of three
    // quarters of a period take the per-invocation channel instead.
    for (window, piece) in [(64 << 10, 256 << 10), (48 << 10, 192 << 10)] {
        let options = ContextOptions::from_env().with_max_binding_bytes(window).with_max_buffer_bytes(piece);
        let Some(ctx) = common::ctx_with(options) else { return };
        check::<f32>(&ctx, "grid windows", &[8, 2, 8192], &[2, 1], 17);
        check::<f32>(&ctx, "grid windows", &[6, 4, 4096], &[4, 1], 18);
    }
}

#[test]
fn host_pieces_keep_slope_windows_aligned() {
    // Tiny buffers and the smallest binding: many host pieces, each reading an unaligned part
    // of a leading-dims slope.
    let options = ContextOptions::from_env().with_max_buffer_bytes(256).with_max_binding_bytes(0);
    let Some(ctx) = common::ctx_with(options) else { return };
    check::<f32>(&ctx, "pieces", &[50, 3], &[50, 1], 12);
    check::<f32>(&ctx, "pieces", &[301], &[301], 13);
    check::<bf16>(&ctx, "pieces", &[129, 5], &[129, 1], 14);
    check::<f32>(&ctx, "pieces", &[40, 8], &[8], 15);
    check::<bf16>(&ctx, "pieces", &[3, 40, 16], &[16], 16);
}

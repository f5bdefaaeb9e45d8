//! Fused chains: unary steps and PRelu steps (carrying their slope tensors) run as one kernel,
//! bit-identical to the same steps run one kernel at a time, for chains of length 1 to 5 in
//! random mixes, on every dtype and path; and against the CPU reference.

mod common;

use common::{Sample, new_path, path_contexts_with, samples, to_dyn};
use half::{bf16, f16};
use ndarray::ArrayD;
use rand::{Rng, SeedableRng, rngs::StdRng};
use wgpu_activations::ops::{ELU, LEAKY_RELU, SIGMOID, SOFTSIGN, UNARY_OPS};
use wgpu_activations::{Activation, DType, DTypePath, Error, GpuTensor, activations};

/// Slope shapes over X [4, 6, 36]: scalar, per channel, trailing (36 values: whole Vectors of
/// 4-byte and 8-byte elements, not of 2-byte ones), same shape, mixed.
const SLOPES: [&[usize]; 5] = [&[1], &[6, 1], &[36], &[4, 6, 36], &[4, 1, 36]];

fn random_chain(
    rng: &mut StdRng,
    (len, unary_steps, dtype): (usize, bool, wgpu_activations::DType),
    dtype_slopes: &mut dyn FnMut(&[usize]) -> GpuTensor,
) -> Vec<Activation> {
    let ops: Vec<_> = UNARY_OPS.iter().filter(|op| op.accepts(dtype)).collect();
    (0..len)
        .map(|_| {
            if unary_steps && rng.random_range(0..3) > 0 {
                let op = ops[rng.random_range(0..ops.len())];
                let values: Vec<f32> =
                    (0..op.attributes.len()).map(|_| [0.01, 1.0, -0.5, 2.0, 0.7][rng.random_range(0..5)]).collect();
                Activation::with_attributes(op, &values)
            } else {
                Activation::prelu(&dtype_slopes(SLOPES[rng.random_range(0..SLOPES.len())]))
            }
        })
        .collect()
}

fn fused_equals_unfused<T: Sample>(unary_steps: bool) {
    let shape = [4usize, 6, 36];
    common::on_every_path(T::DTYPE, |path, ctx| {
        let mut rng = StdRng::seed_from_u64(5);
        let x_values = to_dyn(samples::<T>(shape.iter().product(), 1), &shape);
        let x = ctx.upload(x_values.view()).unwrap();
        for trial in 0..12 {
            let len = 1 + trial % 5;
            let mut seed = trial as u64 * 100;
            let mut make_slope = |slope_shape: &[usize]| {
                seed += 1;
                ctx.upload(to_dyn(samples::<T>(slope_shape.iter().product(), seed), slope_shape).view()).unwrap()
            };
            let chain = random_chain(&mut rng, (len, unary_steps, T::DTYPE), &mut make_slope);
            let fused = ctx.download::<T>(&ctx.run_activations(&chain, &x).unwrap()).unwrap();
            let mut step_by_step = ctx.run_activations(&chain[..1], &x).unwrap();
            for step in &chain[1..] {
                step_by_step = ctx.run_activations(std::slice::from_ref(step), &step_by_step).unwrap();
            }
            let unfused = ctx.download::<T>(&step_by_step).unwrap();
            let what = format!("{} {path}: {chain:?}", T::DTYPE);
            assert_eq!(
                bytemuck::cast_slice::<T, u8>(fused.as_slice().unwrap()),
                bytemuck::cast_slice::<T, u8>(unfused.as_slice().unwrap()),
                "{what}"
            );
            // The host-array form of the same chain gives the same bits.
            let host = activations(ctx, &chain, x_values.view()).unwrap();
            assert_eq!(
                bytemuck::cast_slice::<T, u8>(host.as_slice().unwrap()),
                bytemuck::cast_slice::<T, u8>(fused.as_slice().unwrap()),
                "{what} (host)"
            );
            // In place: the same bits again.
            let copy = ctx.upload(x_values.view()).unwrap();
            ctx.run_activations_in_place(&chain, &copy).unwrap();
            let in_place = ctx.download::<T>(&copy).unwrap();
            assert_eq!(
                bytemuck::cast_slice::<T, u8>(in_place.as_slice().unwrap()),
                bytemuck::cast_slice::<T, u8>(fused.as_slice().unwrap()),
                "{what} (in place)"
            );
        }
    });
}

#[test]
fn f32_fused_chains_equal_unfused() {
    fused_equals_unfused::<f32>(true);
}

#[test]
fn f16_fused_chains_equal_unfused() {
    fused_equals_unfused::<f16>(true);
}

#[test]
fn bf16_fused_chains_equal_unfused() {
    fused_equals_unfused::<bf16>(true);
}

/// Apart from the 16-bit types': its software path's kernels take SwiftShader's compiler minutes
/// (`cargo xtask test` leaves it out there), and together they were the suite's longest test.
#[test]
fn f64_fused_chains_equal_unfused() {
    fused_equals_unfused::<f64>(true);
}

/// A chain of unary steps run as a step program (one kernel for every chain over the same
/// operators, the chain read from its parameters) gives the bits of the kernel written for that
/// chain, on every float dtype and path, in orders and lengths up to the longest; and compiles
/// one kernel per set of operators (a single step keeps its operator's kernel).
fn step_programs_equal_kernels_per_chain<T: Sample>() {
    let shape = [4usize, 6, 36];
    let x_values = to_dyn(samples::<T>(shape.iter().product(), 3), &shape);
    let written_contexts = path_contexts_with(|options| options.with_step_programs(false));
    let program_contexts = path_contexts_with(|options| options.with_step_programs(true));
    for (i, ((path, written), (_, programs))) in written_contexts.iter().zip(&program_contexts).enumerate() {
        if !new_path(&written_contexts, i, T::DTYPE) {
            continue;
        }
        // The software-f64 path takes a kernel per chain unless asked (its segments hold one
        // interpreter each, so a program there is little more than its steps' kernels).
        if T::DTYPE == DType::F64 && matches!(programs.dtype_path(DType::F64), DTypePath::Emulated(_)) {
            continue;
        }
        let mut rng = StdRng::seed_from_u64(7);
        let ops = [&LEAKY_RELU, &ELU, &SIGMOID, &SOFTSIGN];
        let mut sets = std::collections::HashSet::new();
        let before = programs.pipeline_cache_stats().compiled;
        for len in [2, 3, 8, 5] {
            let chain: Vec<Activation> = (0..len)
                .map(|_| {
                    let op = ops[rng.random_range(0..ops.len())];
                    let values: Vec<f32> =
                        op.attributes.iter().map(|_| [0.01, 1.0, 0.7][rng.random_range(0..3)]).collect();
                    Activation::with_attributes(op, &values)
                })
                .collect();
            let mut set: Vec<&str> = chain.iter().map(|a| a.onnx_name()).collect();
            set.sort_unstable();
            set.dedup();
            sets.insert(set);
            let run = |ctx: &wgpu_activations::Context| {
                let x = ctx.upload(x_values.view()).unwrap();
                ctx.download::<T>(&ctx.run_activations(&chain, &x).unwrap()).unwrap()
            };
            let (expected, actual) = (run(written), run(programs));
            assert_eq!(
                bytemuck::cast_slice::<T, u8>(actual.as_slice().unwrap()),
                bytemuck::cast_slice::<T, u8>(expected.as_slice().unwrap()),
                "{} {path}: {chain:?}",
                T::DTYPE
            );
        }
        let compiled = programs.pipeline_cache_stats().compiled - before;
        let kernels = common::kernels_per_chain(programs) as u64;
        assert_eq!(compiled, sets.len() as u64 * kernels, "{} {path}: one kernel per set of operators", T::DTYPE);
    }
}

#[test]
fn step_programs_equal_kernels_written_per_chain() {
    step_programs_equal_kernels_per_chain::<f32>();
    step_programs_equal_kernels_per_chain::<f16>();
    step_programs_equal_kernels_per_chain::<bf16>();
    step_programs_equal_kernels_per_chain::<f64>();
}

/// PRelu's integer types, with the unary operators that take them (Relu, Clip, Shrink) between.
#[test]
fn integer_chains_equal_unfused() {
    fused_equals_unfused::<i32>(true);
    fused_equals_unfused::<i64>(true);
    fused_equals_unfused::<u32>(true);
    fused_equals_unfused::<u64>(true);
}

#[test]
fn a_chain_matches_the_reference_steps() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(samples::<f32>(4099, 5), &[4099]);
    let chain = [Activation::leaky_relu(-0.5), Activation::elu(2.0), Activation::leaky_relu(3.0)];
    let y = activations(ctx, &chain, x.view()).unwrap();
    let step1 = wgpu_activations::reference::leaky_relu(x.view(), -0.5);
    let step2 = wgpu_activations::reference::elu(step1.view(), 2.0);
    let expected = wgpu_activations::reference::leaky_relu(step2.view(), 3.0);
    // Step 2's input is step 1's exactly (LeakyRelu is exact on f32), so the chain inherits
    // Elu's bound, then is scaled exactly.
    common::assert_close("fused chain", y.view(), expected.view(), x.view(), 2);
}

#[test]
fn chains_longer_than_one_kernel_or_empty_are_refused() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(samples::<f32>(64, 5), &[64]);
    assert!(matches!(activations(ctx, &[], x.view()), Err(Error::ChainLength { steps: 0, max: 8 })));
    let too_long = vec![Activation::elu(1.0); 9];
    assert!(matches!(activations(ctx, &too_long, x.view()), Err(Error::ChainLength { steps: 9, max: 8 })));
    // A chain whose slope has another dtype, or does not broadcast, is refused before any work.
    let slope = ctx.upload(ArrayD::<f64>::zeros(ndarray::IxDyn(&[1])).view()).unwrap();
    assert!(matches!(
        activations(ctx, &[Activation::elu(1.0), Activation::prelu(&slope)], x.view()),
        Err(Error::DTypeMismatch { .. })
    ));
    let slope = ctx.upload(ArrayD::<f32>::zeros(ndarray::IxDyn(&[3])).view()).unwrap();
    assert!(matches!(activations(ctx, &[Activation::prelu(&slope)], x.view()), Err(Error::NotBroadcastable { .. })));
}

#[test]
fn prelu_elu_leaky_relu_runs_as_one_kernel() {
    let Some(ctx) = common::ctx_with(wgpu_activations::ContextOptions::from_env()) else { return };
    let x = ctx.upload(to_dyn(samples::<f32>(3 * 64, 2), &[3, 64]).view()).unwrap();
    let slope = ctx.upload(to_dyn(vec![0.5f32, -1.0, 2.0], &[3, 1]).view()).unwrap();
    let before = ctx.pipeline_cache_stats().compiled;
    ctx.run_activations(&[Activation::prelu(&slope), Activation::elu(1.0), Activation::leaky_relu(0.1)], &x).unwrap();
    let kernels = common::kernels_per_chain(&ctx) as u64;
    assert_eq!(ctx.pipeline_cache_stats().compiled - before, kernels, "one kernel (per pass) for the three steps");
}

/// On the software-f64 path a kernel runs at most one step whose math the interpreter runs
/// (its compile time grows faster than its code when several are inlined together): Sigmoid,
/// LeakyRelu, Tanh is two kernels there, one anywhere else, and equals the steps run one by one.
#[test]
fn software_f64_kernels_hold_one_interpreted_step() {
    use wgpu_activations::{ContextOptions, DType, DTypePath, ops};
    let options = ContextOptions::from_env().with_emulated(DType::F64, true);
    let Some(ctx) = common::ctx_with(options) else { return };
    assert!(matches!(ctx.dtype_path(DType::F64), DTypePath::Emulated(_)), "{}", ctx.dtype_path(DType::F64));
    let x_values = to_dyn(samples::<f64>(300, 6), &[300]);
    let x = ctx.upload(x_values.view()).unwrap();
    let chain =
        [Activation::with_defaults(&ops::SIGMOID), Activation::leaky_relu(0.1), Activation::with_defaults(&ops::TANH)];
    let before = ctx.pipeline_cache_stats().compiled;
    let fused = ctx.download::<f64>(&ctx.run_activations(&chain, &x).unwrap()).unwrap();
    assert_eq!(ctx.pipeline_cache_stats().compiled - before, 2, "Sigmoid with LeakyRelu, then Tanh");
    let mut one_by_one = x;
    for step in &chain {
        one_by_one = ctx.run_activations(std::slice::from_ref(step), &one_by_one).unwrap();
    }
    let one_by_one = ctx.download::<f64>(&one_by_one).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<f64, u8>(fused.as_slice().unwrap()),
        bytemuck::cast_slice::<f64, u8>(one_by_one.as_slice().unwrap())
    );
}

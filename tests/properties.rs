//! Property tests: random shapes (rank 0 to 8, zero dims), layouts (transposed, stepped
//! slices, negative strides), dtypes, alphas (NaN, infinities, zero, negative), broadcastable
//! and non-broadcastable PRelu slopes, and fused chains. The GPU equals the CPU reference within
//! each chain's bound, and every slope that does not broadcast is an error value on both.

mod common;

use common::{Sample, assert_close, samples};
use half::{bf16, f16};
use ndarray::{ArrayD, Axis, IxDyn, Slice};
use proptest::prelude::*;
use wgpu_activations::ops::{MAX_ATTRIBUTES, UNARY_OPS, UnaryOp};
use wgpu_activations::reference::{ChainStep, check_chain};
use wgpu_activations::{Activation, Context, Element, FloatElement, activations, prelu, reference};

#[derive(Debug, Clone, Copy)]
enum Layout {
    Standard,
    Transposed,
    Stepped,
    Reversed,
}

/// A unary step: an operator of the table (by its ONNX name) and attribute values.
#[derive(Debug, Clone)]
struct Step {
    op: &'static str,
    values: Vec<f32>,
}

#[derive(Debug, Clone)]
struct UnaryCase {
    shape: Vec<usize>,
    layout: Layout,
    chain: Vec<Step>,
    seed: u64,
}

#[derive(Debug, Clone)]
struct PreluCase {
    shape: Vec<usize>,
    layout: Layout,
    /// Per trailing axis of X: whether the slope keeps that dim (else 1).
    keep: Vec<bool>,
    /// An axis of the slope made one longer than X's, so that it cannot broadcast.
    break_axis: Option<usize>,
    seed: u64,
}

fn alpha() -> impl Strategy<Value = f32> {
    prop_oneof![
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        15 => -8.0f32..8.0,
    ]
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    // A zero dim now and then: most shapes hold elements.
    prop::collection::vec(prop_oneof![1 => Just(0usize), 40 => 1usize..=3], 0..=8)
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![Just(Layout::Standard), Just(Layout::Transposed), Just(Layout::Stepped), Just(Layout::Reversed)]
}

fn unary_case() -> impl Strategy<Value = UnaryCase> {
    // One operator of the table per chain, each step with its own attributes: 20 kernels per
    // dtype, which the cache keeps (every mix of operators would compile a kernel per case;
    // tests/chains.rs fuses mixed chains).
    let values = prop::collection::vec(prop::collection::vec(alpha(), MAX_ATTRIBUTES), 1..=4);
    (shape(), layout(), 0..UNARY_OPS.len(), values, any::<u64>()).prop_map(|(shape, layout, op, values, seed)| {
        let chain = values.into_iter().map(|values| Step { op: UNARY_OPS[op].onnx_name, values }).collect();
        UnaryCase { shape, layout, chain, seed }
    })
}

fn prelu_case() -> impl Strategy<Value = PreluCase> {
    (shape(), layout(), prop::collection::vec(any::<bool>(), 0..=8), prop::option::of(0usize..8), any::<u64>())
        .prop_map(|(shape, layout, mut keep, break_axis, seed)| {
            keep.truncate(shape.len());
            let break_axis = break_axis.filter(|&a| a < keep.len());
            PreluCase { shape, layout, keep, break_axis, seed }
        })
}

/// An array of `shape` in `layout`, holding random values and specials.
fn array<T: Sample>(shape: &[usize], layout: Layout, seed: u64) -> ArrayD<T> {
    let base_shape: Vec<usize> = match layout {
        Layout::Stepped => shape.iter().map(|&d| 2 * d).collect(),
        Layout::Transposed => shape.iter().rev().copied().collect(),
        _ => shape.to_vec(),
    };
    let len = base_shape.iter().product();
    let base = ArrayD::from_shape_vec(IxDyn(&base_shape), samples::<T>(len, seed)).expect("shape");
    match layout {
        Layout::Standard => base,
        Layout::Transposed => base.reversed_axes(),
        Layout::Stepped => {
            // Every other element of a larger array: the strides stay stepped.
            let mut stepped = base;
            for axis in 0..stepped.ndim() {
                stepped.slice_axis_inplace(Axis(axis), Slice::new(0, None, 2));
            }
            stepped
        }
        Layout::Reversed => {
            let mut reversed = base;
            for axis in 0..reversed.ndim() {
                reversed.invert_axis(Axis(axis));
            }
            reversed
        }
    }
}

/// The chain's steps whose operator takes `dtype` (Shrink has no bf16).
fn gpu_chain(chain: &[Step], dtype: wgpu_activations::DType) -> Vec<Activation> {
    chain
        .iter()
        .filter_map(|step| {
            let op = UnaryOp::find(step.op).filter(|op| op.accepts(dtype))?;
            Some(Activation::with_attributes(op, &step.values))
        })
        .collect()
}

fn check_unary<T: Sample + FloatElement>(ctx: &Context, case: &UnaryCase) {
    let x = array::<T>(&case.shape, case.layout, case.seed);
    let chain = gpu_chain(&case.chain, T::DTYPE);
    if chain.is_empty() {
        return;
    }
    let y = activations(ctx, &chain, x.view()).expect("a unary chain runs on any shape and layout");

    let steps: Vec<ChainStep<'_, T>> = chain.iter().filter_map(Activation::reference_step).collect();
    if let Err(e) = check_chain(x.view().into_dyn(), &steps, y.view().into_dyn()) {
        panic!("{} {case:?}: {e}", T::DTYPE);
    }
}

fn slope_shape(case: &PreluCase) -> Vec<usize> {
    let trailing = &case.shape[case.shape.len() - case.keep.len()..];
    let mut shape: Vec<usize> = trailing.iter().zip(&case.keep).map(|(&d, &k)| if k { d } else { 1 }).collect();
    if let Some(axis) = case.break_axis {
        shape[axis] = trailing[axis] + 2; // neither X's dim nor 1
    }
    shape
}

fn check_prelu<T: Sample + Element>(ctx: &Context, case: &PreluCase) {
    let x = array::<T>(&case.shape, case.layout, case.seed);
    let slope_shape = slope_shape(case);
    let slope = array::<T>(&slope_shape, Layout::Standard, case.seed ^ 0x5eed);
    let gpu = prelu(ctx, x.view(), slope.view());
    let cpu = reference::prelu(x.view(), slope.view());
    let what = format!("{} {case:?} slope {slope_shape:?}", T::DTYPE);
    match (gpu, cpu) {
        (Ok(y), Ok(expected)) => {
            assert!(case.break_axis.is_none(), "{what}: a slope that does not broadcast was accepted");
            assert_close(&what, y.view(), expected.view(), x.view(), 0)
        }
        (Err(_), Err(_)) => assert!(case.break_axis.is_some(), "{what}: refused though it broadcasts"),
        (gpu, cpu) => panic!("{what}: GPU {:?}, reference {:?}", gpu.map(|_| ()), cpu.map(|_| ())),
    }
}

/// The checks per element type, one of which each case picks.
const UNARY_CHECKS: [fn(&Context, &UnaryCase); 4] =
    [check_unary::<f32>, check_unary::<f16>, check_unary::<bf16>, check_unary::<f64>];
const PRELU_CHECKS: [fn(&Context, &PreluCase); 8] = [
    check_prelu::<f32>,
    check_prelu::<f16>,
    check_prelu::<bf16>,
    check_prelu::<f64>,
    check_prelu::<i32>,
    check_prelu::<i64>,
    check_prelu::<u32>,
    check_prelu::<u64>,
];

fn config() -> ProptestConfig {
    // 48 cases each in the suite; PROPTEST_CASES=N for a longer run.
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(48);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn unary_chains_match_the_reference_on_any_shape_layout_and_alpha(case in unary_case(), dtype in 0..UNARY_CHECKS.len()) {
        let Some(ctx) = common::ctx() else { return Ok(()) };
        UNARY_CHECKS[dtype](ctx, &case);
    }

    #[test]
    fn prelu_matches_the_reference_or_refuses_what_does_not_broadcast(case in prelu_case(), dtype in 0..PRELU_CHECKS.len()) {
        let Some(ctx) = common::ctx() else { return Ok(()) };
        PRELU_CHECKS[dtype](ctx, &case);
    }
}

/// The views the property tests use are real views: a stepped slice keeps non-unit strides.
#[test]
fn stepped_and_reversed_layouts_are_not_standard() {
    let stepped = array::<f32>(&[3, 2], Layout::Stepped, 1);
    assert!(!stepped.is_standard_layout());
    let reversed = array::<f32>(&[3, 2], Layout::Reversed, 1);
    assert!(reversed.strides().iter().all(|&s| s < 0));
    assert_eq!(reversed.shape(), &[3, 2]);
}

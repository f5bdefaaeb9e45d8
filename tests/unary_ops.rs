//! Every unary operator of the table (`wgpu_activations::ops::UNARY_OPS`) on every float dtype
//! and every path (native and emulated), against the CPU reference and within the operator's
//! own bound from the table: every 16-bit pattern, f32 odd sizes, ranks, layouts, specials and
//! log-spaced negatives, f64 sweeps. A new operator is tested here without a new test.

mod common;

use common::{
    Sample, assert_close, assert_same_bits, assert_same_bits_but_nan_payloads, assert_unary_passthrough, max_ulp,
    new_path, path_contexts, path_contexts_for, samples, to_dyn,
};
use half::{bf16, f16};
use ndarray::{Array, ArrayD, Axis, IxDyn, s};
use wgpu_activations::ops::{Attributes, UNARY_OPS, UnaryOp};
use wgpu_activations::{Activation, Context, DType, Element, Error, FloatElement, activations, reference};

/// Attribute values each operator is checked with: its defaults, values with a kernel of their
/// own (HardSigmoid's PyTorch line), then each attribute set to values that stress it (an Elu
/// with alpha 0.7 rounds differently from alpha 1), a STRING attribute to each of its choices in
/// turn (Gelu's two forms). An operator without attributes has the one set.
fn attribute_sets(op: &UnaryOp) -> Vec<Vec<f32>> {
    let mut sets = vec![op.default_attributes()[..op.attributes.len()].to_vec()];
    if let Some(own) = op.attributes.iter().find_map(|a| a.own_kernel) {
        let mut set = sets[0].clone();
        set[..own.example.0.len()].copy_from_slice(own.example.0);
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
    if !op.attributes.is_empty() {
        for (turn, value) in [0.7f32, 0.01, -2.5, 3.0, 0.0].into_iter().enumerate() {
            let set: Vec<f32> = op
                .attributes
                .iter()
                .map(|a| if a.is_choice() { (turn % a.choices.len()) as f32 } else { value })
                .collect();
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
    }
    // Distinct values where there are two (Clip's min below its max: Relu6).
    if op.attributes.len() > 1 && op.attributes.iter().all(|a| !a.is_choice()) {
        sets.push([0.0, 6.0, 0.7, 0.01][..op.attributes.len()].to_vec());
    }
    sets
}

fn attributes(op: &UnaryOp, values: &[f32]) -> Attributes {
    let mut all = op.default_attributes();
    all[..values.len()].copy_from_slice(values);
    all
}

fn run<T: Element>(ctx: &Context, op: &'static UnaryOp, values: &[f32], x: &ArrayD<T>) -> (ArrayD<T>, ArrayD<T>) {
    let y = activations(ctx, &[Activation::with_attributes(op, values)], x.view()).unwrap();
    (y, reference::unary(op, &attributes(op, values), x.view()))
}

/// `op` with `values` on `x` within its bound for `T` of the reference, and X passed through bit
/// for bit where the operator passes it through; `what` names the case after the operator.
fn within_bound_passing_through<T: Element>(
    ctx: &Context,
    op: &'static UnaryOp,
    values: &[f32],
    x: &ArrayD<T>,
    what: &str,
) -> ArrayD<T> {
    let (y, expected) = run(ctx, op, values, x);
    let what = format!("{}({values:?}) {what}", op.onnx_name);
    let worst = max_ulp(&what, &y, &expected, x);
    println!("{what}: max error {worst} ULP over {} inputs", x.len());
    let bound = op.max_ulp.for_dtype(T::DTYPE);
    assert!(worst <= bound, "{what}: {worst} ULP > {bound}");
    assert_unary_passthrough(&what, op, &attributes(op, values), &y, x);
    y
}

fn every_16_bit_pattern<T: FloatElement>() {
    let bits: Vec<u16> = (0..=u16::MAX).collect();
    let x = to_dyn(bytemuck::pod_collect_to_vec::<u16, T>(&bits), &[1 << 16]);
    let contexts = path_contexts_for(T::DTYPE);
    for op in UNARY_OPS.iter().filter(|op| op.accepts(T::DTYPE)) {
        let bound = op.max_ulp.for_dtype(T::DTYPE);
        for values in attribute_sets(op) {
            // One reference for both paths.
            let expected = reference::unary(op, &attributes(op, &values), x.view());
            let mut first_path: Option<(&str, ArrayD<T>)> = None;
            for (path, ctx) in &contexts {
                let y = activations(ctx, &[Activation::with_attributes(op, &values)], x.view()).unwrap();
                let what = format!("{}({values:?}) {} {path}", op.onnx_name, T::DTYPE);
                let worst = max_ulp(&what, &y, &expected, &x);
                println!("{what}: max error {worst} ULP over all 65536 bit patterns");
                assert!(worst <= bound, "{what}: {worst} ULP > {bound}");
                assert_unary_passthrough(&what, op, &attributes(op, &values), &y, &x);
                // Every path computes in f32 and rounds to nearest even once (the native f16
                // path by its own sum, repr/f16.wgsl's half_precision; the emulated on the bits):
                // the same bits, NaN's payload aside where the body does not pass X through
                // (assert_unary_passthrough checks where it does).
                match &first_path {
                    Some((first, y0)) => {
                        assert_same_bits_but_nan_payloads(&format!("{what} against the {first} path"), &y, y0, &x)
                    }
                    None => first_path = Some((path, y)),
                }
            }
        }
    }
}

tests_per_dtype!(every_16_bit_pattern: f16, bf16);

/// Shapes of every rank from 0 to 6, odd sizes, and empty dims.
const SHAPES: [&[usize]; 14] = [
    &[],
    &[1],
    &[3],
    &[255],
    &[257],
    &[65537],
    &[3, 4],
    &[2, 3, 5],
    &[2, 1, 3, 4],
    &[1, 2, 3, 2, 3],
    &[2, 1, 2, 3, 1, 5],
    &[0],
    &[3, 0, 2],
    &[0, 0, 0, 0, 0, 0],
];

fn shapes_and_layouts<T: Sample>() {
    common::on_every_path(T::DTYPE, |path, ctx| {
        for op in UNARY_OPS.iter().filter(|op| op.accepts(T::DTYPE)) {
            let bound = op.max_ulp.for_dtype(T::DTYPE);
            for (i, shape) in SHAPES.iter().enumerate() {
                let x = to_dyn(samples::<T>(shape.iter().product(), i as u64), shape);
                for values in attribute_sets(op) {
                    let (y, expected) = run(ctx, op, &values, &x);
                    assert_eq!(y.shape(), *shape);
                    assert_close(
                        &format!("{} {} {path} {shape:?}", op.onnx_name, T::DTYPE),
                        y.view(),
                        expected.view(),
                        x.view(),
                        bound,
                    );
                }
            }
            // Transposed, stepped, reversed and permuted views.
            let base = Array::from_shape_vec((33, 17, 5), samples::<T>(33 * 17 * 5, 7)).unwrap();
            let views = [
                base.view().reversed_axes().into_dyn(),
                base.slice(s![3..30;4, ..;-2, 1..4]).into_dyn(),
                base.view().permuted_axes([1, 2, 0]).into_dyn(),
                base.index_axis(Axis(2), 3).into_dyn(),
            ];
            for view in views {
                let y = activations(ctx, &[Activation::with_defaults(op)], view.view()).unwrap();
                let expected = reference::unary(op, &op.default_attributes(), view.view());
                assert_close(
                    &format!("{} {} {path} strided", op.onnx_name, T::DTYPE),
                    y.view(),
                    expected.view(),
                    view.view(),
                    bound,
                );
            }
        }
    });
}

tests_per_dtype!(shapes_and_layouts: f32, f16, bf16, f64, i8, i16, i32, i64);

#[test]
fn specials_pass_through_bit_for_bit_and_odd_attributes_follow_the_reference() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(f32::specials(), &[f32::specials().len()]);
    for op in UNARY_OPS {
        for value in [0.01f32, 1.0, 0.0, -0.7, 3.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, 1e30]
        {
            let values = vec![value; op.attributes.len()];
            let (y, expected) = run(ctx, op, &values, &x);
            let what = format!("{}({value}) f32", op.onnx_name);
            assert_unary_passthrough(&what, op, &attributes(op, &values), &y, &x);
            assert_close(&what, y.view(), expected.view(), x.view(), op.max_ulp.f32);
        }
    }
}

/// f64 inputs whose products with a large attribute overflow, on both f64 paths: the result is
/// the function body's (HardSigmoid's alpha x + beta is +-inf, clamped), never NaN. The native
/// path's mul_add once turned its product's overflow into a NaN error term (found by the chain
/// property test).
#[test]
fn f64_products_that_overflow_follow_the_reference() {
    let big: Vec<f64> = [5e269, 1e270, 1e300, f64::MAX].iter().flat_map(|&v| [v, -v]).collect();
    let x = to_dyn(big.clone(), &[big.len()]);
    common::on_every_path(DType::F64, |path, ctx| {
        for op in UNARY_OPS.iter().filter(|op| !op.attributes.is_empty()) {
            for value in [1e38f32, -1e38, 3.4e38] {
                let values = vec![value; op.attributes.len()];
                let (y, expected) = run(ctx, op, &values, &x);
                let what = format!("{}({value}) f64 {path}", op.onnx_name);
                assert_close(&what, y.view(), expected.view(), x.view(), op.max_ulp.f64);
            }
        }
    });
}

/// HardSigmoid with an infinite beta and an alpha above 1 on inputs near each type's largest:
/// alpha x overflows the compute type but the line is beta (clamped), never inf - inf = NaN, on
/// every path (the chain property test found it on bf16).
#[test]
fn hard_sigmoid_with_an_infinite_beta_is_the_clamped_beta_where_x_is_finite() {
    fn check<T: Sample + FloatElement>(path: &str, ctx: &Context, values: &[f64]) {
        let xs: Vec<T> = values.iter().flat_map(|&v| [T::narrowed(v), T::narrowed(-v)]).collect();
        let len = xs.len();
        let x = to_dyn(xs, &[len]);
        for beta in [f32::INFINITY, f32::NEG_INFINITY] {
            let values = [5.256_335_7, beta];
            let (y, expected) = run(ctx, &wgpu_activations::ops::HARD_SIGMOID, &values, &x);
            let what = format!("HardSigmoid(5.2563357, {beta}) {} {path}", T::DTYPE);
            assert_close(&what, y.view(), expected.view(), x.view(), 1);
        }
    }
    let contexts = path_contexts();
    for (i, (path, ctx)) in contexts.iter().enumerate() {
        let new = |dtype| new_path(&contexts, i, dtype);
        new(DType::BF16).then(|| check::<bf16>(path, ctx, &[3.0e38, 1e38, 2.0, f64::INFINITY]));
        new(DType::F32).then(|| check::<f32>(path, ctx, &[3.0e38, 1e38, 2.0, f64::INFINITY]));
        new(DType::F64).then(|| check::<f64>(path, ctx, &[1.7e308, 1e300, 2.0, f64::INFINITY]));
    }
}

/// 2^20 log-spaced f32 values over each operator's sweep (its table entry), plus the specials.
#[test]
fn f32_log_spaced_sweeps_within_each_bound() {
    let Some(ctx) = common::ctx() else { return };
    for op in UNARY_OPS {
        let mut xs: Vec<f32> = op.sweep.values(1 << 20, false).into_iter().map(|v| v as f32).collect();
        xs.extend(f32::specials());
        let len = xs.len();
        let x = to_dyn(xs, &[len]);
        for values in attribute_sets(op) {
            let (y, expected) = run(ctx, op, &values, &x);
            let what = format!("{}({values:?}) f32 log-spaced", op.onnx_name);
            let worst = max_ulp(&what, &y, &expected, &x);
            println!("{what}: max error {worst} ULP over {len} inputs");
            assert!(worst <= op.max_ulp.f32, "{what}: {worst} ULP");
        }
    }
}

#[test]
fn f64_log_spaced_sweeps_random_values_and_specials() {
    common::on_every_path(DType::F64, |path, ctx| {
        for op in UNARY_OPS {
            // 2^16 log-spaced values over the operator's sweep, random values, specials.
            let mut xs = op.sweep.values(1 << 16, true);
            xs.extend(samples::<f64>(4096, 64));
            let len = xs.len();
            let x = to_dyn(xs, &[len]);
            for values in attribute_sets(op) {
                within_bound_passing_through(ctx, op, &values, &x, &format!("f64 {path}"));
            }
        }
    });
}

/// Products checked only outside each step's plain range, forced on whatever adapter runs the
/// suite: in one pass (what a GPU that flushes subnormals runs) and in two, the first flagging
/// by the ranges (what a CPU adapter that flushes runs): on SwiftShader, which flushes, a range
/// too wide shows as results off by the flushed products. f32 inputs dense on either side of
/// the ranges' ends (`src/ops/plain_products.rs`: the constants, and 2^-125 over the attribute
/// values the sets try), log-spaced over each sweep, and the specials; bf16 and f16 every bit
/// pattern at the defaults. Where the adapter keeps subnormals, the results are also the float
/// unit's kernels' bits: the steps' forms for their plain ranges (`_in_range` in
/// `shaders/math/f32.wgsl`) leave out only cases the ranges exclude.
#[test]
fn guarded_products_hold_every_bound() {
    use wgpu_activations::SubnormalProducts;
    guarded_products_hold_every_bound_in(SubnormalProducts::Guarded, None, "guarded products");
}

#[test]
fn guarded_products_in_two_passes_hold_every_bound() {
    use wgpu_activations::SubnormalProducts;
    guarded_products_hold_every_bound_in(SubnormalProducts::GuardedInTwoPasses, None, "guarded products, two passes");
}

/// One pass in the straight-line form, whole workgroups' Vectors all loaded before any is
/// computed (`tools/gpu-run.sh`'s `lines26` times it on a GPU).
#[test]
fn guarded_products_in_straight_line_hold_every_bound() {
    use wgpu_activations::SubnormalProducts;
    guarded_products_hold_every_bound_in(SubnormalProducts::Guarded, Some(true), "guarded products, straight line");
}

fn guarded_products_hold_every_bound_in(
    products: wgpu_activations::SubnormalProducts,
    straight_line: Option<bool>,
    what: &str,
) {
    use wgpu_activations::ContextOptions;
    let mut options = ContextOptions::from_env().with_subnormal_products(products);
    if let Some(straight_line) = straight_line {
        options = options.with_straight_line(straight_line);
    }
    let Some(ctx) = common::ctx_with(options) else {
        return;
    };
    assert!(ctx.info().subnormal_products_guarded);
    let float_unit = common::float_unit_where_subnormals_kept(&ctx);
    fn check<T: Element>(
        ctx: &Context,
        float_unit: Option<&Context>,
        op: &'static UnaryOp,
        values: &[f32],
        x: &ArrayD<T>,
        what: String,
    ) {
        let y = within_bound_passing_through(ctx, op, values, x, &what);
        if let Some(float_unit) = float_unit {
            let twin = activations(float_unit, &[Activation::with_attributes(op, values)], x.view()).unwrap();
            assert_same_bits(&format!("{}({values:?}) {what} against the float unit's", op.onnx_name), &y, &twin);
        }
    }
    let float_unit = float_unit.as_ref();
    // The ends of the plain ranges (src/ops/plain_products.rs) and of the kernels' own cases.
    let power = |k: i32| 2f32.powi(k);
    let ends: Vec<f32> = [power(-126), power(-124), power(-100), power(-96), power(-64), power(-25)]
        .into_iter()
        .chain([0.5, 10.0, 20.0, 80.0, 86.0])
        .chain([1.0f32, 0.01, 0.7, 2.5, 3.0, 1.702].map(|a| power(-125) / a))
        .collect();
    let mut xs: Vec<f32> = Vec::new();
    for end in ends {
        for step in -64i32..=64 {
            let bits = (end.to_bits() as i32 + step * 4099).max(0) as u32;
            xs.extend([f32::from_bits(bits), -f32::from_bits(bits)]);
        }
    }
    xs.extend(f32::specials());
    for op in UNARY_OPS {
        let mut inputs = xs.clone();
        inputs.extend(op.sweep.values(1 << 14, false).into_iter().map(|v| v as f32));
        let len = inputs.len();
        let x = to_dyn(inputs, &[len]);
        for values in attribute_sets(op) {
            check(&ctx, float_unit, op, &values, &x, format!("f32, {what}"));
        }
    }
    let bits: Vec<u16> = (0..=u16::MAX).collect();
    let bf16s = to_dyn(bytemuck::pod_collect_to_vec::<u16, bf16>(&bits), &[1 << 16]);
    let f16s = to_dyn(bytemuck::pod_collect_to_vec::<u16, f16>(&bits), &[1 << 16]);
    for op in UNARY_OPS {
        let values = &op.default_attributes()[..op.attributes.len()];
        if op.accepts(DType::BF16) {
            check(&ctx, float_unit, op, values, &bf16s, format!("bf16, {what}"));
        }
        if op.accepts(DType::F16) {
            check(&ctx, float_unit, op, values, &f16s, format!("f16, {what}"));
        }
    }
}

#[test]
fn tiny_negatives_keep_their_sign() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(vec![-1e-30f32, f32::from_bits(0x8000_0001), -2.9e-8, -3.0e-8], &[4]);
    for op in UNARY_OPS {
        for values in attribute_sets(op) {
            let (y, expected) = run(ctx, op, &values, &x);
            for ((a, e), b) in y.iter().zip(&expected).zip(x.iter()) {
                assert_eq!(
                    a.is_sign_negative(),
                    e.is_sign_negative(),
                    "{}({values:?})({b:e}) = {a:e}, reference {e:e}",
                    op.onnx_name
                );
            }
            assert_close(op.onnx_name, y.view(), expected.view(), x.view(), op.max_ulp.f32);
        }
    }
}

/// A STRING attribute through the API: set by its choice, read back as it, refused when it is
/// no choice of the attribute (Gelu's approximate is "none" or "tanh").
#[test]
fn choice_attributes_take_their_choices_only() {
    let erf = Activation::with_defaults(&wgpu_activations::ops::GELU);
    assert_eq!(erf.choice("approximate"), Some("none"));
    let tanh = erf.set_choice("approximate", "tanh").expect("tanh is a choice");
    assert_eq!((tanh.choice("approximate"), tanh.attribute("approximate")), (Some("tanh"), Some(1.0)));
    assert!(format!("{tanh:?}").contains("\"tanh\""), "{tanh:?}");
    assert!(erf.set_choice("approximate", "erf").is_none());
    assert!(erf.set("approximate", 0.5).is_none() && erf.set("approximate", 2.0).is_none());
    assert!(erf.set("approximate", 1.0).is_some_and(|step| step == tanh));
    assert!(Activation::elu(1.0).set_choice("alpha", "tanh").is_none());
    assert_eq!(Activation::elu(1.0).choice("alpha"), None);
}

/// Every dtype an operator's versions do not allow is refused, naming the operator and dtype.
#[test]
fn dtypes_no_version_allows_are_refused() {
    let Some(ctx) = common::ctx() else { return };
    for op in UNARY_OPS {
        for dtype in DType::ALL.into_iter().filter(|&dtype| !op.accepts(dtype)) {
            let x = ctx.empty_tensor(&[5], dtype).unwrap();
            match ctx.run_activations(&[Activation::with_defaults(op)], &x) {
                Err(Error::DTypeNotAllowed { op: name, dtype: refused, .. }) => {
                    assert_eq!((name, refused), (op.onnx_name, dtype))
                }
                other => panic!("{} on {dtype}: expected DTypeNotAllowed, got {other:?}", op.onnx_name),
            }
        }
        if !op.accepts(DType::U64) {
            let host = ArrayD::<u64>::zeros(IxDyn(&[3]));
            assert!(matches!(
                activations(ctx, &[Activation::with_defaults(op)], host.view()),
                Err(Error::DTypeNotAllowed { .. })
            ));
        }
    }
}

/// Exactly the reference, bit for bit, on `x`, for every operator that takes `T` and every
/// attribute set of it: the float ones, and integer ones that reach the dtype's ends (a sum or
/// difference that wraps, a cast that saturates, -lambd that wraps).
fn exact_on_integers<T: Sample>(ctx: &Context, what: &str, x: Vec<T>) {
    let len = x.len();
    let x = to_dyn(x, &[len]);
    for op in UNARY_OPS.iter().filter(|op| op.accepts(T::DTYPE)) {
        let mut sets = attribute_sets(op);
        if op.attributes.len() == 2 {
            sets.extend([[3.0, 2.0], [100.5, -7.9], [-128.0, 1e10], [-3e9, 40_000.0], [f32::NAN, 5.0]].map(Vec::from));
        }
        for values in sets {
            let (y, expected) = run(ctx, op, &values, &x);
            common::assert_same_bits(&format!("{}({values:?}) {} {what}", op.onnx_name, T::DTYPE), &y, &expected);
        }
    }
}

/// The integer inputs the operators take (Relu's from opset 14, Clip's from 12, Shrink's):
/// every 8- and 16-bit value, the extremes and random values of the 32- and 64-bit
/// integers, each on every path (the 64-bit ones native and on u32 pairs), exactly the reference.
#[test]
fn integer_inputs_are_exact_on_every_path() {
    let contexts = path_contexts();
    for (i, (path, ctx)) in contexts.iter().enumerate() {
        let new = |dtype| new_path(&contexts, i, dtype);
        new(DType::I8).then(|| exact_on_integers(ctx, path, (i8::MIN..=i8::MAX).collect()));
        new(DType::I16).then(|| exact_on_integers(ctx, path, (i16::MIN..=i16::MAX).collect()));
        new(DType::I32).then(|| exact_on_integers(ctx, path, samples::<i32>(65_537, 32)));
        new(DType::I64).then(|| exact_on_integers(ctx, path, samples::<i64>(65_537, 64)));
        new(DType::U8).then(|| exact_on_integers(ctx, path, (u8::MIN..=u8::MAX).collect()));
        new(DType::U16).then(|| exact_on_integers(ctx, path, (u16::MIN..=u16::MAX).collect()));
        new(DType::U32).then(|| exact_on_integers(ctx, path, samples::<u32>(65_537, 33)));
        new(DType::U64).then(|| exact_on_integers(ctx, path, samples::<u64>(65_537, 65)));
    }
}

/// `clip` on `x`, bit for bit `clamped` of each element (computed here) and the reference.
fn clip_is_the_clamp<T: Sample>(ctx: &Context, what: &str, clip: &Activation, x: &ArrayD<T>, clamped: impl Fn(T) -> T) {
    let y = activations(ctx, std::slice::from_ref(clip), x.view()).unwrap();
    common::assert_same_bits(what, &y, &x.mapv(clamped));
    let wgpu_activations::ops::Step::Unary(op, attributes) = clip.step() else { unreachable!("Clip is unary") };
    common::assert_same_bits(what, &y, &reference::unary(op, attributes, x.view()));
}

/// Clip with integer bounds no f32 holds, each the f32 of its leading bits plus a residual
/// (`Activation::set_integer`), on `x` and the values around each bound: bit for bit the clamp
/// computed here in i128, and the reference.
fn wide_bounds_exact<T: Sample + TryFrom<i128> + Into<i128>>(ctx: &Context, path: &str, bounds: &[(i128, i128)]) {
    let element = |v: i128| T::try_from(v).ok();
    for &(min, max) in bounds {
        let near = |bound: i128| (-3..=3).filter_map(move |d| element(bound + d));
        let x: Vec<T> = near(min).chain(near(max)).chain(samples::<T>(4099, 7)).collect();
        let len = x.len();
        let x = to_dyn(x, &[len]);
        let clip = Activation::clip(f32::NEG_INFINITY, f32::INFINITY);
        let clip = clip.set_integer("min", min).and_then(|c| c.set_integer("max", max)).expect("64-bit bounds");
        assert!(format!("{clip:?}").contains(&format!("max: {max}")), "{clip:?}");
        let what = format!("Clip({min}, {max}) on {} {path}", T::DTYPE);
        clip_is_the_clamp(ctx, &what, &clip, &x, |v| element(v.into().max(min).min(max)).expect("within the type"));
    }
    let float = Activation::clip(0.0, 1.0).set_integer("max", (1 << 31) - 1).unwrap();
    let refused = activations(ctx, &[float], ndarray::arr1(&[0.5f32]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "a residual on f32: {refused}");
    let full = Activation::clip(0.0, 1.0).set_integer("max", (1 << 53) + (1 << 25) + 1).unwrap();
    let refused = activations(ctx, &[full], ndarray::arr1(&[5i32]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "a 64-bit bound on int32: {refused}");
    let negative = Activation::clip(0.0, 1.0).set_integer("min", -(1 << 60) - (1 << 31) - 3).unwrap();
    let refused = activations(ctx, &[negative], ndarray::arr1(&[5u64]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "a negative bound on uint64: {refused}");
    assert!(
        Activation::clip(0.0, 1.0).set_integer("max", (1 << 70) + (1 << 40) + 1).is_none(),
        "beyond the 64-bit types"
    );
}

/// Clip's integer bounds that no f32 holds (2^31 - 1, 2^53 + 1, 2^64 - 2^20, and in full 2^53 + 2^25 + 1...) on the 32- and
/// 64-bit integers, on every path (the 64-bit ones native and on u32 pairs), exactly.
#[test]
fn clip_bounds_no_f32_holds_are_exact_on_every_path() {
    let contexts = path_contexts();
    let (i31, i53) = ((1i128 << 31) - 1, (1i128 << 53) + 1);
    for (i, (path, ctx)) in contexts.iter().enumerate() {
        let new = |dtype| new_path(&contexts, i, dtype);
        new(DType::I32).then(|| wide_bounds_exact::<i32>(ctx, path, &[(-i31, i31), (-i31 + 200, -i31 + 100)]));
        new(DType::U32).then(|| wide_bounds_exact::<u32>(ctx, path, &[(4294967197, 4294967294), (i31, i31 + 2)]));
        // No two f32 sum to these: they run in full (a low word with its top bit set among them).
        let (full, low_top) = ((1i128 << 53) + (1 << 25) + 1, (1i128 << 53) + (1 << 31) + 1);
        let wide =
            [(-i53, i53), (-i31 - 2, i31), (i53 + 4, i53 + 2), (-full, low_top), (i128::from(i64::MIN) + 1, -full)];
        new(DType::I64).then(|| wide_bounds_exact::<i64>(ctx, path, &wide));
        let words = [
            (i53, (1 << 64) - (1 << 20)),
            ((1 << 64) - (1 << 20), (1 << 64) - (1 << 21)),
            (low_top, (1 << 64) - 3),
            ((1 << 63) + 5, full),
        ];
        new(DType::U64).then(|| wide_bounds_exact::<u64>(ctx, path, &words));
    }
}

/// Clip of f64 X with f64 bounds no f32 holds (0.1, -0.7, 1 + 2^-52, and beyond f32's range:
/// 1e300, f64::MAX, 1e-300, subnormals; `Activation::set_f64`), on the values around each bound
/// and samples, on both f64 paths (native and on u32 pairs): bit for bit the clamp computed here
/// in f64, and the reference. Such a bound is refused for every other X.
#[test]
fn clip_f64_bounds_no_f32_holds_are_exact_on_every_path() {
    let contexts = path_contexts();
    let tiny = 3.0 * 2f64.powi(-120) + 2f64.powi(-160);
    let subnormal = f64::from_bits(0x000f_ffff_0000_0003);
    let bounds = [
        (0.1, 0.9),
        (-0.7, 1.0 + 2f64.powi(-52)),
        (0.3, 0.2),
        (-tiny, tiny),
        (-1e38 - 1e22, 0.1),
        (0.5, 1.0 / 3.0),
        (-f64::MAX, 1e300),
        (-1e-300, 2f64.powi(-130) * (1.0 + 2f64.powi(-40))),
        (-subnormal, f64::from_bits(3)),
        (f64::MIN_POSITIVE, -f64::MAX),
    ];
    for (i, (path, ctx)) in contexts.iter().enumerate() {
        if !new_path(&contexts, i, DType::F64) {
            continue;
        }
        for &(min, max) in &bounds {
            let near = |bound: f64| (-3i64..=3).map(move |d| f64::from_bits(bound.to_bits().wrapping_add_signed(d)));
            let x: Vec<f64> = near(min).chain(near(max)).chain(samples::<f64>(4099, 11)).collect();
            let len = x.len();
            let x = to_dyn(x, &[len]);
            let clip = Activation::clip(f32::NEG_INFINITY, f32::INFINITY);
            let clip = clip.set_f64("min", min).and_then(|c| c.set_f64("max", max)).expect("Clip's bounds");
            assert!(format!("{clip:?}").contains(&format!("max: {max:?}")), "{clip:?}");
            let what = format!("Clip({min:e}, {max:e}) on f64 {path}");
            let clamp = |v: f64| if v < min { min } else { v };
            clip_is_the_clamp(ctx, &what, &clip, &x, |v| if max < clamp(v) { max } else { clamp(v) });
        }
    }
    let Some((_, ctx)) = contexts.first() else { return };
    let tenth = Activation::clip(0.0, 1.0).set_f64("min", 0.1).unwrap();
    assert_eq!(tenth.attribute("min"), Some(0.1), "the nearest f32 stands for it");
    let refused =
        activations(ctx, std::slice::from_ref(&tenth), ndarray::arr1(&[0.5f32]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "an f64 bound on f32: {refused}");
    let refused = activations(ctx, &[tenth], ndarray::arr1(&[5i64]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "an f64 bound on int64: {refused}");
    let wide = Activation::clip(0.0, 1.0).set_integer("max", (1 << 40) + 1).unwrap();
    let refused = activations(ctx, &[wide], ndarray::arr1(&[5.0f64]).into_dyn().view()).unwrap_err();
    assert!(matches!(refused, Error::InvalidAttribute { .. }), "an integer residual on f64: {refused}");
    let beyond = Activation::clip(0.0, 1.0).set_f64("max", 1e300).unwrap();
    assert_eq!(beyond.attribute("max"), Some(f32::INFINITY), "the nearest f32 stands for it");
    assert_ne!(beyond, Activation::clip(0.0, f32::INFINITY), "but does not clip like it");
    assert_eq!(Activation::clip(0.0, 1.0).set_f64("max", 6.0), Some(Activation::clip(0.0, 6.0)));
}

/// f64 on the software path (IEEE binary64 on u32 pairs), against the correctly rounded result
/// (the reference's f64 results come from each operator's twin in `Exact` arithmetic, rounded
/// once): random bit patterns of both signs, log-spaced values over each operator's sweep,
/// subnormals, specials, for every operator of the table and every attribute set. Asserts each
/// operator's table bound; returns the worst ULP distance per operator and the inputs checked.
fn f64_software_path_against_exact(points: usize) -> Option<(Vec<(&'static str, u64)>, usize)> {
    use rand::{Rng, SeedableRng};
    let ctx = common::ctx_with(wgpu_activations::ContextOptions::from_env().with_emulated(DType::F64, true))?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x05ee_df64);
    let quarter = points / 4;
    let mut worst: Vec<(&'static str, u64)> = Vec::new();
    let mut checked = 0;
    for op in UNARY_OPS {
        let mut xs: Vec<f64> =
            (0..2 * quarter).map(|_| f64::from_bits(rng.random::<u64>())).filter(|v| !v.is_nan()).collect();
        xs.extend(op.sweep.values(quarter, true));
        xs.extend(
            (0..quarter).map(|_| f64::from_bits(rng.random_range(1..1u64 << 52) | rng.random::<u64>() & 1 << 63)),
        );
        xs.extend(samples::<f64>(64, 7)); // the specials first
        let len = xs.len();
        checked = checked.max(len);
        let x = to_dyn(xs, &[len]);
        let mut op_worst = 0;
        for values in attribute_sets(op) {
            let (y, expected) = run(&ctx, op, &values, &x);
            let what = format!("{}({values:?}) f64 software path", op.onnx_name);
            let distance = max_ulp(&what, &y, &expected, &x);
            assert!(distance <= op.max_ulp.f64, "{what}: {distance} ULP > {}", op.max_ulp.f64);
            op_worst = op_worst.max(distance);
        }
        worst.push((op.onnx_name, op_worst));
    }
    Some((worst, checked))
}

fn report_f64_software_path(points: usize) {
    let Some((worst, n)) = f64_software_path_against_exact(points) else { return };
    let figures: Vec<String> = worst.iter().map(|(op, w)| format!("{op} max {w} ULP")).collect();
    println!("f64 software path over {n} inputs per attribute set: {}", figures.join(", "));
}

#[test]
fn f64_software_path_is_within_bounds_of_the_correctly_rounded_result() {
    report_f64_software_path(1 << 15);
}

/// `cargo xtask sweep`: the same over 2^20 inputs per attribute set.
#[test]
#[ignore = "a sweep: cargo xtask sweep"]
fn f64_software_path_sweep_of_a_million_inputs() {
    report_f64_software_path(1 << 20);
}

/// `cargo xtask sweep`: every f32 input of every unary operator, at its default attributes (each
/// choice of a STRING attribute: Gelu's two forms), the GPU against the CPU reference, with how
/// many results differ from it at all (a driver that contracts products into sums, NVIDIA's,
/// rounds some steps better than written). `WGPU_ACTIVATIONS_SWEEP_OPS` narrows it (ONNX
/// names, commas; `Name=a/b` for attribute values a, b instead of the defaults, e.g.
/// `Swish=1.702`): each operator takes about a minute on lavapipe.
#[test]
#[ignore = "a sweep: cargo xtask sweep"]
fn every_f32_input_against_the_reference() {
    const CHUNK: u64 = 1 << 24;
    let ctx = gpu_or_skip!();
    let only = std::env::var("WGPU_ACTIVATIONS_SWEEP_OPS").ok();
    // Each entry's name, and its attribute values where it gives them.
    type Asked<'a> = Vec<(&'a str, Option<Vec<f32>>)>;
    let asked: Option<Asked<'_>> = only.as_deref().map(|names| {
        names
            .split(',')
            .map(|entry| match entry.split_once('=') {
                Some((name, values)) => {
                    let values = values.split('/').map(|v| v.parse().expect("an attribute value")).collect();
                    (name, Some(values))
                }
                None => (entry, None),
            })
            .collect()
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // In the order asked, so that a run cut short by its time limit has swept the first named.
    let ops: Vec<&UnaryOp> = match &asked {
        Some(asked) => {
            let mut ops: Vec<&UnaryOp> = Vec::new();
            for op in asked.iter().filter_map(|(name, _)| UNARY_OPS.iter().copied().find(|op| op.onnx_name == *name)) {
                if !ops.iter().any(|o| std::ptr::eq(*o, op)) {
                    ops.push(op);
                }
            }
            ops
        }
        None => UNARY_OPS.to_vec(),
    };
    for op in ops {
        let wanted: Vec<&Option<Vec<f32>>> = match &asked {
            Some(asked) => asked.iter().filter(|(name, _)| *name == op.onnx_name).map(|(_, v)| v).collect(),
            None => vec![&None],
        };
        let defaults = op.default_attributes();
        let bound = op.max_ulp.for_dtype(DType::F32);
        let mut sets: Vec<Vec<f32>> = wanted.iter().filter_map(|v| v.as_ref().cloned()).collect();
        if wanted.iter().any(|v| v.is_none()) {
            // At the defaults, each choice of a STRING attribute.
            sets.extend(attribute_sets(op).into_iter().filter(|values| {
                op.attributes.iter().zip(values).zip(defaults).all(|((a, v), d)| a.is_choice() || *v == d)
            }));
        }
        for values in sets {
            let all = attributes(op, &values);
            let started = std::time::Instant::now();
            let (mut worst, mut differing) = ((0u64, 0u32), 0u64);
            for first in (0..1u64 << 32).step_by(CHUNK as usize) {
                let x: Vec<f32> = (first..first + CHUNK).map(|b| f32::from_bits(b as u32)).collect();
                let x = to_dyn(x, &[CHUNK as usize]);
                let y = activations(ctx, &[Activation::with_attributes(op, &values)], x.view()).unwrap();
                let (xs, ys) = (x.as_slice().unwrap(), y.as_slice().unwrap());
                let part = xs.len().div_ceil(threads);
                let found: Vec<((u64, u32), u64)> = std::thread::scope(|scope| {
                    let handles: Vec<_> = xs
                        .chunks(part)
                        .zip(ys.chunks(part))
                        .map(|(xs, ys)| {
                            scope.spawn(move || {
                                let expected = reference::unary(op, &all, to_dyn(xs.to_vec(), &[xs.len()]).view());
                                let (mut worst, mut differing) = ((0u64, 0u32), 0u64);
                                for ((&x, &y), &e) in xs.iter().zip(ys).zip(expected.iter()) {
                                    if y.to_bits() != e.to_bits() && !(y.is_nan() && e.is_nan()) {
                                        differing += 1;
                                        let d = wgpu_activations::ulp::ulp_distance(y, e).unwrap_or(u64::MAX);
                                        worst = worst.max((d, x.to_bits()));
                                    }
                                }
                                (worst, differing)
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap()).collect()
                });
                for (w, d) in found {
                    worst = worst.max(w);
                    differing += d;
                }
            }
            let (ulps, at) = worst;
            println!(
                "{}({values:?}) f32, every input: {differing} differ from the reference, worst {ulps} ULP at {:e} \
                 (bits {at:#010x}), bound {bound}, {:.0} s",
                op.onnx_name,
                f32::from_bits(at),
                started.elapsed().as_secs_f64()
            );
            assert!(ulps <= bound, "{}({values:?}) f32: {ulps} ULP at bits {at:#010x} > {bound}", op.onnx_name);
        }
    }
}

/// Relu6 is `Clip(0, 6)`, Hardshrink and Softshrink are Shrink, and both fuse into a chain with
/// the other operators (one kernel), each step rounding as it would alone.
#[test]
fn clip_and_shrink_make_relu6_and_the_shrinks_and_fuse() {
    let Some(ctx) = common::ctx() else { return };
    let x = to_dyn(vec![-3.0f32, -0.5, 0.25, 3.0, 7.5, f32::NAN, -0.0], &[7]);
    let relu6 = activations(ctx, &[Activation::relu6()], x.view()).unwrap();
    assert_eq!(relu6.iter().take(5).copied().collect::<Vec<_>>(), [0.0, 0.0, 0.25, 3.0, 6.0]);
    assert!(relu6[5].is_nan() && relu6[6].to_bits() == (-0.0f32).to_bits());
    let hard = activations(ctx, &[Activation::shrink(0.5, 0.0)], x.view()).unwrap();
    assert_eq!(hard.iter().take(5).copied().collect::<Vec<_>>(), [-3.0, 0.0, 0.0, 3.0, 7.5]);
    let soft = activations(ctx, &[Activation::shrink(0.5, 0.5)], x.view()).unwrap();
    assert_eq!(soft.iter().take(5).copied().collect::<Vec<_>>(), [-2.5, 0.0, 0.0, 2.5, 7.0]);
    let chain = [Activation::leaky_relu(0.1), Activation::relu6(), Activation::shrink(0.5, 0.25)];
    let fused = activations(ctx, &chain, x.view()).unwrap();
    let mut stepwise = x.clone();
    for step in &chain {
        stepwise = activations(ctx, std::slice::from_ref(step), stepwise.view()).unwrap();
    }
    for (a, b) in fused.iter().zip(stepwise.iter()) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
}

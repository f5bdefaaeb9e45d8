//! The kernel sources' tests: shapes, keys, naga's validation of every variant, and the
//! uniform block's layout against naga's.

use super::*;
use crate::ops::{UNARY_OPS, UnaryOp};
use crate::repr::REPRS;

#[test]
fn the_default_shape_follows_the_adapter_and_a_request_wins() {
    let limits = wgpu::Limits::default();
    let shape = |t: Tuning| (t.workgroup_size, t.vectors_per_invocation);
    assert_eq!(shape(Tuning::for_limits(&limits, None, false, false, false)), (256, 4), "a GPU");
    assert_eq!(shape(Tuning::for_limits(&limits, None, true, true, true)), (256, 4), "llvmpipe's straight line");
    let swiftshader = Tuning::for_limits(&limits, None, true, true, false);
    assert_eq!(shape(swiftshader), Tuning::SIMD_ACROSS_INVOCATIONS);
    assert!(!swiftshader.straight_line);
    assert_eq!(shape(Tuning::for_limits(&limits, Some((128, 8)), true, true, false)), (128, 8), "requested");
    let small = wgpu::Limits { max_compute_invocations_per_workgroup: 48, ..limits };
    assert_eq!(shape(Tuning::for_limits(&small, Some((256, 64)), false, false, false)), (32, 32), "within limits");
}

#[test]
fn the_operators_that_only_compare_and_add_take_no_products() {
    let free: Vec<&str> =
        UNARY_OPS.iter().filter(|op| takes_no_products(&Step::Unary(op, 0))).map(|op| op.onnx_name).collect();
    assert_eq!(free, ["Relu", "ThresholdedRelu", "Clip"]);
    assert!(!takes_no_products(&Step::Prelu(SlopeAccess::Same)));
    let flagged = Tuning { products: Products::Flagged, ..Tuning::default() };
    let relu = Step::Unary(UNARY_OPS.iter().find(|op| op.onnx_name == "Relu").unwrap(), 0);
    let leaky = Step::Unary(UNARY_OPS.iter().find(|op| op.onnx_name == "LeakyRelu").unwrap(), 0);
    let f32_repr = REPRS.iter().find(|spec| spec.dtype == crate::DType::F32).unwrap().repr;
    assert_eq!(KernelKey::new(f32_repr, &[relu, relu], false, flagged).tuning.products, Products::Hardware);
    assert_eq!(KernelKey::new(f32_repr, &[relu, leaky], false, flagged).tuning.products, Products::Flagged);
    // Shrink takes sums and no product: one pass with the exact modes' sums, alone and beside
    // Relu, two beside LeakyRelu; the guarded form keeps its one pass.
    let shrink = Step::Unary(&crate::ops::SHRINK, 0);
    assert_eq!(KernelKey::new(f32_repr, &[shrink], false, flagged).tuning.products, Products::OnIntegers);
    assert_eq!(KernelKey::new(f32_repr, &[relu, shrink], false, flagged).tuning.products, Products::OnIntegers);
    assert_eq!(KernelKey::new(f32_repr, &[shrink, leaky], false, flagged).tuning.products, Products::Flagged);
    let guarded = Tuning { products: Products::Guarded, ..Tuning::default() };
    assert_eq!(KernelKey::new(f32_repr, &[shrink], false, guarded).tuning.products, Products::Guarded);
    // Flagged by the plain ranges, likewise.
    let by_range = Tuning { products: Products::FlaggedByRange, ..Tuning::default() };
    assert_eq!(KernelKey::new(f32_repr, &[relu, shrink], false, by_range).tuning.products, Products::OnIntegers);
    assert_eq!(KernelKey::new(f32_repr, &[shrink, leaky], false, by_range).tuning.products, Products::FlaggedByRange);
}

#[test]
fn chains_over_the_same_operators_share_one_step_program() {
    let (leaky, elu) = (Step::Unary(&crate::ops::LEAKY_RELU, 0), Step::Unary(&crate::ops::ELU, 0));
    let program = Tuning { step_program: true, ..Tuning::default() };
    let key = |steps: &[StepKind], tuning| KernelKey::new(Repr::F32, steps, false, tuning);
    assert_eq!(key(&[elu, leaky, elu], program), key(&[leaky, leaky, elu], program));
    assert_ne!(key(&[elu, leaky], program), key(&[elu, leaky], Tuning::default()));
    let both = key(&[elu, leaky], program);
    assert_eq!((both.program_case(leaky), both.program_case(elu)), (1, 2), "the table's order");
    assert_eq!(both.program_case(Step::Unary(&crate::ops::GELU, 0)), 0, "no case");
    assert_eq!(key(&[elu, elu], program).steps().count(), 1);
    assert!(!key(&[elu], program).tuning.step_program, "a single step keeps its written kernel");
    assert!(!key(&[elu, Step::Prelu(SlopeAccess::Scalar)], program).tuning.step_program, "PRelu is no case");
}

/// Every key the validation test covers: each representation with the empty chain (the
/// bench's copy), each PRelu slope access and each single unary op where the dtype is
/// accepted, each op followed by the next one of the table (every op fused before and after
/// another, without the square of the table), a full chain, and PRelu and SwiGLU mixed into
/// unary chains, in place and not.
pub(crate) fn all_variants() -> Vec<KernelKey> {
    let mut keys = Vec::new();
    for spec in &REPRS {
        let mut chains: Vec<Vec<StepKind>> = vec![vec![]];
        let prelu = crate::ops::accepts(crate::ops::PRELU.versions, spec.dtype);
        if prelu {
            for access in SlopeAccess::ALL {
                chains.push(vec![Step::Prelu(access)]);
            }
        }
        let ops: Vec<&'static UnaryOp> =
            UNARY_OPS.iter().copied().filter(|op| crate::ops::accepts(op.versions, spec.dtype)).collect();
        for (i, &a) in ops.iter().enumerate() {
            chains.extend(a.kernel_variants().into_iter().map(|(variant, ..)| vec![Step::Unary(a, variant)]));
            if ops.len() > 1 {
                chains.push(vec![Step::Unary(a, 0), Step::Unary(ops[(i + 1) % ops.len()], 0)]);
            }
        }
        // SwiGLU alone (each kernel function), and between unary steps beside a PRelu, where a
        // kernel has it.
        let swiglu = crate::ops::SWIGLU.accepts(spec.dtype);
        if swiglu {
            chains.push(vec![Step::Swiglu(SlopeAccess::Same, 0)]);
            chains.push(vec![Step::Swiglu(SlopeAccess::Same, 1)]);
        }
        if let (Some(&first), Some(&last)) = (ops.first(), ops.last()) {
            chains.push(vec![Step::Unary(last, 0); MAX_CHAIN]);
            if swiglu {
                chains.push(vec![
                    Step::Unary(first, 0),
                    Step::Swiglu(SlopeAccess::Same, 0),
                    Step::Prelu(SlopeAccess::Channel),
                    Step::Unary(last, 0),
                ]);
            }
            if prelu {
                chains.push(vec![
                    Step::Prelu(SlopeAccess::Same),
                    Step::Unary(last, 0),
                    Step::Prelu(SlopeAccess::Channel),
                    Step::Unary(first, 0),
                    Step::Prelu(SlopeAccess::General),
                ]);
            }
        }
        let products: &[Products] = if spec.files().any(|f| crate::repr::exact_subnormal_products(f).is_some()) {
            &[
                Products::Hardware,
                Products::OnIntegers,
                Products::Guarded,
                Products::Flagged,
                Products::FlaggedByRange,
                Products::Listed,
            ]
        } else {
            &[Products::Hardware]
        };
        for chain in &chains {
            for in_place in [false, true] {
                for &products in products {
                    // Both driver forms: straight-line with Y apart, the loop in place.
                    // Both forms of a product's error: fma's with Y apart, Dekker's in place.
                    let tuning = Tuning {
                        contiguous: in_place,
                        products,
                        straight_line: !in_place,
                        fused_product_errors: !in_place,
                        ..Tuning::default()
                    };
                    keys.push(KernelKey::new(spec.repr, chain, in_place, tuning));
                }
            }
        }
        // The loop with its groups in a loop (llvmpipe's small tensors), Y apart, the full
        // chain and each single operator of a PRelu-free kernel.
        let compact = Tuning { contiguous: true, looped_groups: true, ..Tuning::default() };
        for chain in chains.iter().filter(|c| c.len() == 1 || c.len() == MAX_CHAIN) {
            keys.push(KernelKey::new(spec.repr, chain, false, compact));
        }
        // X, or a PRelu slope, at a range of its own in Y's buffer (a framework's pooled
        // page): those bindings are read_write.
        for chain in chains.iter().filter(|c| c.len() == 1 || c.iter().any(|s| s.slope().is_some())) {
            let has_slope = chain.iter().any(|s| s.slope().is_some());
            for in_place in [false, has_slope] {
                keys.push(KernelKey::new(spec.repr, chain, in_place, compact).with_inputs_in_output_buffer(true));
            }
        }
        // A step program over every operator of the dtype (two on the software-f64 path,
        // which holds one interpreter a kernel), in place, on each kind of products.
        let software_f64 = spec.dtype == DType::F64 && !spec.native;
        let program: Vec<StepKind> =
            ops.iter().take(if software_f64 { 2 } else { MAX_CHAIN }).map(|op| Step::Unary(op, 0)).collect();
        for &products in products.iter().filter(|p| **p != Products::OnIntegers) {
            let tuning = Tuning { products, step_program: true, fused_product_errors: true, ..compact };
            keys.push(KernelKey::new(spec.repr, &program, true, tuning));
        }
    }
    keys
}

pub(crate) fn parse_and_validate(key: &KernelKey) -> Result<naga::Module, String> {
    let src = key.wgsl();
    let module = naga::front::wgsl::parse_str(&src)
        .map_err(|e| format!("{}: parse error\n{}\n{src}", key.label(), e.emit_to_string(&src)))?;
    // Exactly the capabilities the representation's feature grants: the emulated paths must
    // validate with none, since they exist for adapters that have none.
    let feature = key.repr.spec().feature;
    let mut caps = naga::valid::Capabilities::empty();
    if feature.contains(wgpu::Features::SHADER_F16) {
        caps |= naga::valid::Capabilities::SHADER_FLOAT16;
    }
    if feature.contains(wgpu::Features::SHADER_F64) {
        caps |= naga::valid::Capabilities::FLOAT64;
    }
    if feature.contains(wgpu::Features::SHADER_INT64) {
        caps |= naga::valid::Capabilities::SHADER_INT64;
    }
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| format!("{}: invalid\n{}\n{src}", key.label(), e.emit_to_string(&src)))?;
    Ok(module)
}

#[test]
fn every_kernel_variant_validates_with_naga() {
    let keys = all_variants();
    assert!(keys.len() >= 150, "{} variants", keys.len());
    let failures: Vec<String> = keys.iter().filter_map(|k| parse_and_validate(k).err()).collect();
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), keys.len(), failures.join("\n\n"));
}

#[test]
fn entry_points_read_exactly_the_bindings_the_engine_binds() {
    for key in all_variants() {
        let module = parse_and_validate(&key).unwrap();
        let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap();
        for pass in key.passes() {
            let index = module.entry_points.iter().position(|e| e.name == pass.entry_point()).unwrap();
            let function = info.get_entry_point(index);
            let mut used: Vec<u32> = module
                .global_variables
                .iter()
                .filter(|(handle, _)| !function[*handle].is_empty())
                .filter_map(|(_, var)| var.binding.as_ref().map(|b| b.binding))
                .collect();
            used.sort();
            assert_eq!(used, key.bindings(pass), "{} {pass:?}", key.label());
        }
    }
}

#[test]
fn params_layout_matches_the_wgsl_struct() {
    use std::mem::{offset_of, size_of};
    let key = KernelKey::new(Repr::F32, &[Step::Unary(UNARY_OPS[0], 0)], false, Tuning::default());
    let module = parse_and_validate(&key).unwrap();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let find = |name: &str| {
        let (handle, ty) = module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).unwrap();
        let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("{name} is not a struct") };
        let offsets: Vec<(String, u32)> =
            members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect();
        (offsets, *span, layouter[handle].size)
    };
    let (members, span, _) = find("Params");
    let rust = [
        ("vectors", offset_of!(Params, vectors)),
        ("tail_word", offset_of!(Params, tail_word)),
        ("tail_elements", offset_of!(Params, tail_elements)),
        ("first_element", offset_of!(Params, first_element)),
        ("steps", offset_of!(Params, steps)),
        ("general_rank", offset_of!(Params, general_rank)),
        ("zero", offset_of!(Params, zero)),
        ("max_listed_groups", offset_of!(Params, max_listed_groups)),
        ("program_steps", offset_of!(Params, program_steps)),
        ("general_dims", offset_of!(Params, general_dims)),
        ("general_strides", offset_of!(Params, general_strides)),
        ("general_magics", offset_of!(Params, general_magics)),
        ("general_modes", offset_of!(Params, general_modes)),
        ("block_offsets", offset_of!(Params, block_offsets)),
    ];
    let expected: Vec<(String, u32)> = rust.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect();
    assert_eq!(members, expected);
    assert_eq!(span as usize, size_of::<Params>());
    let (members, span, _) = find("Step");
    let expected = [
        ("attributes", 0),
        ("slope", offset_of!(StepParams, slope)),
        ("jump", offset_of!(StepParams, jump)),
        ("divide", offset_of!(StepParams, divide)),
    ];
    assert_eq!(members, expected.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect::<Vec<_>>());
    assert_eq!(span as usize, size_of::<StepParams>());
}

/// A kernel holds the math its operators call and no other: SwiftShader compiles whatever a
/// module holds, and the software f64 math is heavy.
#[test]
fn kernels_hold_only_the_math_they_call() {
    let kernel =
        |op: &'static UnaryOp| KernelKey::new(Repr::F64Soft, &[Step::Unary(op, 0)], false, Tuning::default()).wgsl();
    let leaky = kernel(&crate::ops::LEAKY_RELU);
    let sigmoid = kernel(&crate::ops::SIGMOID);
    assert!(
        !leaky.contains("fn d_logistic") && !leaky.contains("fn d_expm1"),
        "LeakyRelu's kernel holds math it never calls"
    );
    assert!(sigmoid.contains("fn d_logistic") && !sigmoid.contains("fn d_hyperbolic_tangent"));
    assert!(leaky.len() < sigmoid.len(), "{} bytes against {}", leaky.len(), sigmoid.len());
    // Each choice of a STRING attribute is a kernel of its own, holding its own math only.
    let gelu =
        |variant| KernelKey::new(Repr::F64Soft, &[Step::Unary(&crate::ops::GELU, variant)], false, Tuning::default());
    let (erf, tanh) = (gelu(0).wgsl(), gelu(1).wgsl());
    assert!(erf.contains("fn d_normal_cdf_product") && !erf.contains("fn d_gelu_tanh_product"));
    assert!(tanh.contains("fn d_gelu_tanh_product") && !tanh.contains("fn d_normal_cdf_product"));
    assert_eq!(
        (gelu(0).label(), gelu(1).label()),
        ("wgpu-activations.gelu.f64".into(), "wgpu-activations.gelu_tanh.f64".into())
    );
    let tanh_attributes = crate::ops::attributes_from(&[1.0]);
    assert_eq!(crate::ops::GELU.kernel_variant(&tanh_attributes), 1);
    assert_eq!(
        crate::ops::GELU.kernel_variant(&crate::ops::attributes_from(&[0.5])),
        0,
        "no choice: the default's kernel"
    );
}

#[test]
fn attributes_and_shapes_are_not_shader_text() {
    let key = KernelKey::new(Repr::F32, &[Step::Unary(UNARY_OPS[1], 0)], false, Tuning::default());
    assert!(!key.wgsl().contains("0.01"));
    assert_eq!(key.label(), "wgpu-activations.elu.f32");
    for key in all_variants() {
        let src = key.wgsl();
        let code = src.lines().filter(|l| !l.trim_start().starts_with("//"));
        assert!(code.clone().all(|l| !l.contains("{{")), "unfilled placeholder in {}", key.label());
    }
}

/// Only a step whose function reaches `mul` tests its plain range: for the others the plain
/// copy is the function itself, and in the first of two passes the test would only flag.
#[test]
fn only_steps_that_reach_mul_test_their_plain_range() {
    let f32_repr = REPRS.iter().find(|spec| spec.dtype == crate::DType::F32).unwrap().repr;
    let mut untested = Vec::new();
    for op in UNARY_OPS {
        for (variant, _, _) in op.kernel_variants() {
            let step = Step::Unary(op, variant);
            for products in [Products::Guarded, Products::FlaggedByRange] {
                let key = KernelKey::new(f32_repr, &[step], false, Tuning { products, ..Tuning::default() });
                if !key.tuning.products.tests_plain_ranges() {
                    continue; // no products at all, or only sums: one pass without ranges
                }
                let wgsl = key.wgsl();
                let function = op.kernel_function(variant);
                let tests = wgsl.contains("in_plain_range(");
                assert_eq!(tests, wgsl.contains(&format!("fn {function}_plain(")), "{}", key.label());
                if !tests && products == Products::Guarded {
                    untested.push(function);
                }
            }
        }
    }
    assert_eq!(untested, ["hard_sigmoid_through_zero", "tanh", "shrink"]);
}

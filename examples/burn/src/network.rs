//! A small network in burn with our activations between its matmuls: a LLaMA-style gated MLP
//! and a classifier head,
//!
//! ```text
//! A = X Wa, B = X Wb          (burn)
//! G = SwiGLU(A, B)            (ours: reads burn's A and B, writes burn's G)
//! H = G W2                    (burn)
//! H = LeakyRelu(Gelu(H))      (ours: one fused kernel, in place in burn's H)
//! L = H W3                    (burn)
//! P = Softmax(L, axis 1)      (ours: reads burn's L, writes burn's P)
//! sum of P's rows, argmax     (burn, on our result)
//! ```
//!
//! Each of our steps is checked against our CPU reference applied to what burn computed.

use burn_tensor::{Tensor, TensorData};
use ndarray::{ArrayD, IxDyn};
use wgpu_activations::ops::{GELU, SOFTMAX, SWIGLU};
use wgpu_activations::{Activation, DType, reference, ulp};

use crate::{BridgeError, BridgeResult, BurnView, Shared};

/// Rows of X.
pub const BATCH: usize = 64;
/// Features of X.
pub const FEATURES: usize = 256;
/// Width of the gated MLP.
pub const HIDDEN: usize = 1024;
/// Classes of the head.
pub const CLASSES: usize = 10;

/// What one of our steps did, checked.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// The step, in words.
    pub step: &'static str,
    /// Elements written.
    pub elements: usize,
    /// Worst distance from the CPU reference, in ULPs.
    pub worst_ulp: u64,
    /// The bound the step is held to.
    pub bound: u64,
    /// The buffer burn allocated and the offset in it that our kernel wrote.
    pub buffer_offset: u64,
}

/// What the network did.
#[derive(Debug, Clone)]
pub struct NetworkReport {
    /// Our three steps.
    pub steps: Vec<StepReport>,
    /// burn's sums of P's rows, computed on our output.
    pub row_sums: Vec<f32>,
    /// burn's argmax of each row of P.
    pub classes: Vec<i64>,
}

impl NetworkReport {
    /// True when every step is within its bound and every row of P sums to 1 within 4 ULP of 1.
    pub fn passed(&self) -> bool {
        self.steps.iter().all(|s| s.worst_ulp <= s.bound)
            && self.row_sums.iter().all(|s| (s - 1.0).abs() <= 4.0 * f32::EPSILON)
    }
}

/// A deterministic weight matrix of `rows x cols`, scaled like a trained layer's.
fn weights(rows: usize, cols: usize, seed: u32) -> Vec<f32> {
    let scale = 1.0 / (rows as f32).sqrt();
    (0..rows * cols)
        .map(|i| {
            let h = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed.wrapping_mul(40_503)) >> 8;
            scale * (2.0 * (h as f32 / (1u32 << 24) as f32) - 1.0) * 1.7
        })
        .collect()
}

fn host_of<const D: usize>(tensor: &Tensor<D>) -> BridgeResult<ArrayD<f32>> {
    let data: TensorData = tensor.to_data();
    let values = data.try_to_vec::<f32>().map_err(|e| BridgeError::Burn(format!("{e:?}")))?;
    ArrayD::from_shape_vec(IxDyn(&tensor.dims()), values).map_err(|e| BridgeError::Layout(e.to_string()))
}

fn report(step: &'static str, ours: &ArrayD<f32>, expected: &ArrayD<f32>, bound: u64, view: &BurnView) -> StepReport {
    let (worst_ulp, _) =
        ulp::max_ulp_error(ours.as_slice().unwrap_or_default(), expected.as_slice().unwrap_or_default())
            .unwrap_or((u64::MAX, 0));
    StepReport { step, elements: ours.len(), worst_ulp, bound, buffer_offset: view.resource.offset }
}

/// Checks that `view` is the very buffer and range burn reported: no copy was made.
fn assert_in_place(view: &BurnView) -> BridgeResult<()> {
    if view.tensor.buffer() != &view.resource.buffer || view.tensor.offset() != view.resource.offset {
        return Err(BridgeError::Layout("our tensor is not over burn's buffer".into()));
    }
    if view.tensor.size_bytes() > view.resource.size {
        return Err(BridgeError::Layout(format!(
            "{} bytes do not fit burn's {}-byte range",
            view.tensor.size_bytes(),
            view.resource.size
        )));
    }
    Ok(())
}

/// Runs the network on `shared`'s device and checks each of our steps.
pub fn run(shared: &Shared) -> BridgeResult<NetworkReport> {
    let ctx = &shared.ctx;
    let x_values: Vec<f32> = (0..BATCH * FEATURES).map(|i| ((i as f32) * 0.37).sin() * 2.5).collect();
    let x = shared.burn_tensor(x_values, [BATCH, FEATURES]);
    let wa = shared.burn_tensor(weights(FEATURES, HIDDEN, 1), [FEATURES, HIDDEN]);
    let wb = shared.burn_tensor(weights(FEATURES, HIDDEN, 2), [FEATURES, HIDDEN]);
    let w2 = shared.burn_tensor(weights(HIDDEN, FEATURES, 3), [HIDDEN, FEATURES]);
    let w3 = shared.burn_tensor(weights(FEATURES, CLASSES, 4), [FEATURES, CLASSES]);
    let mut steps = Vec::new();

    // burn's matmuls are still pending when we take their buffers: the views submit them first.
    let a = x.clone().matmul(wa);
    let b = x.matmul(wb);
    let g = Tensor::<2>::empty([BATCH, HIDDEN], &shared.burn);
    let (a_view, b_view, g_view) = (BurnView::of(shared, &a)?, BurnView::of(shared, &b)?, BurnView::of(shared, &g)?);
    for view in [&a_view, &b_view, &g_view] {
        assert_in_place(view)?;
    }
    let mut encoder =
        shared.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.swiglu") });
    ctx.encode_swiglu(&mut encoder, &a_view.tensor, &b_view.tensor, 1.0, &g_view.tensor)?;
    ctx.queue().submit([encoder.finish()]);
    let (a_host, b_host, g_host) = (host_of(&a)?, host_of(&b)?, host_of(&g)?);
    let expected = reference::swiglu(a_host.view(), b_host.view(), 1.0)?;
    steps.push(report("SwiGLU(A, B) into burn's G", &g_host, &expected, SWIGLU.max_ulp.f32, &g_view));
    drop((a_view, b_view, g_view));

    // Fused Gelu -> LeakyRelu in place in burn's H.
    let h = g.matmul(w2);
    let h_before = host_of(&h)?;
    let h_view = BurnView::of(shared, &h)?;
    assert_in_place(&h_view)?;
    let chain = [Activation::with_defaults(&GELU), Activation::leaky_relu(0.01)];
    ctx.run_activations_in_place(&chain, &h_view.tensor)?;
    let expected =
        reference::leaky_relu(reference::unary(&GELU, &GELU.default_attributes(), h_before.view()).view(), 0.01);
    let bound = wgpu_activations::ops::chain_bound(chain.iter().map(|s| s.max_ulp(DType::F32)));
    let h_host = host_of(&h)?;
    steps.push(report("Gelu -> LeakyRelu, fused, in place in burn's H", &h_host, &expected, bound, &h_view));
    drop(h_view);

    // Softmax of burn's logits into burn's P; burn then reduces our P.
    let logits = h.matmul(w3);
    let p = Tensor::<2>::empty([BATCH, CLASSES], &shared.burn);
    let (l_view, p_view) = (BurnView::of(shared, &logits)?, BurnView::of(shared, &p)?);
    assert_in_place(&l_view)?;
    assert_in_place(&p_view)?;
    let mut encoder =
        shared.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.softmax") });
    ctx.encode_axis(&mut encoder, &SOFTMAX, &l_view.tensor, &p_view.tensor, 1, None)?;
    ctx.queue().submit([encoder.finish()]);
    let (l_host, p_host) = (host_of(&logits)?, host_of(&p)?);
    let expected = reference::axis_op(&SOFTMAX, None, l_host.view(), 1)?;
    steps.push(report("Softmax(L, axis 1) into burn's P", &p_host, &expected, SOFTMAX.max_ulp.f32, &p_view));
    drop((l_view, p_view));

    let row_sums = host_of(&p.clone().sum_dim(1))?.iter().copied().collect();
    let classes = p.argmax(1).to_data().try_to_vec_as::<i64>().map_err(|e| BridgeError::Burn(format!("{e:?}")))?;
    Ok(NetworkReport { steps, row_sums, classes })
}

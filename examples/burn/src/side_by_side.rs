//! Our activations beside burn's own on one device and the same input tensors: time as a share
//! of a copy kernel over the same bytes and as a ratio to burn's (alternating, medians), and the
//! worst ULP of each against the correctly rounded result (`cargo xtask bench-burn`).
//!
//! burn's side runs its public activation functions; its work is timed from the first call to
//! the end of its own `sync`. Ours records into one encoder over views of burn's input tensors
//! and is timed to the end of a device poll. The copy kernel is a plain WGSL copy of the same
//! bytes, vec4<u32> per invocation.

use std::time::Instant;

use burn_tensor::{Tensor, TensorData, activation};
use half::f16;
use ndarray::{ArrayD, IxDyn};
use wgpu_activations::ops::{
    AxisOp, GELU, HARD_SIGMOID, LOG_SOFTMAX, MISH, RELU, SIGMOID, SOFTMAX, SOFTPLUS, SWISH, TANH, UnaryOp,
};
use wgpu_activations::{Activation, Element, GpuTensor, reference, ulp};

use crate::{BridgeError, BridgeResult, BurnView, Shared};

/// What our side runs for a row.
#[derive(Clone, Copy)]
enum Ours {
    /// A unary operator with these first attributes.
    Unary(&'static UnaryOp, &'static [f32]),
    /// PRelu with a per-column slope.
    Prelu,
    /// Softmax or LogSoftmax over the last axis.
    Axis(&'static AxisOp),
    /// Nothing of ours computes it.
    None,
}

/// One row of the table: burn's function and ours.
struct Case {
    name: &'static str,
    burn: fn(Tensor<2>, &Tensor<1>) -> Tensor<2>,
    ours: Ours,
}

const CASES: &[Case] = &[
    Case { name: "relu", burn: |x, _| activation::relu(x), ours: Ours::Unary(&RELU, &[]) },
    Case {
        name: "leaky_relu(0.01)",
        burn: |x, _| activation::leaky_relu(x, 0.01),
        ours: Ours::Unary(&wgpu_activations::ops::LEAKY_RELU, &[0.01]),
    },
    Case { name: "prelu, per column", burn: |x, a| activation::prelu(x, a.clone()), ours: Ours::Prelu },
    Case { name: "gelu (erf)", burn: |x, _| activation::gelu(x), ours: Ours::Unary(&GELU, &[]) },
    Case { name: "sigmoid", burn: |x, _| activation::sigmoid(x), ours: Ours::Unary(&SIGMOID, &[]) },
    Case { name: "tanh", burn: |x, _| activation::tanh(x), ours: Ours::Unary(&TANH, &[]) },
    Case { name: "silu (Swish, alpha 1)", burn: |x, _| activation::silu(x), ours: Ours::Unary(&SWISH, &[1.0]) },
    Case { name: "mish", burn: |x, _| activation::mish(x), ours: Ours::Unary(&MISH, &[]) },
    Case { name: "softplus", burn: |x, _| activation::softplus(x, 1.0), ours: Ours::Unary(&SOFTPLUS, &[]) },
    Case {
        name: "hard_sigmoid(0.2, 0.5)",
        burn: |x, _| activation::hard_sigmoid(x, 0.2, 0.5),
        ours: Ours::Unary(&HARD_SIGMOID, &[0.2, 0.5]),
    },
    Case { name: "log_sigmoid", burn: |x, _| activation::log_sigmoid(x), ours: Ours::None },
    Case { name: "softmax, rows of 1024", burn: |x, _| activation::softmax(x, 1), ours: Ours::Axis(&SOFTMAX) },
    Case {
        name: "log_softmax, rows of 1024",
        burn: |x, _| activation::log_softmax(x, 1),
        ours: Ours::Axis(&LOG_SOFTMAX),
    },
];

/// Rows in each table: every activation burn has.
pub const ROWS_OF_THE_TABLE: usize = CASES.len();

/// Our bound for the row named `name` on `dtype` (`None` where we have no such operator).
pub fn bound(name: &str, dtype: wgpu_activations::DType) -> Option<u64> {
    let case = CASES.iter().find(|c| c.name == name)?;
    match case.ours {
        Ours::Unary(op, _) => Some(op.max_ulp.for_dtype(dtype)),
        Ours::Prelu => Some(wgpu_activations::ops::PRELU.max_ulp.for_dtype(dtype)),
        Ours::Axis(op) => Some(op.max_ulp.for_dtype(dtype)),
        Ours::None => None,
    }
}

/// Row length of every input: the axis rows, and the PRelu slope's length.
pub const COLUMNS: usize = 1024;

/// Which dtype a table runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// float32.
    F32,
    /// float16 (where the device has `shader-f16`; burn needs it).
    F16,
}

/// One measured row.
#[derive(Debug, Clone)]
pub struct Row {
    /// burn's function.
    pub name: &'static str,
    /// Ours over the copy kernel's time (share of copy: copy / ours), `None` where we have none.
    pub ours_share_of_copy: Option<f64>,
    /// burn's share of copy.
    pub burn_share_of_copy: f64,
    /// burn's time over ours (above 1: we are faster).
    pub burn_over_ours: Option<f64>,
    /// Our worst ULP against the correctly rounded result.
    pub ours_ulp: Option<u64>,
    /// burn's worst ULP.
    pub burn_ulp: u64,
    /// burn's share of results more than 2 ULP from the correctly rounded one.
    pub burn_beyond_2_ulp: f64,
}

/// The inputs of a case: log-spaced over the operator's sweep (the accuracy table's), or rows
/// of spread 3 for the axis operators.
fn inputs(case: &Case, len: usize) -> Vec<f64> {
    match case.ours {
        Ours::Unary(op, _) => {
            let mut values = op.sweep.values(len, false);
            values.resize(len, 0.0);
            values
        }
        Ours::Axis(_) => {
            (0..len).map(|i| 3.0 * (((i as u64 * 2_654_435_761) % 65_536) as f64 / 32_768.0 - 1.0)).collect()
        }
        Ours::Prelu | Ours::None => {
            let sweep = wgpu_activations::ops::Sweep::AROUND_ONE;
            let mut values = sweep.values(len, false);
            values.resize(len, 0.0);
            values
        }
    }
}

fn slope_values() -> Vec<f64> {
    (0..COLUMNS).map(|c| 0.01 + 0.3 * (c as f64 / COLUMNS as f64)).collect()
}

/// The correctly rounded result of `case` (our CPU reference: each result computed in f64 or
/// better and rounded once), `None` where it has no reference.
fn expected<T: wgpu_activations::FloatElement>(case: &Case, x: &ArrayD<T>) -> BridgeResult<Option<ArrayD<T>>> {
    Ok(match case.ours {
        Ours::Unary(op, values) => {
            let mut attributes = op.default_attributes();
            attributes[..values.len()].copy_from_slice(values);
            Some(reference::unary(op, &attributes, x.view()))
        }
        Ours::Prelu => {
            let slope: Vec<T> = slope_values().into_iter().map(T::from_f64).collect();
            Some(reference::prelu(x.view(), ArrayD::from_shape_vec(IxDyn(&[COLUMNS]), slope).map_err(layout)?.view())?)
        }
        Ours::Axis(op) => Some(reference::axis_op(op, None, x.view(), -1)?),
        Ours::None => None,
    })
}

fn layout(e: impl std::fmt::Display) -> BridgeError {
    BridgeError::Layout(e.to_string())
}

fn burn_error(e: impl std::fmt::Debug) -> BridgeError {
    BridgeError::Burn(format!("{e:?}"))
}

/// burn's values of `tensor` as `T`.
fn host_values<T: Element + burn_tensor::Element>(tensor: &Tensor<2>) -> BridgeResult<Vec<T>> {
    tensor.to_data().try_to_vec::<T>().map_err(burn_error)
}

/// A whole-vec4 binding of `t` (the bench's shapes are multiples of 16 bytes).
fn binding(t: &GpuTensor) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding { buffer: t.buffer(), offset: t.offset(), size: wgpu::BufferSize::new(t.size_bytes()) }
}

/// The worst ULP of `got` against `want` (`u64::MAX` for a NaN where a number is due), and the
/// share of results beyond 2 ULP.
fn ulp_summary<T: Element>(got: &[T], want: &[T]) -> (u64, f64) {
    let distances: Vec<u64> =
        got.iter().zip(want).map(|(&g, &w)| ulp::ulp_distance(g, w).unwrap_or(u64::MAX)).collect();
    let beyond = distances.iter().filter(|&&d| d > 2).count();
    (distances.iter().copied().max().unwrap_or(0), beyond as f64 / distances.len().max(1) as f64)
}

/// The shared device's copy kernel: X bound read-only, or writable where X and Y share a
/// buffer (as ours are: WebGPU cannot bind one buffer read-only beside writable).
struct Copy {
    pipelines: [wgpu::ComputePipeline; 2],
}

impl Copy {
    fn new(device: &wgpu::Device) -> Self {
        let pipeline = |access: &str| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("bench-burn.copy"),
                source: wgpu::ShaderSource::Wgsl(
                    format!(
                        "@group(0) @binding(0) var<storage, {access}> x: array<vec4<u32>>;
                         @group(0) @binding(1) var<storage, read_write> y: array<vec4<u32>>;
                         @compute @workgroup_size(256)
                         fn copy(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {{
                             let i = id.x + id.y * n.x * 256u;
                             if i < arrayLength(&x) {{ y[i] = x[i]; }}
                         }}"
                    )
                    .into(),
                ),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("bench-burn.copy"),
                layout: None,
                module: &module,
                entry_point: Some("copy"),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self { pipelines: [pipeline("read"), pipeline("read_write")] }
    }

    fn record(&self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, x: &GpuTensor, y: &GpuTensor) {
        let pipeline = &self.pipelines[usize::from(x.buffer() == y.buffer())];
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("bench-burn.copy"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::Buffer(binding(x)) },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Buffer(binding(y)) },
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench-burn.copy"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &group, &[]);
        let groups = (x.size_bytes() / 16).div_ceil(256) as u32;
        let (gx, gy) = if groups > 65_535 { (65_535, groups.div_ceil(65_535)) } else { (groups, 1) };
        pass.dispatch_workgroups(gx, gy, 1);
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs every case at `precision` over `rows` x [`COLUMNS`] elements, `iterations` calls a
/// timing and `repeats` alternating timings a side.
pub fn run(
    shared: &Shared,
    precision: Precision,
    rows: usize,
    iterations: usize,
    repeats: usize,
) -> BridgeResult<Vec<Row>> {
    match precision {
        Precision::F32 => run_typed::<f32>(shared, rows, iterations, repeats),
        Precision::F16 => run_typed::<f16>(shared, rows, iterations, repeats),
    }
}

fn run_typed<T>(shared: &Shared, rows: usize, iterations: usize, repeats: usize) -> BridgeResult<Vec<Row>>
where
    T: wgpu_activations::FloatElement + burn_tensor::Element,
{
    let ctx = &shared.ctx;
    let device = &shared.device;
    let copy = Copy::new(device);
    let len = rows * COLUMNS;
    let mut table = Vec::new();
    for case in CASES {
        let values: Vec<T> = inputs(case, len).into_iter().map(T::from_f64).collect();
        let data = TensorData::new(values.clone(), [rows, COLUMNS]);
        let dtype = data.dtype();
        let x = Tensor::<2>::from_data(data, (&shared.burn, dtype));
        let slope_host: Vec<T> = slope_values().into_iter().map(T::from_f64).collect();
        let alpha = Tensor::<1>::from_data(TensorData::new(slope_host, [COLUMNS]), (&shared.burn, dtype));
        let y = Tensor::<2>::empty([rows, COLUMNS], (&shared.burn, x.dtype()));
        let (x_view, y_view, alpha_view) =
            (BurnView::of(shared, &x)?, BurnView::of(shared, &y)?, BurnView::of(shared, &alpha)?);
        let slope = alpha_view.tensor.reshaped(&[COLUMNS])?;
        let record_ours = |encoder: &mut wgpu::CommandEncoder| -> BridgeResult<()> {
            match case.ours {
                Ours::Unary(op, attributes) => ctx.encode_activations(
                    encoder,
                    &[Activation::with_attributes(op, attributes)],
                    &x_view.tensor,
                    &y_view.tensor,
                )?,
                Ours::Prelu => {
                    ctx.encode_activations(encoder, &[Activation::prelu(&slope)], &x_view.tensor, &y_view.tensor)?
                }
                Ours::Axis(op) => ctx.encode_axis(encoder, op, &x_view.tensor, &y_view.tensor, -1, None)?,
                Ours::None => {}
            }
            Ok(())
        };
        let time_device = |record: &dyn Fn(&mut wgpu::CommandEncoder) -> BridgeResult<()>| -> BridgeResult<f64> {
            let start = Instant::now();
            let mut encoder =
                device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench-burn") });
            for _ in 0..iterations {
                record(&mut encoder)?;
            }
            ctx.queue().submit([encoder.finish()]);
            BurnView::wait(shared)?;
            Ok(start.elapsed().as_secs_f64())
        };
        let time_burn = || -> BridgeResult<f64> {
            let start = Instant::now();
            let mut last = None;
            for _ in 0..iterations {
                last = Some((case.burn)(x.clone(), &alpha));
            }
            if let Some(last) = last {
                let primitive = last.try_into_primitive::<burn_wgpu::CubeBackend>().map_err(burn_error)?;
                pollster::block_on(primitive.client.sync())?;
            }
            Ok(start.elapsed().as_secs_f64())
        };
        let record_copy = |encoder: &mut wgpu::CommandEncoder| -> BridgeResult<()> {
            copy.record(device, encoder, &x_view.tensor, &y_view.tensor);
            Ok(())
        };
        // Warm-up: every pipeline compiled, every pool filled.
        let has_ours = !matches!(case.ours, Ours::None);
        time_burn()?;
        time_device(&record_copy)?;
        if has_ours {
            time_device(&record_ours)?;
        }
        let (mut ours, mut burn, mut copies) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..repeats {
            if has_ours {
                ours.push(time_device(&record_ours)?);
            }
            burn.push(time_burn()?);
            copies.push(time_device(&record_copy)?);
        }
        // Accuracy on the same input tensor.
        let x_host = ArrayD::from_shape_vec(IxDyn(&[rows, COLUMNS]), values).map_err(layout)?;
        let want = expected(case, &x_host)?;
        let burn_out = host_values::<T>(&(case.burn)(x.clone(), &alpha))?;
        let ((burn_ulp, burn_beyond_2_ulp), ours_ulp) = match &want {
            Some(want) => {
                let want = want.as_slice().unwrap_or_default();
                let ours_ulp = if has_ours {
                    time_device(&record_ours)?;
                    Some(ulp_summary(&host_values::<T>(&y)?, want).0)
                } else {
                    None
                };
                (ulp_summary(&burn_out, want), ours_ulp)
            }
            None => (ulp_summary(&burn_out, &log_sigmoid_reference(&x_host)), None),
        };
        let copy_time = median(copies);
        let burn_time = median(burn);
        let ours_time = has_ours.then(|| median(ours));
        table.push(Row {
            name: case.name,
            ours_share_of_copy: ours_time.map(|t| copy_time / t),
            burn_share_of_copy: copy_time / burn_time,
            burn_over_ours: ours_time.map(|t| burn_time / t),
            ours_ulp,
            burn_ulp,
            burn_beyond_2_ulp,
        });
    }
    Ok(table)
}

/// `-log1p(e^-x)` in f64, rounded once: burn's log_sigmoid is measured against it (we have no
/// LogSigmoid).
fn log_sigmoid_reference<T: wgpu_activations::FloatElement>(x: &ArrayD<T>) -> Vec<T> {
    x.iter()
        .map(|v| {
            let v = v.to_f64();
            T::from_f64(if v >= 0.0 { -(-v).exp().ln_1p() } else { v - v.exp().ln_1p() })
        })
        .collect()
}

/// The table as Markdown.
pub fn markdown(precision: Precision, rows: &[Row]) -> String {
    let mut text = format!(
        "| {precision:?} | ours, share of copy | burn, share of copy | burn time / ours | ours, worst ULP | burn, worst ULP (beyond 2 ULP) |\n|---|---|---|---|---|---|\n"
    );
    for row in rows {
        let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        text.push_str(&format!(
            "| {} | {} | {:.2} | {} | {} | {} ({:.1}%) |\n",
            row.name,
            or_dash(row.ours_share_of_copy.map(|v| format!("{v:.2}"))),
            row.burn_share_of_copy,
            or_dash(row.burn_over_ours.map(|v| format!("{v:.2}"))),
            or_dash(row.ours_ulp.map(|v| v.to_string())),
            if row.burn_ulp == u64::MAX {
                "NaN where a number is due".into()
            } else {
                format!("{:.3e}", row.burn_ulp as f64)
            },
            100.0 * row.burn_beyond_2_ulp,
        ));
    }
    text
}

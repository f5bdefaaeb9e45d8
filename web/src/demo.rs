//! The image demo as a web page: the network of `cargo xtask demo` (the demo's own 3 x 3
//! sharpening convolution, then the library's per-channel PRelu, Elu and LeakyRelu as tone
//! curves and the three fused, all recorded into one encoder) on the page's WebGPU, per dtype;
//! the contact sheet, the curves, the timing table (GPU against the wasm CPU reference) and
//! the verification against the CPU reference. When done, `#summary` holds one line starting
//! with `OK` or `FAIL`.

use half::{bf16, f16};
use ndarray::Array1;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use wgpu::util::DeviceExt;
use wgpu_activations::{
    Context, ContextOptions, DType, FloatElement, elu_async, leaky_relu_async, ops, prelu_async, reference, ulp,
};

use crate::conv::{ELU_ALPHA, LEAKY_ALPHA, Run, StepResult};
use crate::page::{self, escape};

/// Runs per timing; the median is reported.
const TIMING_RUNS: usize = 5;

/// Runs the demo on a picture's RGBA pixels (the page decodes and scales it), filling the
/// page; `source` names the picture.
#[wasm_bindgen]
pub async fn run_demo(rgba: Vec<u8>, width: u32, height: u32, source: String) {
    page::set_text("summary", "running…");
    let summary = match demo(&rgba, width, height, &source).await {
        Ok(line) => line,
        Err(e) => format!("FAIL {e}"),
    };
    page::set_text("summary", &summary);
}

async fn demo(rgba: &[u8], width: u32, height: u32, source: &str) -> Result<String, String> {
    if width < 3 || height < 3 || rgba.len() != (width as usize) * (height as usize) * 4 {
        return Err(format!("{source}: {width}x{height} with {} bytes is not a picture of 3x3 or more", rgba.len()));
    }
    let ctx = page::context(ContextOptions::default()).await?;
    let adapter = page::adapter_name(&ctx).await;
    page::set_text("adapter", &format!("adapter: {adapter}; picture: {source}, {width} x {height}"));
    let plane = (width * height) as usize;
    let mut planar = vec![0.0f32; 3 * plane];
    for (i, pixel) in rgba.chunks_exact(4).enumerate() {
        for c in 0..3 {
            planar[c * plane + i] = f32::from(pixel[c]) / 127.5 - 1.0;
        }
    }
    let image = ctx.device().create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("web-demo.image"),
        contents: bytemuck::cast_slice(&planar),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let run = Run { ctx: &ctx, image: &image, width, height };
    let mut steps = Vec::new();
    let mut paths = Vec::new();
    for dtype in [DType::F32, DType::F16, DType::BF16] {
        page::set_text("summary", &format!("running {dtype}…"));
        page::yield_to_browser().await;
        paths.push(format!("{dtype}: {:?}", ctx.dtype_path(dtype)));
        steps.extend(match dtype {
            DType::F16 => run.steps::<f16>().await?,
            DType::BF16 => run.steps::<bf16>().await?,
            _ => run.steps::<f32>().await?,
        });
    }
    draw_sheet(rgba, width, height, &steps)?;
    let curves_ok = draw_curves(&ctx).await?;
    let table_ok = write_table(&steps, &paths);
    let checked = steps.iter().filter(|s| s.worst_ulp.is_some()).count();
    let worst = steps.iter().filter_map(|s| s.worst_ulp).max().unwrap_or(0);
    if table_ok && curves_ok {
        Ok(format!(
            "OK {checked} activation steps in f32, f16 and bf16 within their ULP bounds (worst {worst} ULP), curves on the reference; {source} {width}x{height} on {adapter}"
        ))
    } else {
        let what = if table_ok { "a curve is off the reference" } else { "a step is outside its ULP bound" };
        Ok(format!("FAIL {what}; {source} {width}x{height} on {adapter}"))
    }
}

impl Run<'_> {
    /// The convolution and the four activation steps, recorded into one encoder and
    /// submitted once; then each step timed alone and checked against the reference.
    async fn steps<T: FloatElement>(&self) -> Result<Vec<StepResult>, String> {
        let ctx = self.ctx;
        let fail = |e: wgpu_activations::Error| e.to_string();
        let network = self.network::<T>("web-demo").map_err(fail)?;
        self.submit(&network, "web-demo.network").map_err(fail)?;

        let x = ctx.download_async::<T>(&network.conv_out).await.map_err(fail)?;
        let gpu_conv = median_ms(ctx, |encoder| {
            self.encode_conv(&network, encoder);
            Ok(())
        })
        .await?;
        let mut steps = vec![StepResult::convolution(&x, gpu_conv)];
        for (chain, y) in network.chains.iter().zip(&network.outputs) {
            let gpu_values = ctx.download_async::<T>(y).await.map_err(fail)?;
            let gpu_ms =
                median_ms(ctx, |encoder| ctx.encode_activations(encoder, &chain.2, &network.conv_out, y).map_err(fail))
                    .await?;
            let started = page::now_ms();
            let expected = network.reference(&x, &chain.2).map_err(fail)?;
            let cpu_ms = page::now_ms() - started;
            let gpu_values = gpu_values.as_slice().ok_or("a download is not contiguous")?;
            steps.push(StepResult::chain(chain, gpu_values, &expected, (gpu_ms, cpu_ms), false));
        }
        Ok(steps)
    }
}

/// The median over [`TIMING_RUNS`] of work recorded by `record`, each submitted alone, from
/// the submit to the queue's report that it is done.
async fn median_ms(
    ctx: &Context,
    record: impl Fn(&mut wgpu::CommandEncoder) -> Result<(), String>,
) -> Result<f64, String> {
    let mut times = Vec::with_capacity(TIMING_RUNS);
    for _ in 0..TIMING_RUNS {
        let started = page::now_ms();
        let mut encoder =
            ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("web-demo.timed") });
        record(&mut encoder)?;
        ctx.queue().submit([encoder.finish()]);
        page::work_done(ctx.queue()).await;
        times.push(page::now_ms() - started);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn to_pixel(v: f32) -> u8 {
    ((v.clamp(-1.0, 1.0) + 1.0) * 127.5).round() as u8
}

/// A canvas showing `rgba` (width x height), in a figure with a caption.
fn figure(rgba: &[u8], width: u32, height: u32, title: &str, detail: &str) -> Result<web_sys::Element, String> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let js = |e: JsValue| page::js_error(&e);
    let figure = document.create_element("figure").map_err(js)?;
    let canvas: web_sys::HtmlCanvasElement =
        document.create_element("canvas").map_err(js)?.dyn_into().map_err(|_| "not a canvas")?;
    canvas.set_width(width);
    canvas.set_height(height);
    let context: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").map_err(js)?.ok_or("no 2D context")?.dyn_into().map_err(|_| "not a 2D context")?;
    let data = web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), width, height).map_err(js)?;
    context.put_image_data(&data, 0.0, 0.0).map_err(js)?;
    figure.append_child(&canvas).map_err(js)?;
    let caption = document.create_element("figcaption").map_err(js)?;
    caption.set_inner_html(&format!("<b>{}</b><br>{}", escape(title), escape(detail)));
    figure.append_child(&caption).map_err(js)?;
    Ok(figure)
}

/// The contact sheet: per dtype a row, the original then each step's picture.
fn draw_sheet(original: &[u8], width: u32, height: u32, steps: &[StepResult]) -> Result<(), String> {
    let sheet = page::element("sheet").ok_or("the page has no #sheet")?;
    sheet.set_inner_html("");
    let plane = (width * height) as usize;
    for (k, step) in steps.iter().enumerate() {
        if k % 5 == 0 {
            let row = figure(original, width, height, "original", &format!("row: {}", step.dtype))?;
            sheet.append_child(&row).map_err(|e| page::js_error(&e))?;
        }
        let mut rgba = vec![255u8; plane * 4];
        for i in 0..plane {
            for c in 0..3 {
                rgba[i * 4 + c] = to_pixel(step.values.get(c * plane + i).copied().unwrap_or(0.0));
            }
        }
        let tile = figure(&rgba, width, height, &step.title, &step.detail)?;
        sheet.append_child(&tile).map_err(|e| page::js_error(&e))?;
    }
    Ok(())
}

/// LeakyRelu, Elu (alpha 1 and 2) and PRelu over 4,096 points in [-4, 3] on the GPU, drawn
/// with the CPU reference's values as dots on top. True when every point is within bound.
async fn draw_curves(ctx: &Context) -> Result<bool, String> {
    let x = Array1::linspace(-4.0f32, 3.0, 4096);
    let slope = ndarray::arr1(&[0.25f32]);
    let fail = |e: wgpu_activations::Error| e.to_string();
    let curves: [(String, Array1<f32>, Array1<f32>, u64); 4] = [
        (
            format!("LeakyRelu alpha {LEAKY_ALPHA}"),
            leaky_relu_async(ctx, x.view(), LEAKY_ALPHA).await.map_err(fail)?,
            reference::leaky_relu(x.view(), LEAKY_ALPHA),
            0,
        ),
        (
            format!("Elu alpha {ELU_ALPHA}"),
            elu_async(ctx, x.view(), ELU_ALPHA).await.map_err(fail)?,
            reference::elu(x.view(), ELU_ALPHA),
            ops::ELU.max_ulp.f32,
        ),
        (
            "Elu alpha 2".into(),
            elu_async(ctx, x.view(), 2.0).await.map_err(fail)?,
            reference::elu(x.view(), 2.0),
            ops::ELU.max_ulp.f32,
        ),
        (
            "PRelu slope 0.25".into(),
            prelu_async(ctx, x.view(), slope.view()).await.map_err(fail)?,
            reference::prelu(x.view(), slope.view()).map_err(|e| e.to_string())?,
            0,
        ),
    ];
    let canvas: web_sys::HtmlCanvasElement =
        page::element("curves").ok_or("the page has no #curves")?.dyn_into().map_err(|_| "#curves is no canvas")?;
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(|e| page::js_error(&e))?
        .ok_or("no 2D context")?
        .dyn_into()
        .map_err(|_| "not a 2D context")?;
    let (w, h) = (f64::from(canvas.width()), f64::from(canvas.height()));
    let (x0, x1, y0, y1) = (-4.0, 3.0, -2.5, 3.0);
    let px = |v: f64| 40.0 + (v - x0) / (x1 - x0) * (w - 60.0);
    let py = |v: f64| h - 30.0 - (v - y0) / (y1 - y0) * (h - 50.0);
    context.set_fill_style_str("#fff");
    context.fill_rect(0.0, 0.0, w, h);
    context.set_stroke_style_str("#999");
    context.begin_path();
    context.move_to(px(x0), py(0.0));
    context.line_to(px(x1), py(0.0));
    context.move_to(px(0.0), py(y0));
    context.line_to(px(0.0), py(y1));
    context.stroke();
    context.set_font("13px sans-serif");
    let colours = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"];
    let mut all_ok = true;
    for (k, ((name, gpu, want, bound), colour)) in curves.iter().zip(colours).enumerate() {
        all_ok &= gpu.iter().zip(want).all(|(&g, &e)| ulp::within_ulp(g, e, *bound));
        context.set_stroke_style_str(colour);
        context.set_line_width(2.0);
        context.begin_path();
        for (i, (&xv, &yv)) in x.iter().zip(gpu).enumerate() {
            let (cx, cy) = (px(f64::from(xv)), py(f64::from(yv)));
            if i == 0 { context.move_to(cx, cy) } else { context.line_to(cx, cy) }
        }
        context.stroke();
        context.set_fill_style_str("#000");
        for (&xv, &yv) in x.iter().zip(want).step_by(256) {
            context.fill_rect(px(f64::from(xv)) - 1.5, py(f64::from(yv)) - 1.5, 3.0, 3.0);
        }
        context.set_fill_style_str(colour);
        let _ = context.fill_text(&format!("{name} (GPU line, reference dots)"), 50.0, 20.0 + 18.0 * k as f64);
    }
    Ok(all_ok)
}

/// The timing and verification table; false when a step is outside its bound.
fn write_table(steps: &[StepResult], paths: &[String]) -> bool {
    let mut ok = true;
    let mut html = String::from(
        "<table><tr><th>dtype</th><th>step</th><th>GPU ms</th><th>wasm CPU reference ms</th><th>max ULP vs reference</th><th>bound</th><th>within</th></tr>",
    );
    for step in steps {
        let (worst, bound, within) = match step.worst_ulp {
            Some(w) => {
                ok &= w <= step.bound;
                (w.to_string(), step.bound.to_string(), if w <= step.bound { "yes" } else { "NO" })
            }
            None => ("-".into(), "-".into(), "-"),
        };
        let cpu = step.cpu_ms.map_or("-".into(), |ms| format!("{ms:.2}"));
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{:.2}</td><td>{cpu}</td><td>{worst}</td><td>{bound}</td><td>{within}</td></tr>",
            step.dtype,
            escape(&step.title),
            step.gpu_ms
        ));
    }
    html.push_str("</table><p>GPU ms: the step alone, from submit to the queue's report that it is done, median of ");
    html.push_str(&format!(
        "{TIMING_RUNS}. CPU: the reference compiled to WebAssembly, once. Paths: {}.</p>",
        escape(&paths.join("; "))
    ));
    page::set_html("table", &html);
    ok
}

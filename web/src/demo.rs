//! The image demo as a web page: the network of `cargo xtask demo` (the demo's own 3 x 3
//! sharpening convolution, then the library's per-channel PRelu, Elu and LeakyRelu as tone
//! curves and the three fused, all recorded into one encoder) on the page's WebGPU, per dtype;
//! the contact sheet, every operator's curves with axes, the timing table (GPU against the wasm
//! CPU reference) and
//! the verification against the CPU reference. When done, `#summary` holds one line starting
//! with `OK` or `FAIL`.

use half::{bf16, f16};
use ndarray::Array1;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use wgpu::util::DeviceExt;
use wgpu_activations::{
    Activation, Context, ContextOptions, DType, FloatElement, activations_async, ops, prelu_async, reference, ulp,
};

use crate::conv::{Run, StepResult};
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
    // The page's own device, adopted as an application would hand over the one it draws with.
    let ctx = page::adopted_context(ContextOptions::default()).await?;
    let adapter = page::adapter_name(&ctx).await;
    let subnormals = ctx.info().subnormals;
    page::set_text(
        "adapter",
        &format!("adapter: {adapter}, subnormals {subnormals}; picture: {source}, {width} x {height}"),
    );
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

/// One panel of the curves canvas: a rectangle, its ranges and its title.
struct Panel<'a> {
    context: &'a web_sys::CanvasRenderingContext2d,
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: (f64, f64),
    y: (f64, f64),
}

impl Panel<'_> {
    const MARGIN_LEFT: f64 = 46.0;
    const MARGIN_BOTTOM: f64 = 30.0;
    const MARGIN_TOP: f64 = 20.0;

    fn px(&self, v: f64) -> f64 {
        self.left + Self::MARGIN_LEFT + (v - self.x.0) / (self.x.1 - self.x.0) * (self.width - Self::MARGIN_LEFT - 8.0)
    }

    fn py(&self, v: f64) -> f64 {
        let plot = self.height - Self::MARGIN_TOP - Self::MARGIN_BOTTOM;
        self.top + Self::MARGIN_TOP + plot - (v - self.y.0) / (self.y.1 - self.y.0) * plot
    }

    /// The frame, five ticks a side with their labels (`label` writes a y value), the axis
    /// names and the title.
    fn axes(&self, title: &str, y_name: &str, label: impl Fn(f64) -> String) {
        let c = self.context;
        c.set_stroke_style_str("#444");
        c.set_line_width(1.0);
        let (l, r, t, b) = (self.px(self.x.0), self.px(self.x.1), self.py(self.y.1), self.py(self.y.0));
        c.stroke_rect(l, t, r - l, b - t);
        c.set_fill_style_str("#222");
        c.set_font("10px sans-serif");
        for k in 0..=4 {
            let f = f64::from(k) / 4.0;
            let (xv, yv) = (self.x.0 + f * (self.x.1 - self.x.0), self.y.0 + f * (self.y.1 - self.y.0));
            let (cx, cy) = (self.px(xv), self.py(yv));
            c.begin_path();
            c.move_to(cx, b);
            c.line_to(cx, b + 4.0);
            c.move_to(l - 4.0, cy);
            c.line_to(l, cy);
            c.stroke();
            let _ = c.fill_text(&format!("{xv:.0}"), cx - 8.0, b + 14.0);
            let _ = c.fill_text(&label(yv), self.left + 2.0, cy + 3.0);
        }
        let _ = c.fill_text("x", (l + r) / 2.0, b + 26.0);
        let _ = c.fill_text(y_name, self.left + 2.0, t - 4.0);
        c.set_font("12px sans-serif");
        let _ = c.fill_text(title, l + 24.0, self.top + 13.0);
    }

    /// The GPU's values as a line, the reference's as dots on top.
    fn curve(&self, points: &[(f64, f64)], reference: &[(f64, f64)]) {
        let c = self.context;
        c.set_stroke_style_str("#1f77b4");
        c.set_line_width(2.0);
        c.begin_path();
        for (i, &(x, y)) in points.iter().enumerate() {
            let (cx, cy) = (self.px(x), self.py(y.clamp(self.y.0, self.y.1)));
            if i == 0 { c.move_to(cx, cy) } else { c.line_to(cx, cy) }
        }
        c.stroke();
        c.set_fill_style_str("#000");
        for &(x, y) in reference.iter().step_by(32) {
            c.fill_rect(self.px(x) - 1.0, self.py(y.clamp(self.y.0, self.y.1)) - 1.0, 2.0, 2.0);
        }
    }
}

/// Every operator of the table at its defaults (PRelu with slope 0.25) in f32 on the GPU, drawn
/// with the CPU reference's values as dots on top, each as two panels with axes: near 0 on [-6,
/// 6], and log10 |y| of the negative tail on [-120, 0), where the result keeps its digits down to
/// the subnormals. True when every point of every operator is within its bound.
async fn draw_curves(ctx: &Context) -> Result<bool, String> {
    let near = Array1::linspace(-6.0f32, 6.0, 1024);
    let tail = Array1::linspace(-120.0f32, -0.01, 1024);
    let slope = ndarray::arr1(&[0.25f32]);
    let fail = |e: wgpu_activations::Error| e.to_string();
    let canvas: web_sys::HtmlCanvasElement =
        page::element("curves").ok_or("the page has no #curves")?.dyn_into().map_err(|_| "#curves is no canvas")?;
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(|e| page::js_error(&e))?
        .ok_or("no 2D context")?
        .dyn_into()
        .map_err(|_| "not a 2D context")?;
    const COLUMNS: usize = 4;
    let count = ops::UNARY_OPS.len() + 1;
    let (panel_w, panel_h) = (f64::from(canvas.width()) / (2 * COLUMNS) as f64, 190.0);
    canvas.set_height((panel_h * count.div_ceil(COLUMNS) as f64) as u32);
    context.set_fill_style_str("#fff");
    context.fill_rect(0.0, 0.0, f64::from(canvas.width()), f64::from(canvas.height()));
    let mut all_ok = true;
    for k in 0..count {
        let op = ops::UNARY_OPS.get(k).copied();
        let (name, bound) = op.map_or(("PRelu slope 0.25", 0), |op| (op.onnx_name, op.max_ulp.f32));
        let mut evaluate = async |x: &Array1<f32>| -> Result<Vec<(f64, f64, f64)>, String> {
            let (gpu, want) = match op {
                Some(op) => {
                    let attributes = op.default_attributes();
                    let step = Activation::with_attributes(op, &attributes[..op.attributes.len()]);
                    (
                        activations_async(ctx, &[step], x.view()).await.map_err(fail)?,
                        reference::unary(op, &attributes, x.view()),
                    )
                }
                None => (
                    prelu_async(ctx, x.view(), slope.view()).await.map_err(fail)?,
                    reference::prelu(x.view(), slope.view()).map_err(|e| e.to_string())?,
                ),
            };
            all_ok &= gpu.iter().zip(&want).all(|(&g, &e)| ulp::within_ulp(g, e, bound));
            Ok(x.iter()
                .zip(gpu.iter().zip(&want))
                .map(|(&x, (&g, &e))| (f64::from(x), f64::from(g), f64::from(e)))
                .collect())
        };
        let near_points = evaluate(&near).await?;
        let tail_points = evaluate(&tail).await?;
        let (left, top) = (panel_w * (2 * (k % COLUMNS)) as f64, panel_h * (k / COLUMNS) as f64);
        let (lo, hi) = near_points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.2), hi.max(p.2)));
        let pad = ((hi - lo) * 0.08).max(0.05);
        let panel = Panel {
            context: &context,
            left,
            top,
            width: panel_w,
            height: panel_h,
            x: (-6.0, 6.0),
            y: (lo - pad, hi + pad),
        };
        panel.axes(name, "y", |v| format!("{v:.1}"));
        let pick = |points: &[(f64, f64, f64)], f: fn(&(f64, f64, f64)) -> (f64, f64)| {
            points.iter().map(f).collect::<Vec<_>>()
        };
        panel.curve(&pick(&near_points, |p| (p.0, p.1)), &pick(&near_points, |p| (p.0, p.2)));
        let logs = |points: &[(f64, f64, f64)], gpu: bool| -> Vec<(f64, f64)> {
            points
                .iter()
                .map(|&(x, g, e)| (x, if gpu { g } else { e }.abs()))
                .filter(|&(_, m)| m > 0.0 && m.is_finite())
                .map(|(x, m)| (x, m.log10()))
                .collect()
        };
        let (gpu_tail, want_tail) = (logs(&tail_points, true), logs(&tail_points, false));
        let (lo, hi) = want_tail.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
        let y = if want_tail.is_empty() { (-1.0, 1.0) } else { (lo - 1.0, hi + 1.0) };
        let panel = Panel {
            context: &context,
            left: left + panel_w,
            top,
            width: panel_w,
            height: panel_h,
            x: (-120.0, 0.0),
            y,
        };
        let title =
            if want_tail.is_empty() { format!("{name}: y = 0 for x < 0") } else { format!("{name}: |y|, x < 0") };
        panel.axes(&title, "|y|", |v| if want_tail.is_empty() { String::new() } else { format!("1e{v:.0}") });
        panel.curve(&gpu_tail, &want_tail);
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

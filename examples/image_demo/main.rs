//! A small filter network on a picture, on the GPU: the demo's own 3 x 3 sharpening
//! convolution (its own WGSL, dispatched by the demo), then, recorded into the same command
//! encoder, the library's per-channel PRelu, Elu and LeakyRelu as tone curves, and the three
//! fused as one kernel; in f32, f16 and bf16. Every result is checked against the CPU reference.
//!
//! ```text
//! cargo xtask demo                                   # the built-in picture, to target/demo/
//! cargo run --release --example image_demo -- [IMAGE] [--out DIR] [--dtype f32|f16|bf16|all]
//! ```
//!
//! Pixels map to [-1, 1] (0 -> -1, 255 -> 1) as a `[1, 3, H, W]` tensor, and back the same
//! way, so an activation's effect on the negative half is its effect on the darker half of each
//! channel. Written: `contact_sheet.png`, `activations.png`, `operators.png` (every operator of
//! the table, near 0 and in its negative tail), `difference.png` and each result as its own PNG.
#![forbid(unsafe_code)]

mod conv;
mod pictures;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use half::{bf16, f16};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ndarray::{ArrayD, IxDyn};
use wgpu::util::DeviceExt;
use wgpu_activations::ops::UNARY_OPS;
use wgpu_activations::{Activation, Context, ContextOptions, DType, FloatElement, activations, reference};

use crate::conv::{ELU_ALPHA, LEAKY_ALPHA, Run, StepResult};
use crate::pictures::{Curve, OperatorCurves, Tile};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Pictures larger than this on either side are scaled down to fit first: the software drivers
/// are slow, and the 3x3 filter binds the whole picture in one binding (1600 x 1600 x 3 f32 is
/// 31 MB, under the 128 MiB every adapter allows).
const MAX_SIDE: u32 = 1600;
/// What decoding a picture may allocate, whatever size its header claims.
const MAX_DECODE_BYTES: u64 = 256 << 20;

struct Args {
    image: Option<PathBuf>,
    out: PathBuf,
    dtypes: Vec<DType>,
}

const USAGE: &str = "usage: image_demo [IMAGE] [--out DIR] [--dtype f32|f16|bf16|all]";

fn parse_args() -> std::result::Result<Args, String> {
    let mut args =
        Args { image: None, out: PathBuf::from("target/demo"), dtypes: vec![DType::F32, DType::F16, DType::BF16] };
    let mut it = std::env::args_os().skip(1);
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--help" | "-h") => return Err(USAGE.into()),
            Some("--out") => args.out = it.next().map(PathBuf::from).ok_or("--out needs a folder")?,
            Some("--dtype") => {
                let value = it.next().ok_or("--dtype needs f32, f16, bf16 or all")?;
                args.dtypes = match value.to_str() {
                    Some("all") => vec![DType::F32, DType::F16, DType::BF16],
                    Some("f32") => vec![DType::F32],
                    Some("f16") => vec![DType::F16],
                    Some("bf16") => vec![DType::BF16],
                    _ => return Err(format!("--dtype {value:?}: expected f32, f16, bf16 or all")),
                };
            }
            Some(flag) if flag.starts_with("--") => return Err(format!("unknown option {flag}; {USAGE}")),
            _ if args.image.is_none() => args.image = Some(PathBuf::from(arg)),
            _ => return Err(format!("one image at most; {USAGE}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    // What the user gave (arguments, the picture) is exit status 2; a failed run 1.
    let input = parse_args().and_then(|args| Ok((load(args.image.as_deref()).map_err(|e| e.to_string())?, args)));
    let ((picture, source), args) = match input {
        Ok(input) => input,
        Err(message) => {
            eprintln!("image_demo: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&args, picture, &source) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("image_demo: error: a GPU result is further from the CPU reference than its bound");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("image_demo: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The picture to process: the argument's PNG or JPEG, or the built-in one.
fn load(path: Option<&Path>) -> Result<(image::RgbImage, String)> {
    let Some(path) = path else { return Ok((pictures::built_in(1280, 800), "built-in picture".into())) };
    let mut reader = image::ImageReader::open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .with_guessed_format()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let picture = reader
        .decode()
        .map_err(|e| match e {
            image::ImageError::Limits(e) => format!("{}: too large to decode here ({e})", path.display()),
            e => format!("{}: not a PNG or JPEG image ({e})", path.display()),
        })?
        .to_rgb8();
    let (width, height) = picture.dimensions();
    let picture = if width.max(height) > MAX_SIDE {
        let scale = |side: u32| ((u64::from(side) * u64::from(MAX_SIDE) / u64::from(width.max(height))) as u32).max(1);
        image::imageops::resize(&picture, scale(width), scale(height), image::imageops::FilterType::Triangle)
    } else {
        picture
    };
    if picture.width() < 3 || picture.height() < 3 {
        return Err(format!(
            "{}: {}x{} is too small for a 3x3 filter",
            path.display(),
            picture.width(),
            picture.height()
        )
        .into());
    }
    Ok((picture, path.display().to_string()))
}

fn run(args: &Args, picture: image::RgbImage, source: &str) -> Result<bool> {
    pictures::register_font()?;
    let (width, height) = picture.dimensions();
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let ctx = Context::new(ContextOptions::from_env())?;
    println!("adapter: {} ({:?})", ctx.info().adapter.name, ctx.info().adapter.backend);
    println!("picture: {source}, {width} x {height}");

    let plane = (width * height) as usize;
    let mut planar = vec![0.0f32; 3 * plane];
    for (i, pixel) in picture.pixels().enumerate() {
        for c in 0..3 {
            planar[c * plane + i] = pictures::to_signed(pixel[c]);
        }
    }
    let image_buffer = ctx.device().create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("demo.image"),
        contents: bytemuck::cast_slice(&planar),
        usage: wgpu::BufferUsages::STORAGE,
    });

    let progress = Progress::new(args.dtypes.len() as u64 + 1);
    let mut results = Vec::new();
    for &dtype in &args.dtypes {
        progress.message(format!("{dtype}: convolution and activations"));
        let run = Run { ctx: &ctx, image: &image_buffer, width, height };
        results.extend(match dtype {
            DType::F16 => run.steps::<f16>()?,
            DType::BF16 => run.steps::<bf16>()?,
            _ => run.steps::<f32>()?,
        });
        progress.advance();
    }
    progress.message("pictures".into());
    let ok = print_table(&results);
    write_pictures(&ctx, args, &picture, &results)?;
    progress.advance();
    progress.finish();
    Ok(ok)
}

/// A progress bar that shows itself only once the run has taken a second.
struct Progress {
    bar: ProgressBar,
    started: Instant,
}

impl Progress {
    fn new(steps: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        Progress { bar, started: Instant::now() }
    }

    fn message(&self, message: String) {
        if self.started.elapsed() > Duration::from_secs(1) && self.bar.is_hidden() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_message(message);
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Run<'_> {
    /// The convolution and the four activation steps for `T`, all recorded into one encoder
    /// and submitted once; then each step timed on its own and checked against the reference.
    fn steps<T: FloatElement>(&self) -> Result<Vec<StepResult>> {
        let ctx = self.ctx;
        let network = self.network::<T>("demo")?;
        self.submit(&network, "demo.network")?;

        // Results, and each step's time when submitted on its own.
        let conv_values: Vec<T> = ctx.download::<T>(&network.conv_out)?.into_iter().collect();
        let gpu_conv = median_time(ctx, |encoder| {
            self.encode_conv(&network, encoder);
            Ok(())
        })?;
        let x = ArrayD::from_shape_vec(IxDyn(&self.shape()), conv_values)?;
        let mut results = vec![StepResult::convolution(&x, ms(gpu_conv))];
        for (chain, y) in network.chains.iter().zip(&network.outputs) {
            let gpu_values: Vec<T> = ctx.download::<T>(y)?.into_iter().collect();
            let gpu = median_time(ctx, |encoder| {
                ctx.encode_activations(encoder, &chain.2, &network.conv_out, y).map_err(Into::into)
            })?;
            let started = Instant::now();
            let expected = network.reference(&x, &chain.2)?;
            let cpu = started.elapsed();
            results.push(StepResult::chain(chain, &gpu_values, &expected, (ms(gpu), ms(cpu)), true));
        }
        Ok(results)
    }
}

/// Milliseconds, as the table prints them.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median of five runs of work recorded by `record`, each submitted alone and waited for.
fn median_time(ctx: &Context, record: impl Fn(&mut wgpu::CommandEncoder) -> Result<()>) -> Result<Duration> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let mut encoder =
            ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("demo.timed") });
        record(&mut encoder)?;
        ctx.queue().submit([encoder.finish()]);
        ctx.device().poll(wgpu::PollType::wait_indefinitely())?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// Prints the table; false if a step is outside its bound.
fn print_table(results: &[StepResult]) -> bool {
    println!();
    println!("| dtype | step | GPU ms | CPU reference ms | max ULP vs reference | bound | within |");
    println!("|---|---|---|---|---|---|---|");
    let mut ok = true;
    for r in results {
        let (worst, within) = match r.worst_ulp {
            Some(w) => {
                ok &= w <= r.bound;
                (w.to_string(), if w <= r.bound { "yes" } else { "NO" })
            }
            None => ("-".into(), "-"),
        };
        let bound = if r.worst_ulp.is_some() { r.bound.to_string() } else { "-".into() };
        let cpu = r.cpu_ms.map_or("-".into(), |ms| format!("{ms:.2}"));
        println!("| {} | {} | {:.2} | {cpu} | {worst} | {bound} | {within} |", r.dtype, r.title, r.gpu_ms);
    }
    println!("\nGPU ms: the step alone, submit to completion, median of 5. CPU: the reference, once.");
    ok
}

fn write_pictures(ctx: &Context, args: &Args, picture: &image::RgbImage, results: &[StepResult]) -> Result<()> {
    let (width, height) = picture.dimensions();
    let save = |image: &image::RgbImage, name: &str| -> Result<()> {
        let path = args.out.join(name);
        image.save(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    };
    save(picture, "original.png")?;
    let mut tiles = Vec::new();
    for (k, r) in results.iter().enumerate() {
        if k % 5 == 0 {
            tiles.push(Tile { image: picture.clone(), title: "original".into(), detail: format!("row: {}", r.dtype) });
        }
        let image = pictures::planar_to_image(&r.values, width, height);
        let slug: String =
            r.title.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
        save(&image, &format!("{}-{}-{slug}.png", r.dtype, k % 5))?;
        tiles.push(Tile { image, title: r.title.clone(), detail: r.detail.clone() });
    }
    pictures::contact_sheet(&tiles, 6, 300, &args.out.join("contact_sheet.png"))?;
    // The heat map: the step with the most inexact elements (an Elu step; exact steps are all
    // zero).
    let inexact = |r: &&StepResult| r.ulps.iter().filter(|&&u| u > 0).count();
    if let Some(worst) = results.iter().filter(|r| r.worst_ulp.is_some()).max_by_key(inexact) {
        let title = format!("{} ({}) against the CPU reference", worst.title, worst.dtype);
        pictures::ulp_heat_map(&worst.ulps, width, height, &title, &args.out.join("difference.png"))?;
    }
    pictures::activation_plot(&curves(ctx)?, &args.out.join("activations.png"))?;
    pictures::operator_gallery(&every_operator(ctx)?, &args.out.join("operators.png"))?;
    println!("\nwrote {} PNGs to {}", results.len() + 5, args.out.display());
    Ok(())
}

/// Every operator of the table at its defaults (PRelu with slope 0.25), in f32 on the GPU and
/// on the CPU reference: 2,048 points in [-6, 6], and |y| at 4,096 points in [-120, 0) where y
/// is not 0 (the tail where a rounded gate times x loses its digits).
fn every_operator(ctx: &Context) -> Result<Vec<OperatorCurves>> {
    let near = ndarray::Array1::linspace(-6.0f32, 6.0, 2048);
    let tail = ndarray::Array1::linspace(-120.0f32, -0.01, 4096);
    let slope = ndarray::arr1(&[0.25f32]);
    let steps = UNARY_OPS
        .iter()
        .map(|&op| (op.onnx_name.to_string(), Some(op)))
        .chain([("PRelu slope 0.25".to_string(), None)]);
    let mut operators = Vec::new();
    for (name, op) in steps {
        let run = |x: &ndarray::Array1<f32>| -> Result<(Vec<f32>, Vec<f32>)> {
            let (gpu, reference) = match op {
                Some(op) => {
                    let attributes = op.default_attributes();
                    let step = Activation::with_attributes(op, &attributes[..op.attributes.len()]);
                    (activations(ctx, &[step], x.view())?, reference::unary(op, &attributes, x.view()))
                }
                None => {
                    (wgpu_activations::prelu(ctx, x.view(), slope.view())?, reference::prelu(x.view(), slope.view())?)
                }
            };
            Ok((gpu.to_vec(), reference.to_vec()))
        };
        let (gpu, reference) = run(&near)?;
        let pairs = |y: &[f32]| near.iter().copied().zip(y.iter().copied()).collect::<Vec<_>>();
        let near_zero = Curve { name: name.clone(), gpu: pairs(&gpu), reference: pairs(&reference) };
        let (gpu, reference) = run(&tail)?;
        let magnitudes = |y: &[f32]| {
            tail.iter().copied().zip(y.iter().map(|v| v.abs())).filter(|&(_, m)| m > 0.0 && m.is_finite()).collect()
        };
        let tail = Curve { name: name.clone(), gpu: magnitudes(&gpu), reference: magnitudes(&reference) };
        operators.push(OperatorCurves { name, near_zero, tail });
    }
    Ok(operators)
}

/// LeakyRelu, Elu and PRelu over 4,096 points in [-4, 3], on the GPU and on the CPU.
fn curves(ctx: &Context) -> Result<Vec<Curve>> {
    let x = ndarray::Array1::linspace(-4.0f32, 3.0, 4096);
    let slope = ndarray::arr1(&[0.25f32]);
    let pairs = |y: ndarray::Array1<f32>| x.iter().copied().zip(y).collect::<Vec<_>>();
    Ok(vec![
        Curve {
            name: format!("LeakyRelu alpha {LEAKY_ALPHA}"),
            gpu: pairs(wgpu_activations::leaky_relu(ctx, x.view(), LEAKY_ALPHA)?),
            reference: pairs(reference::leaky_relu(x.view(), LEAKY_ALPHA)),
        },
        Curve {
            name: format!("Elu alpha {ELU_ALPHA}"),
            gpu: pairs(wgpu_activations::elu(ctx, x.view(), ELU_ALPHA)?),
            reference: pairs(reference::elu(x.view(), ELU_ALPHA)),
        },
        Curve {
            name: "Elu alpha 2".into(),
            gpu: pairs(wgpu_activations::elu(ctx, x.view(), 2.0)?),
            reference: pairs(reference::elu(x.view(), 2.0)),
        },
        Curve {
            name: "PRelu slope 0.25".into(),
            gpu: pairs(wgpu_activations::prelu(ctx, x.view(), slope.view())?),
            reference: pairs(reference::prelu(x.view(), slope.view())?),
        },
    ])
}

//! Runs LeakyRelu, Elu and PRelu on a built-in test image on the GPU, checks each result
//! against the CPU reference, and writes the images as PNGs.
//!
//! ```text
//! cargo run --release --example image_demo [-- OUTPUT_DIR]    # default: out/demo
//! ```
//!
//! The 512x512 RGB test image (smooth gradients, concentric rings and a checkerboard) becomes
//! a tensor X of shape [3, H, W] with every channel value v in [0, 255] mapped to
//! x = v / 255 * 4 - 2, in [-2, 2], so about half the values are negative. After each operator
//! the inverse of that map (clamped to [0, 255]) turns the result back into pixels: values the
//! operator leaves alone keep their colour, negative ones are pulled towards mid-grey.
//!
//! Written: `input.png`, `leaky_relu.png` (alpha 0.1), `elu.png` (alpha 1.0) and `prelu.png`
//! (slope of shape [3, 1, 1]: 0.0 for red, 0.25 for green, 1.0 for blue, which is unchanged).
#![forbid(unsafe_code)]

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use image::{Rgb, RgbImage};
use ndarray::{Array3, array};
use wgpu_activations::{Context, ContextOptions, reference, ulp};

const WIDTH: usize = 512;
const HEIGHT: usize = 512;

/// Elu's GPU result may differ from the reference by this many ULPs; the others must be exact.
const ELU_MAX_ULP: u64 = 2;

fn main() -> ExitCode {
    let out_dir = std::env::args_os().nth(1).map_or_else(|| PathBuf::from("out/demo"), PathBuf::from);
    match run(&out_dir) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("image_demo: error: a GPU result differs from the CPU reference by more than allowed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("image_demo: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the demo; `Ok(false)` when a GPU result is outside its tolerance.
fn run(out_dir: &Path) -> Result<bool, Box<dyn Error>> {
    let ctx = Context::new(ContextOptions::default())?;
    println!("adapter: {} ({:?})", ctx.info().adapter.name, ctx.info().adapter.backend);
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    let x = test_image().mapv(to_signed);
    let slope = array![[[0.0f32]], [[0.25]], [[1.0]]];

    let leaky = wgpu_activations::leaky_relu(&ctx, x.view(), 0.1)?;
    let elu = wgpu_activations::elu(&ctx, x.view(), 1.0)?;
    let prelu = wgpu_activations::prelu(&ctx, x.view(), slope.view())?;

    let mut ok = true;
    ok &= report("LeakyRelu (alpha 0.1)", &leaky, &reference::leaky_relu(x.view(), 0.1), 0);
    ok &= report("Elu (alpha 1.0)", &elu, &reference::elu(x.view(), 1.0), ELU_MAX_ULP);
    ok &= report("PRelu (slope [0, 0.25, 1])", &prelu, &reference::prelu(x.view(), slope.view())?, 0);

    for (name, tensor) in [("input", &x), ("leaky_relu", &leaky), ("elu", &elu), ("prelu", &prelu)] {
        let path = out_dir.join(format!("{name}.png"));
        to_image(tensor).save(&path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(ok)
}

/// Prints the largest ULP distance between the GPU result and the reference; true if within
/// `max_ulp`.
fn report(what: &str, gpu: &Array3<f32>, cpu: &Array3<f32>, max_ulp: u64) -> bool {
    let (Some(gpu_values), Some(cpu_values)) = (gpu.as_slice(), cpu.as_slice()) else {
        println!("{what}: result not in standard layout");
        return false;
    };
    let (worst, at) = ulp::max_ulp_error(gpu_values, cpu_values).unwrap_or((0, 0));
    let ok = gpu_values.iter().zip(cpu_values).all(|(&g, &c)| ulp::within_ulp(g, c, max_ulp));
    let place = if worst > 0 { format!(" at element {at}") } else { String::new() };
    println!(
        "{what}: max {worst} ULP from the CPU reference{place} (allowed {max_ulp}): {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

/// The test image as [3, H, W] channel values in [0, 255]: red rises left to right, green top
/// to bottom, blue is concentric rings, and a 64-pixel checkerboard lightens or darkens all
/// three.
fn test_image() -> Array3<f32> {
    let (cx, cy) = (WIDTH as f32 / 2.0, HEIGHT as f32 / 2.0);
    Array3::from_shape_fn((3, HEIGHT, WIDTH), |(c, y, x)| {
        let (fx, fy) = (x as f32 / (WIDTH - 1) as f32, y as f32 / (HEIGHT - 1) as f32);
        let radius = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
        let base = match c {
            0 => 255.0 * fx,
            1 => 255.0 * fy,
            _ => 127.5 + 127.5 * (radius / 12.0).cos(),
        };
        let checker = if (x / 64 + y / 64) % 2 == 0 { 40.0 } else { -40.0 };
        (base + checker).clamp(0.0, 255.0).round()
    })
}

/// A channel value in [0, 255] to a tensor value in [-2, 2].
fn to_signed(v: f32) -> f32 {
    v / 255.0 * 4.0 - 2.0
}

/// The inverse of [`to_signed`], clamped and rounded to a channel value.
fn to_channel(x: f32) -> u8 {
    ((x + 2.0) / 4.0 * 255.0).clamp(0.0, 255.0).round() as u8
}

/// A [3, H, W] tensor to an RGB image through [`to_channel`].
fn to_image(tensor: &Array3<f32>) -> RgbImage {
    RgbImage::from_fn(WIDTH as u32, HEIGHT as u32, |x, y| {
        let (x, y) = (x as usize, y as usize);
        Rgb([0, 1, 2].map(|c| to_channel(tensor[[c, y, x]])))
    })
}

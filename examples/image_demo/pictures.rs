//! Images in and out: the built-in test picture, pixels to tensor values and back, the
//! labelled contact sheet, the activation curves and the ULP heat map.

use std::error::Error;
use std::path::Path;

use image::{Rgb, RgbImage, imageops};
use plotters::prelude::*;
use plotters::style::FontStyle;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Registers the bundled DejaVu Sans as plotters' "sans-serif": no system font is needed.
pub(crate) fn register_font() -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the bundled DejaVu Sans font did not load")?;
    Ok(())
}

/// The built-in picture, 1280 x 800: a sky gradient, a sun, hills with hard edges, a dark
/// forest band, a colour wheel and fine stripes: gradients, edges, dark and bright regions.
pub(crate) fn built_in(width: u32, height: u32) -> RgbImage {
    let (w, h) = (width as f32, height as f32);
    RgbImage::from_fn(width, height, |px, py| {
        let (x, y) = (px as f32 / w, py as f32 / h);
        // Sky: deep blue at the top to warm orange at the horizon.
        let mut c = [0.08 + 0.9 * y, 0.15 + 0.5 * y, 0.55 - 0.25 * y];
        // Sun with a soft halo.
        let d = ((x - 0.72).powi(2) + ((y - 0.3) * h / w).powi(2)).sqrt();
        if d < 0.07 {
            c = [1.0, 0.95, 0.75];
        } else if d < 0.2 {
            let t = (0.2 - d) / 0.13;
            c = [c[0] + 0.6 * t, c[1] + 0.45 * t, c[2] + 0.2 * t];
        }
        // Hills: a sine skyline, green and shaded by height.
        let ridge = 0.62 + 0.08 * (x * 9.0).sin() + 0.04 * (x * 23.0).cos();
        if y > ridge {
            let depth = (y - ridge) * 3.0;
            c = [0.12 + 0.1 * depth, 0.45 - 0.3 * depth, 0.12];
        }
        // A dark forest band along the bottom, with bright birch stripes.
        if y > 0.86 {
            c = [0.03, 0.06, 0.03];
            if ((x * 140.0) as u32).is_multiple_of(9) {
                c = [0.92, 0.9, 0.85];
            }
        }
        // A colour wheel at the left.
        let (dx, dy) = (x - 0.2, (y - 0.35) * h / w);
        let r = (dx * dx + dy * dy).sqrt();
        if r < 0.13 {
            let angle = dy.atan2(dx) / std::f32::consts::TAU + 0.5;
            let light = 1.0 - r / 0.13 * 0.5;
            c = hue(angle).map(|v| v * light);
        }
        Rgb(c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
    })
}

fn hue(h: f32) -> [f32; 3] {
    let f = |n: f32| {
        let k = (n + h * 6.0) % 6.0;
        1.0 - (k.min(4.0 - k).clamp(0.0, 1.0))
    };
    [f(5.0), f(3.0), f(1.0)]
}

/// A channel value in [0, 255] as a tensor value in [-1, 1].
pub(crate) fn to_signed(v: u8) -> f32 {
    f32::from(v) / 127.5 - 1.0
}

/// A tensor value back to a channel value, clamped.
pub(crate) fn to_pixel(v: f32) -> u8 {
    if v.is_nan() { 0 } else { ((v + 1.0) * 127.5).round().clamp(0.0, 255.0) as u8 }
}

/// Planar `[C, H, W]` values (C = 3) as an image.
pub(crate) fn planar_to_image(values: &[f32], width: u32, height: u32) -> RgbImage {
    let plane = (width * height) as usize;
    RgbImage::from_fn(width, height, |x, y| {
        let i = (y * width + x) as usize;
        Rgb([to_pixel(values[i]), to_pixel(values[plane + i]), to_pixel(values[2 * plane + i])])
    })
}

/// One tile of the contact sheet: an image and its two label lines.
pub(crate) struct Tile {
    pub(crate) image: RgbImage,
    pub(crate) title: String,
    pub(crate) detail: String,
}

/// The contact sheet: tiles in rows of `columns`, each scaled to `tile_width` with its label
/// drawn above it in the bundled font.
pub(crate) fn contact_sheet(tiles: &[Tile], columns: usize, tile_width: u32, path: &Path) -> Result<()> {
    let first = tiles.first().ok_or("no tiles")?;
    let tile_height = tile_width * first.image.height() / first.image.width().max(1);
    let (label, gap) = (44u32, 8u32);
    let rows = tiles.len().div_ceil(columns) as u32;
    let width = gap + columns as u32 * (tile_width + gap);
    let height = gap + rows * (label + tile_height + gap);
    let mut sheet = RgbImage::from_pixel(width, height, Rgb([24, 24, 28]));
    let mut origins = Vec::new();
    for (k, tile) in tiles.iter().enumerate() {
        let (col, row) = ((k % columns) as u32, (k / columns) as u32);
        let (x, y) = (gap + col * (tile_width + gap), gap + row * (label + tile_height + gap));
        let scaled = imageops::resize(&tile.image, tile_width, tile_height, imageops::FilterType::Triangle);
        imageops::replace(&mut sheet, &scaled, i64::from(x), i64::from(y + label));
        origins.push((x, y));
    }
    {
        let (w, h) = sheet.dimensions();
        let root = BitMapBackend::with_buffer(sheet.as_mut(), (w, h)).into_drawing_area();
        for (tile, (x, y)) in tiles.iter().zip(origins) {
            let (x, y) = (x as i32, y as i32);
            root.draw(&Text::new(tile.title.as_str(), (x + 2, y + 2), ("sans-serif", 18).into_font().color(&WHITE)))?;
            let grey = RGBColor(190, 190, 200);
            root.draw(&Text::new(tile.detail.as_str(), (x + 2, y + 23), ("sans-serif", 15).into_font().color(&grey)))?;
        }
        root.present()?;
    }
    sheet.save(path)?;
    Ok(())
}

/// A curve computed on the GPU, drawn solid, and the same curve from the CPU reference drawn
/// dashed on top.
pub(crate) struct Curve {
    pub(crate) name: String,
    pub(crate) gpu: Vec<(f32, f32)>,
    pub(crate) reference: Vec<(f32, f32)>,
}

pub(crate) fn activation_plot(curves: &[Curve], path: &Path) -> Result<()> {
    let mut canvas = RgbImage::new(1100, 700);
    {
        let root = BitMapBackend::with_buffer(canvas.as_mut(), (1100, 700)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Activations on the GPU (solid) and the CPU reference (dashed)", ("sans-serif", 26))
            .margin(20)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(-4.0f32..3.0f32, -2.5f32..3.0f32)?;
        chart.configure_mesh().x_desc("x").y_desc("y").label_style(("sans-serif", 16)).draw()?;
        let palette = [RGBColor(214, 39, 40), RGBColor(31, 119, 180), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];
        for (curve, color) in curves.iter().zip(palette.iter().cycle()) {
            let color = *color;
            chart
                .draw_series(LineSeries::new(curve.gpu.iter().copied(), color.stroke_width(4)))?
                .label(curve.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(4)));
            chart.draw_series(DashedLineSeries::new(curve.reference.iter().copied(), 6, 6, BLACK.stroke_width(1)))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 18))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    canvas.save(path)?;
    Ok(())
}

/// A heat map of per-pixel ULP distances (the largest over the channels), with its scale.
pub(crate) fn ulp_heat_map(ulps: &[u64], width: u32, height: u32, title: &str, path: &Path) -> Result<()> {
    let plane = (width * height) as usize;
    let worst = ulps.iter().copied().max().unwrap_or(0).max(1);
    let color = |u: u64| -> Rgb<u8> {
        if u == 0 {
            return Rgb([16, 16, 40]);
        }
        let t = u as f32 / worst as f32;
        Rgb([(60.0 + 195.0 * t) as u8, (200.0 * t * t) as u8 + 30, (160.0 * (1.0 - t)) as u8])
    };
    let map = RgbImage::from_fn(width, height, |x, y| {
        let i = (y * width + x) as usize;
        let u = (0..ulps.len() / plane.max(1)).map(|c| ulps[c * plane + i]).max().unwrap_or(0);
        color(u)
    });
    let (margin, bar) = (70u32, 90u32);
    let mut canvas = RgbImage::from_pixel(width + bar + 20, height + margin, Rgb([255, 255, 255]));
    imageops::replace(&mut canvas, &map, 0, i64::from(margin));
    let steps = worst.min(16) as u32 + 1;
    let cell = (height / steps).max(1);
    for k in 0..steps {
        let u = u64::from(k) * worst / u64::from(steps - 1).max(1);
        for dy in 0..cell {
            for dx in 0..30 {
                canvas.put_pixel(width + 20 + dx, margin + k * cell + dy, color(u));
            }
        }
    }
    {
        let (w, h) = canvas.dimensions();
        let root = BitMapBackend::with_buffer(canvas.as_mut(), (w, h)).into_drawing_area();
        root.draw(&Text::new(title, (10, 10), ("sans-serif", 22).into_font().color(&BLACK)))?;
        let note = "per pixel: the largest ULP distance over R, G, B";
        root.draw(&Text::new(note, (10, 38), ("sans-serif", 16).into_font().color(&BLACK)))?;
        for k in 0..steps {
            let u = u64::from(k) * worst / u64::from(steps - 1).max(1);
            let y = (margin + k * cell) as i32;
            let label = format!("{u} ULP");
            root.draw(&Text::new(label, ((width + 54) as i32, y), ("sans-serif", 14).into_font().color(&BLACK)))?;
        }
        root.present()?;
    }
    canvas.save(path)?;
    Ok(())
}

/// One operator of the table on the GPU and on the CPU reference: near zero, and the magnitude
/// of its negative tail on a logarithmic axis (where peers round to 0 or lose the sign).
pub(crate) struct OperatorCurves {
    pub(crate) name: String,
    pub(crate) near_zero: Curve,
    /// `(x, |y|)` for x < 0 where y is not 0.
    pub(crate) tail: Curve,
}

/// Every operator as a pair of panels, four pairs a row, each with its axes, ticks and labels:
/// GPU results solid, the reference dashed over them.
pub(crate) fn operator_gallery(operators: &[OperatorCurves], path: &Path) -> Result<()> {
    const COLUMNS: usize = 4;
    let rows = operators.len().div_ceil(COLUMNS);
    let (panel_w, panel_h) = (330u32, 300u32);
    let (width, height) = (panel_w * 2 * COLUMNS as u32, panel_h * rows as u32 + 60);
    let mut canvas = RgbImage::new(width, height);
    {
        let root = BitMapBackend::with_buffer(canvas.as_mut(), (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let (title, body) = root.split_vertically(60);
        title.titled(
            "Every operator on the GPU (f32, solid) over the CPU reference (dashed): near 0, and |y| of the negative tail",
            ("sans-serif", 24),
        )?;
        let panels = body.split_evenly((rows, 2 * COLUMNS));
        let stroke = RGBColor(31, 119, 180);
        for (op, pair) in operators.iter().zip(panels.chunks(2)) {
            let range = |points: &[(f32, f32)]| {
                let (lo, hi) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &(_, y)| (lo.min(y), hi.max(y)));
                if lo <= hi { (lo, hi) } else { (0.0, 1.0) }
            };
            let (lo, hi) = range(&op.near_zero.reference);
            let pad = ((hi - lo) * 0.08).max(0.05);
            let mut chart = ChartBuilder::on(&pair[0])
                .caption(&op.name, ("sans-serif", 18))
                .margin(8)
                .x_label_area_size(32)
                .y_label_area_size(44)
                .build_cartesian_2d(-6.0f32..6.0f32, (lo - pad)..(hi + pad))?;
            chart
                .configure_mesh()
                .x_desc("x")
                .y_desc("y")
                .x_labels(7)
                .y_labels(6)
                .x_label_formatter(&|v| format!("{v:.0}"))
                .label_style(("sans-serif", 12))
                .draw()?;
            chart.draw_series(LineSeries::new(op.near_zero.gpu.iter().copied(), stroke.stroke_width(3)))?;
            chart.draw_series(DashedLineSeries::new(
                op.near_zero.reference.iter().copied(),
                5,
                5,
                BLACK.stroke_width(1),
            ))?;
            // The tail's |y| as log10 on a linear axis (plotters' log axis mishandles subnormals).
            let log = |points: &[(f32, f32)]| -> Vec<(f32, f32)> {
                points.iter().map(|&(x, m)| (x, f64::from(m).log10() as f32)).collect()
            };
            let (gpu, reference) = (log(&op.tail.gpu), log(&op.tail.reference));
            let (tlo, thi) = range(&reference);
            let caption = format!("{}: |y|, x < 0", op.name);
            let empty = reference.is_empty();
            let mut chart = ChartBuilder::on(&pair[1])
                .caption(if empty { format!("{caption}: y is 0") } else { caption }, ("sans-serif", 16))
                .margin(8)
                .x_label_area_size(32)
                .y_label_area_size(50)
                .build_cartesian_2d(-120.0f32..0.0f32, if empty { -1.0f32..1.0 } else { (tlo - 1.0)..(thi + 1.0) })?;
            chart
                .configure_mesh()
                .x_desc("x")
                .y_desc("|y|")
                .x_labels(7)
                .y_labels(if empty { 0 } else { 6 })
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| format!("1e{v:.0}"))
                .label_style(("sans-serif", 12))
                .draw()?;
            chart.draw_series(LineSeries::new(gpu, stroke.stroke_width(3)))?;
            chart.draw_series(DashedLineSeries::new(reference, 5, 5, BLACK.stroke_width(1)))?;
        }
        root.present()?;
    }
    canvas.save(path)?;
    Ok(())
}

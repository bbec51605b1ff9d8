//! The chart: grouped bars of the median time per query (log scale), one group per
//! mask (the small Moving AI maps and the adventure-game masks as one group each, by
//! geometric mean), one bar per method, plus the bandwidth floor. The legend sits at
//! the top right, over the small masks, whose bars are the shortest.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::axis_us;

/// One group of bars.
#[derive(Clone, Debug)]
pub struct Group {
    /// First label line (the mask).
    pub label: String,
    /// Further label lines (size or count, index build), separated by `\n`.
    pub sub: String,
    /// One value per series, microseconds.
    pub values: Vec<Option<f64>>,
}

const COLORS: [RGBColor; 11] = [
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(40, 40, 40),
];

/// Candidate font files, tried in order after `$WALKMASK_BENCH_FONT`.
const FONT_PATHS: [&str; 7] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a system TrueType font as "sans-serif" for the chart's text.
fn register_font() -> Result<(), String> {
    let mut candidates: Vec<String> = Vec::new();
    if let Ok(p) = std::env::var("WALKMASK_BENCH_FONT") {
        candidates.push(p);
    }
    candidates.extend(FONT_PATHS.iter().map(|s| s.to_string()));
    for path in &candidates {
        if let Ok(bytes) = std::fs::read(path) {
            // plotters keeps the font for the whole program.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return Ok(());
            }
        }
    }
    Err(format!(
        "no usable TrueType font found for the chart's text (set WALKMASK_BENCH_FONT to a .ttf file; tried {})",
        candidates.join(", ")
    ))
}

/// Draws the chart to `path` (PNG).
pub fn draw(path: &Path, title: &str, series: &[&str], groups: &[Group]) -> Result<(), String> {
    register_font()?;
    let values: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.values.iter().flatten().copied())
        .filter(|v| *v > 0.0)
        .collect();
    if values.is_empty() {
        return Err("nothing to draw".into());
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(0.0, f64::max);
    let lo = 10f64.powf(min.log10().floor());
    let hi = 10f64.powf(max.log10().ceil()).max(lo * 10.0);
    let (w, h) = (1800u32, 900u32);
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let n = groups.len() as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 26))
            .margin(20)
            .x_label_area_size(85)
            .y_label_area_size(90)
            .build_cartesian_2d(0f64..n, (lo..hi).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .x_label_formatter(&|_| String::new())
            .y_desc("median time per query")
            .y_label_formatter(&|v| axis_us(*v))
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(e)?;
        let width = 0.8 / series.len() as f64;
        for (si, name) in series.iter().enumerate() {
            let color = COLORS[si % COLORS.len()];
            chart
                .draw_series(groups.iter().enumerate().filter_map(|(gi, g)| {
                    g.values[si].filter(|v| *v > 0.0).map(|v| {
                        let x0 = gi as f64 + 0.1 + si as f64 * width;
                        Rectangle::new([(x0, lo), (x0 + width * 0.9, v)], color.filled())
                    })
                }))
                .map_err(e)?
                .label(*name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        let style = ("sans-serif", 15)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (gi, g) in groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(gi as f64 + 0.5, lo));
            root.draw(&Text::new(g.label.clone(), (x, y + 8), style.clone()))
                .map_err(e)?;
            for (k, line) in g.sub.lines().enumerate() {
                root.draw(&Text::new(
                    line.to_owned(),
                    (x, y + 26 + 17 * k as i32),
                    style.clone(),
                ))
                .map_err(e)?;
            }
        }
        root.present().map_err(e)?;
    }
    image::save_buffer(path, &buf, w, h, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("{}: {e}", path.display()))
}

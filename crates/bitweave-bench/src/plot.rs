//! `bitweave bench --plot FILE`: the benchmark's figures as paper-style charts (SVG or PNG).
//!
//! Three kinds of panel, each drawn when the run measured what it needs:
//! - cycles/byte per mode, one panel per cipher, a line per backend and direction plus
//!   OpenSSL's (the MX-1 paper's Fig. 9: interleaved modes stay flat, serial ones climb);
//! - throughput against thread count (when `--threads` listed several);
//! - the split sweep (the SEED-on-Cell paper's Fig. 5(b)): throughput against the ratio,
//!   dynamic sharing and the automatic ratio as marked points.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use bitweave::{Mode, Suite};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::block::{Row, TABLE_MODES};
use crate::split_sweep::SplitRow;

/// One line of a chart: a label and its (x, y) points.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
}

/// One panel: title, axis captions, lines, and how x values are labelled.
struct Panel {
    title: String,
    x_desc: &'static str,
    y_desc: &'static str,
    /// Categorical x axis (mode names) instead of numbers.
    x_names: Option<Vec<&'static str>>,
    /// Label only whole numbers on the x axis (thread counts).
    x_integer: bool,
    log_y: bool,
    series: Vec<Series>,
}

/// Fails early (before any measurement) on a plot path that cannot be written.
pub fn check_path(path: &Path) -> Result<()> {
    match extension(path).as_str() {
        "svg" | "png" => Ok(()),
        _ => bail!("--plot: the file must end in .svg or .png"),
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Writes every panel the rows support into `path` (`.svg` or `.png`), atomically.
pub fn write(path: &Path, rows: &[Row], split: &[SplitRow]) -> Result<()> {
    let mut panels = mode_panels(rows);
    panels.extend(thread_panel(rows));
    panels.extend(split_panel(split));
    if panels.is_empty() {
        bail!("--plot: nothing to plot (no rows were measured)");
    }
    check_path(path)?;
    let ext = extension(path);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".bitweave-plot-")
        .suffix(&format!(".{ext}"))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    let cols = if panels.len() > 1 { 2 } else { 1 };
    let grid = (panels.len().div_ceil(cols), cols);
    let size = (620 * grid.1 as u32, 420 * grid.0 as u32);
    register_font()?;
    match ext.as_str() {
        "svg" => draw(
            SVGBackend::new(tmp.path(), size).into_drawing_area(),
            &panels,
            grid,
        )?,
        "png" => draw(
            BitMapBackend::new(tmp.path(), size).into_drawing_area(),
            &panels,
            grid,
        )?,
        _ => unreachable!("checked above"),
    }
    tmp.persist(path)
        .map_err(|e| anyhow!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}

/// Text needs a TrueType font (plotters' pure-Rust `ab_glyph` renderer): the first of the
/// usual system paths that exists, registered once as "sans-serif".
fn register_font() -> Result<()> {
    static DONE: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        const CANDIDATES: [&str; 4] = [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/Library/Fonts/Arial.ttf",
        ];
        let bytes = CANDIDATES
            .iter()
            .find_map(|p| std::fs::read(p).ok())
            .ok_or_else(|| {
                "--plot needs a TrueType font for its text (Debian: fonts-dejavu-core)".to_string()
            })?;
        // The font lives as long as the process: plotters keeps a 'static reference.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| "the system font could not be parsed".to_string())
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    panels: &[Panel],
    grid: (usize, usize),
) -> Result<()> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the plot: {e}");
    root.fill(&WHITE).map_err(err)?;
    for (area, panel) in root.split_evenly(grid).iter().zip(panels) {
        draw_panel(area, panel).map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let xs = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    let pad = ((x1 - x0) * 0.05).max(0.25);
    let (x0, x1) = (x0 - pad, x1 + pad);
    let (plot_area, legend_area) = area.split_horizontally(area.dim_in_pixel().0 * 64 / 100);
    draw_legend(&legend_area, panel)?;
    let mut builder = ChartBuilder::on(&plot_area);
    builder
        .caption(&panel.title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(56);
    let names = panel.x_names.clone();
    let x_integer = panel.x_integer;
    let y_fmt = |y: &f64| match y.abs() {
        a if a >= 100.0 => format!("{y:.0}"),
        a if a >= 1.0 => format!("{y:.1}"),
        _ => format!("{y:.2}"),
    };
    let x_fmt = move |x: &f64| match &names {
        Some(n) => {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n.len() {
                n[i as usize].to_string()
            } else {
                String::new()
            }
        }
        None if (x - x.round()).abs() < 1e-9 => format!("{}", x.round()),
        None if x_integer => String::new(),
        None => format!("{x:.2}"),
    };
    let x_labels = panel.x_names.as_ref().map_or(8, |n| n.len() * 4 + 1);
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(TRANSPARENT)
                .x_desc(panel.x_desc)
                .y_desc(panel.y_desc)
                .x_labels(x_labels)
                .x_label_formatter(&x_fmt)
                .y_labels(10)
                .y_label_formatter(&y_fmt)
                .draw()?;
            for (i, s) in panel.series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart.draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))?;
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            }
        }};
    }
    if panel.log_y {
        finish!(builder.build_cartesian_2d(x0..x1, ((y0 * 0.8)..(y1 * 1.25)).log_scale())?);
    } else {
        finish!(builder.build_cartesian_2d(x0..x1, 0.0..(y1 * 1.15))?);
    }
    Ok(())
}

/// The panel's legend, beside the chart so it never hides a line: a colour swatch and the
/// label per series, in drawing order.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 12).into_font();
    for (i, s) in panel.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let y = 40 + 17 * i as i32;
        area.draw(&PathElement::new(
            vec![(4, y), (24, y)],
            color.stroke_width(3),
        ))?;
        area.draw(&Text::new(s.label.clone(), (30, y - 7), font.clone()))?;
    }
    Ok(())
}

/// Cycles/byte per mode: a panel per cipher, a line per (backend, N, direction), and
/// OpenSSL's line per direction from the same rows.
fn mode_panels(rows: &[Row]) -> Vec<Panel> {
    let mode_index = |m: Mode| TABLE_MODES.iter().position(|&x| x == m);
    // cipher -> label -> points
    let mut by_cipher: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.threads == 1) {
        let Ok(suite) = r.cipher.parse::<Suite>() else {
            continue; // π-Cipher rows have no mode
        };
        let Some(x) = mode_index(suite.mode) else {
            continue;
        };
        let lines = by_cipher.entry(suite.cipher.to_string()).or_default();
        lines
            .entry(format!("{} {}", r.backend, r.direction))
            .or_default()
            .push((x as f64, r.cycles_per_byte));
        if let Some(o) = r.openssl_cycles_per_byte {
            let pts = lines.entry(format!("OpenSSL {}", r.direction)).or_default();
            match pts.iter_mut().find(|p| p.0 == x as f64) {
                Some(p) => p.1 = p.1.min(o),
                None => pts.push((x as f64, o)),
            }
        }
    }
    by_cipher
        .into_iter()
        .map(|(cipher, lines)| Panel {
            title: format!("{cipher}: cycles/byte per mode, one thread"),
            x_desc: "mode",
            y_desc: "cycles/byte (log)",
            x_names: Some(TABLE_MODES.iter().map(|m| m.name()).collect()),
            x_integer: false,
            log_y: true,
            series: lines
                .into_iter()
                .map(|(label, mut points)| {
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Series { label, points }
                })
                .collect(),
        })
        .collect()
}

/// MB/s against threads, a line per (suite, backend, direction), when several thread
/// counts were measured.
fn thread_panel(rows: &[Row]) -> Option<Panel> {
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        lines
            .entry(format!("{} {} {}", r.cipher, r.backend, r.direction))
            .or_default()
            .push((r.threads as f64, r.gbps * 1e3));
    }
    lines.retain(|_, p| {
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p.dedup_by(|a, b| a.0 == b.0);
        p.len() > 1
    });
    (!lines.is_empty()).then(|| Panel {
        title: "throughput against threads".into(),
        x_desc: "threads",
        y_desc: "MB/s",
        x_names: None,
        x_integer: true,
        log_y: false,
        series: lines
            .into_iter()
            .map(|(label, points)| Series { label, points })
            .collect(),
    })
}

/// The split sweep: MB/s against the first worker's share, a line per worker pair; the
/// automatic ratio and dynamic sharing (drawn at x = -0.1) as their own points.
fn split_panel(split: &[SplitRow]) -> Option<Panel> {
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in split {
        let pair = format!("{}+{}", r.workers[0], r.workers[1]);
        let (label, x) = match (r.schedule, r.ratio) {
            ("static", Some(x)) => (format!("{pair} static"), x),
            ("auto", Some(x)) => (format!("{pair} auto"), x),
            (_, _) => (format!("{pair} dynamic (at -0.1)"), -0.1),
        };
        lines.entry(label).or_default().push((x, r.gbps * 1e3));
    }
    (!lines.is_empty()).then(|| Panel {
        title: format!(
            "split sweep: {} on two workers (paper Fig. 5(b))",
            split[0].cipher
        ),
        x_desc: "share of blocks on the first worker",
        y_desc: "MB/s",
        x_names: None,
        x_integer: false,
        log_y: false,
        series: lines
            .into_iter()
            .map(|(label, points)| Series { label, points })
            .collect(),
    })
}

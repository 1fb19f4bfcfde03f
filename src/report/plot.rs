//! The report's SVG plots for papers, drawn with the primitives of [`crate::write::plot`]
//! (palette, fonts, ticks, legends): units on every axis, ECDFs with their end points marked,
//! gain curves with 95 % bands over topics and users, and a forest plot of the per-topic
//! paired differences.
//!
//! `tests/plots_render.rs` renders every plot kind with it and checks that no two text boxes
//! overlap and that all text stays on the canvas.

use crate::error::Result;
use crate::simulate::summary::{Curve, MeasureInfo, PairSummary, PooledSummary, CURVE_LEVEL};
use crate::simulate::{RunSummary, MEASURES};
use crate::write::plot::{
    anchored, caption, fit, legend, plot_err, px, text_width, ticked_chart, wrap, y_area, Ticks, CAPTION_FONT, DESC_FONT, OKABE_ITO, TICK_FONT,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

/// Index of the measure `name` in [`MEASURES`] (a lookup in the table; the report calls
/// nothing in the engine).
fn measure_index(name: &str) -> Option<usize> {
    MEASURES.iter().position(|m| m.name == name)
}

/// An axis description: the measure's name, and its unit in parentheses where the unit says
/// more than the name ("time (seconds)", but "gain", not "gain (gain)").
pub fn axis_label(m: &MeasureInfo) -> String {
    let name = m.name.replace('_', " ");
    if m.unit == m.name || m.unit == name {
        name
    } else {
        format!("{name} ({})", m.unit)
    }
}

/// Line colour and width per series, so series differ in more than colour too.
fn series_style(i: usize) -> (RGBColor, u32) {
    (OKABE_ITO[i % OKABE_ITO.len()], if i < OKABE_ITO.len() { 2 } else { 1 })
}

/// Systems in first-seen order, and profiles.
fn names(s: &RunSummary) -> (Vec<String>, Vec<String>) {
    let mut systems: Vec<String> = Vec::new();
    let mut profiles: Vec<String> = Vec::new();
    for p in &s.pooled {
        if !systems.contains(&p.summary.system) {
            systems.push(p.summary.system.clone());
        }
        if !profiles.contains(&p.summary.profile) {
            profiles.push(p.summary.profile.clone());
        }
    }
    (systems, profiles)
}

/// Most profile rows of `distributions.svg` and `gain_curves.svg` at the default detail (a
/// sweep of 78 profiles drew 78 rows, 3.7 MB of plots nobody reads); `--detail full` draws all.
pub const MAX_PROFILE_ROWS: usize = 12;

/// The profiles a per-profile plot draws: all of them when `max` is `None` or not exceeded,
/// otherwise `max` of them evenly spaced in scenario order (the first and the last included),
/// and the note that says so.
fn drawn_profiles(profiles: Vec<String>, max: Option<usize>, csv: &str) -> (Vec<String>, Option<String>) {
    let n = profiles.len();
    match max {
        Some(k) if n > k && k >= 2 => {
            let picked: Vec<String> = (0..k).map(|i| profiles[i * (n - 1) / (k - 1)].clone()).collect();
            let note = format!("{k} of {n} profiles drawn, evenly spaced in scenario order; every profile is in {csv}, and --detail full draws them all.");
            (picked, Some(note))
        }
        _ => (profiles, None),
    }
}

fn system_legend(area: &DrawingArea<SVGBackend, Shift>, systems: &[String], notes: &[String]) -> Result<()> {
    let series: Vec<(String, RGBColor, u32)> = systems
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (c, w) = series_style(i);
            (n.clone(), c, w)
        })
        .collect();
    legend(area, "System", &series, notes)
}

/// ECDF points (step function) of sorted `(value, count)` pairs: `(x, P(X <= x))` with a
/// point just before each jump, at most about `max_points` points.
fn ecdf_steps(entries: &[(f64, u64)], max_points: usize) -> Vec<(f64, f64)> {
    let n: u64 = entries.iter().map(|e| e.1).sum();
    if n == 0 {
        return Vec::new();
    }
    let stride = (entries.len() / max_points.max(1)).max(1);
    let mut pts = Vec::new();
    let mut cum = 0u64;
    let mut prev = 0.0;
    for (i, &(x, c)) in entries.iter().enumerate() {
        cum += c;
        let y = cum as f64 / n as f64;
        if i % stride == 0 || i + 1 == entries.len() {
            pts.push((x, prev));
            pts.push((x, y));
        }
        prev = y;
    }
    pts
}

/// Width and height of a plotting area inside `area` with these label areas and a caption.
fn plot_extent(area: &DrawingArea<SVGBackend, Shift>, margin: u32, y_area: u32, x_area: u32) -> (f64, f64) {
    let (w, h) = area.dim_in_pixel();
    let caption = (px(CAPTION_FONT) * 1.3 + 10.0) as u32;
    ((w.saturating_sub(2 * margin + y_area)).max(20) as f64, (h.saturating_sub(2 * margin + x_area + caption)).max(20) as f64)
}

/// ECDFs of gain, effort and time (pooled over topics and users) per system: one row per
/// profile, one column per measure, the legend in its own column.
pub fn ecdf_svg(s: &RunSummary, max_rows: Option<usize>) -> Result<String> {
    let (systems, profiles) = names(s);
    let (profiles, left_out) = drawn_profiles(profiles, max_rows, "pooled.csv");
    let shown: Vec<usize> = ["gain", "effort", "time"].iter().filter_map(|m| measure_index(m)).collect();
    let mut svg = String::new();
    {
        let rows = profiles.len().max(1);
        let root = SVGBackend::with_string(&mut svg, (1200, 330 * rows as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plots, legend_area) = root.split_horizontally(1000);
        let notes: Vec<String> =
            std::iter::once("Sessions of every topic and user pooled; hollow dot: smallest value, filled: largest.".to_string()).chain(left_out).collect();
        system_legend(&legend_area, &systems, &notes)?;
        let areas = plots.split_evenly((rows, shown.len()));
        let yt = Ticks { lo: -0.03, hi: 1.03, points: vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0], step: 0.2 };
        for (p, profile) in profiles.iter().enumerate() {
            for (col, &m) in shown.iter().enumerate() {
                let area = &areas[p * shown.len() + col];
                let series: Vec<(usize, Vec<(f64, f64)>)> = s
                    .pooled
                    .iter()
                    .filter(|x| &x.summary.profile == profile)
                    .map(|x: &PooledSummary| {
                        let i = systems.iter().position(|n| *n == x.summary.system).unwrap_or(0);
                        (i, ecdf_steps(&x.distributions[m], 600))
                    })
                    .collect();
                let integer = series.iter().all(|(_, v)| v.iter().all(|p| p.0.fract() == 0.0));
                let (lo, hi) = series.iter().flat_map(|(_, v)| v.iter().map(|p| p.0)).fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                let (lo, hi) = if lo > hi {
                    (0.0, 1.0)
                } else if lo == hi {
                    (lo - 0.5, hi + 0.5)
                } else {
                    (lo, hi)
                };
                let pad = 0.05 * (hi - lo);
                let info = MEASURES[m];
                let y_w = y_area(&yt);
                let (plot_w, _) = plot_extent(area, 10, y_w, 44);
                let xt = Ticks::new(lo - pad, hi + pad, plot_w, true, integer);
                let width = area.dim_in_pixel().0 as f64 - 20.0;
                let title = caption(profile, &info.name.replace('_', " "), width, CAPTION_FONT);
                let x_desc = fit(&axis_label(&info), plot_w, DESC_FONT);
                let mut chart = ticked_chart(area, (&title, CAPTION_FONT), 10, (&xt, &yt), (&x_desc, "P(X <= x)"), true)?;
                for (i, pts) in series {
                    let (c, w) = series_style(i);
                    if let (Some(&first), Some(&last)) = (pts.iter().find(|p| p.1 > 0.0), pts.last()) {
                        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(w))).map_err(plot_err)?;
                        // End points: the smallest value (hollow) and the largest (filled).
                        chart.draw_series([Circle::new(first, 4, c.stroke_width(2))]).map_err(plot_err)?;
                        chart.draw_series([Circle::new(last, 4, c.filled())]).map_err(plot_err)?;
                    }
                }
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

fn band_chart(area: &DrawingArea<SVGBackend, Shift>, (profile, what): (&str, &str), x_desc: &str, series: &[(usize, &Curve)]) -> Result<()> {
    let xmax = series.iter().flat_map(|(_, c)| c.x.last().copied()).fold(1e-9, f64::max);
    let ymax = series.iter().flat_map(|(_, c)| c.mean.iter().chain(c.hi.iter().filter(|x| x.is_finite()))).copied().fold(1e-9, f64::max) * 1.08;
    let yt_guess = Ticks::new(0.0, ymax, 200.0, false, false);
    let y_w = y_area(&yt_guess);
    let (plot_w, plot_h) = plot_extent(area, 10, y_w, 44);
    let xt = Ticks::new(0.0, xmax * 1.02, plot_w, true, false);
    let yt = Ticks::new(0.0, ymax, plot_h, false, false);
    let width = area.dim_in_pixel().0 as f64 - 20.0;
    let title = caption(profile, what, width, CAPTION_FONT);
    let mut chart = ticked_chart(area, (&title, CAPTION_FONT), 10, (&xt, &yt), (x_desc, "mean gain collected"), false)?;
    for &(i, c) in series {
        let (col, w) = series_style(i);
        if c.topics >= 2 {
            let upper = c.x.iter().zip(&c.hi).map(|(&x, &h)| (x, h));
            let lower: Vec<(f64, f64)> = c.x.iter().zip(&c.lo).map(|(&x, &l)| (x, l.max(0.0))).rev().collect();
            let band: Vec<(f64, f64)> = upper.chain(lower).filter(|p| p.1.is_finite()).collect();
            chart.draw_series([Polygon::new(band, col.mix(0.22).filled())]).map_err(plot_err)?;
        }
        chart.draw_series(LineSeries::new(c.x.iter().copied().zip(c.mean.iter().copied()), col.stroke_width(w))).map_err(plot_err)?;
    }
    Ok(())
}

/// Gain over time and over effort per system (the mean, and where there are two topics or
/// more a 95 % band over topics and users within topics): one row per profile.
pub fn curves_svg(s: &RunSummary, max_rows: Option<usize>) -> Result<String> {
    let (systems, profiles) = names(s);
    let (profiles, left_out) = drawn_profiles(profiles, max_rows, "gain_curves.csv");
    let topics = s.pooled.iter().map(|p| p.time_curve.topics).min().unwrap_or(0);
    let note = if topics >= 2 {
        format!(
            "Line: mean over sessions. Band: {:.0} % interval of the mean over topics and users within topics (t interval over the {topics} topics' mean curves).",
            100.0 * CURVE_LEVEL
        )
    } else {
        format!("Line: mean over sessions. No band: {topics} topic, so nothing is known about other topics.")
    };
    let band = if topics >= 2 { "95 % band over topics" } else { "no band: 1 topic" };
    let mut svg = String::new();
    {
        let rows = profiles.len().max(1);
        let root = SVGBackend::with_string(&mut svg, (1100, 340 * rows as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plots, legend_area) = root.split_horizontally(900);
        let notes: Vec<String> = std::iter::once(note).chain(left_out).collect();
        system_legend(&legend_area, &systems, &notes)?;
        let areas = plots.split_evenly((rows, 2));
        let time = MEASURES[measure_index("time").unwrap_or(4)];
        let effort = MEASURES[measure_index("effort").unwrap_or(3)];
        for (p, profile) in profiles.iter().enumerate() {
            let pooled: Vec<&PooledSummary> = s.pooled.iter().filter(|x| &x.summary.profile == profile).collect();
            let idx = |x: &PooledSummary| systems.iter().position(|n| *n == x.summary.system).unwrap_or(0);
            let time_curves: Vec<(usize, &Curve)> = pooled.iter().map(|x| (idx(x), &x.time_curve)).collect();
            let effort_curves: Vec<(usize, &Curve)> = pooled.iter().map(|x| (idx(x), &x.effort_curve)).collect();
            band_chart(&areas[2 * p], (profile, &format!("gain over time ({band})")), &axis_label(&time), &time_curves)?;
            band_chart(&areas[2 * p + 1], (profile, &format!("gain over effort ({band})")), &axis_label(&effort), &effort_curves)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Most panels (profile and system pair) of `differences.svg`; the rest are named in a note.
pub const MAX_DIFFERENCE_PANELS: usize = 12;
/// Height of a forest plot's rows at most (pixels), for few topics.
const ROW_PX: f64 = 16.0;
/// Height of a forest plot's topic rows together at most (pixels): many topics get thin rows
/// and every k-th topic labelled.
const ROWS_PX: f64 = 600.0;

/// One panel of the forest plot: the per-topic differences of the main outcome, sorted.
struct Forest<'a> {
    pooled: &'a PairSummary,
    /// `(topic, difference, half width of its 95 % interval over users)`, sorted by difference.
    topics: Vec<(String, f64, f64)>,
}

fn forests(s: &RunSummary, m: usize) -> Vec<Forest<'_>> {
    s.pooled_pairs
        .iter()
        .map(|pp| {
            let mut topics: Vec<(String, f64, f64)> = s
                .pairs
                .iter()
                .filter(|p| p.profile == pp.profile && p.system_a == pp.system_a && p.system_b == pp.system_b)
                .filter_map(|p| {
                    let d = &p.measures[m];
                    let t = p.topic.clone()?;
                    d.diff_mean.is_finite().then(|| (t, d.diff_mean, if d.diff_se.is_finite() { 1.96 * d.diff_se } else { 0.0 }))
                })
                .collect();
            topics.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
            Forest { pooled: pp, topics }
        })
        .collect()
}

/// A forest plot of the paired difference A - B of the main outcome (gain) per topic: each
/// topic's mean difference with its 95 % interval over that topic's users (1.96 standard
/// errors), topics sorted by difference, and the mean over topics with its 95 % t interval
/// over topics and users within topics, a zero line and units. One panel per profile and
/// system pair, up to [`MAX_DIFFERENCE_PANELS`]; many topics get thin rows with every k-th
/// topic labelled. `None` when there is no pair to compare.
pub fn differences_svg(s: &RunSummary) -> Result<Option<String>> {
    let Some(m) = measure_index("gain") else { return Ok(None) };
    let all = forests(s, m);
    if all.is_empty() || all.iter().all(|f| f.topics.is_empty()) {
        return Ok(None);
    }
    let shown = &all[..all.len().min(MAX_DIFFERENCE_PANELS)];
    let cols = if shown.len() == 1 { 1 } else { 2 };
    let rows = shown.len().div_ceil(cols);
    let max_topics = shown.iter().map(|f| f.topics.len()).max().unwrap_or(0);
    let pitch = (ROWS_PX / max_topics.max(1) as f64).min(ROW_PX);
    let plot_h = pitch * (max_topics + 2) as f64 + 10.0;
    let panel_h = (plot_h + 44.0 + 20.0 + px(CAPTION_FONT) * 1.3 + 10.0).ceil() as u32;
    let panel_w = 640u32;
    let (w, body_h) = (panel_w * cols as u32, panel_h * rows as u32);
    let mut notes =
        vec!["Gain difference A - B per topic: dot, the topic's mean over its users; line, its 95 % interval over those users (1.96 standard errors). \
         Black diamond: the mean over topics; its line, the 95 % t interval over topics and users within topics. Topics sorted by difference."
            .to_string()];
    if all.len() > shown.len() {
        notes
            .push(format!("{} more profile and system pairs not drawn (at most {MAX_DIFFERENCE_PANELS} panels): see comparison.csv.", all.len() - shown.len()));
    }
    let note_lines: Vec<String> = notes.iter().flat_map(|n| wrap(n, w as f64 - 20.0, 12.0)).collect();
    let foot = 16 * note_lines.len() as u32 + 12;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, body_h + foot)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (body, footer) = root.split_vertically(body_h);
        for (i, line) in note_lines.into_iter().enumerate() {
            footer.draw(&Text::new(line, (10, 14 + 16 * i as i32), anchored(12.0, HPos::Left, false))).map_err(plot_err)?;
        }
        let areas = body.split_evenly((rows, cols));
        for (f, area) in shown.iter().zip(areas.iter()) {
            forest_panel(&root, area, f, pitch, &MEASURES[m])?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(Some(svg))
}

fn forest_panel(root: &DrawingArea<SVGBackend, Shift>, area: &DrawingArea<SVGBackend, Shift>, f: &Forest, pitch: f64, info: &MeasureInfo) -> Result<()> {
    let t = f.topics.len();
    let means: Vec<f64> = f.topics.iter().map(|x| x.1).collect();
    let (mean, lo, hi) = crate::stats::topics::mean_interval(&means, 0.95);
    let overall = if t == 1 { "1 topic: no interval".to_string() } else { format!("mean of {t} topics") };
    let label_font = 12.0;
    let label_w = f.topics.iter().map(|x| text_width(&x.0, label_font)).chain([text_width(&overall, label_font)]).fold(0.0, f64::max).min(170.0);
    let y_w = (label_w + 14.0).ceil() as u32;
    let (xmin, xmax) = f
        .topics
        .iter()
        .flat_map(|&(_, d, h)| [d - h, d + h])
        .chain([0.0, lo, hi].into_iter().filter(|x| x.is_finite()))
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (xmin, xmax) = if xmax > xmin { (xmin, xmax) } else { (xmin - 0.5, xmax + 0.5) };
    let pad = 0.06 * (xmax - xmin);
    let (plot_w, _) = plot_extent(area, 10, y_w, 44);
    let xt = Ticks::new(xmin - pad, xmax + pad, plot_w, true, false);
    let width = area.dim_in_pixel().0 as f64 - 20.0;
    let p = f.pooled;
    let rows_h = pitch * (t + 2) as f64 + 10.0;
    // Row 0: the mean over topics; row 1: a gap; rows 2..: topics, largest difference on top.
    let (ylo, yhi) = (-0.5 - 5.0 / pitch, (t + 1) as f64 + 0.5 + 5.0 / pitch);
    let (_, h) = area.dim_in_pixel();
    let caption_h = px(CAPTION_FONT) * 1.3 + 10.0;
    let spare = (h as f64 - rows_h - 44.0 - 20.0 - caption_h).max(0.0) as u32;
    let mut chart = ChartBuilder::on(area)
        .caption(
            caption(&p.profile, &fit(&format!("{} - {}", p.system_a, p.system_b), width * 0.6, CAPTION_FONT), width, CAPTION_FONT),
            ("sans-serif", CAPTION_FONT),
        )
        .margin(10)
        .margin_bottom(10 + spare)
        .x_label_area_size(44)
        .y_label_area_size(y_w)
        .build_cartesian_2d(xt.range(), ylo..yhi)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(xt.points.len())
        .x_label_formatter(&|x| xt.label(*x))
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", DESC_FONT))
        .x_desc(fit(&format!("{} difference, A - B", axis_label(info)), plot_w, DESC_FONT))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(plot_err)?;
    chart.draw_series([PathElement::new(vec![(0.0, ylo), (0.0, yhi)], BLACK.stroke_width(1))]).map_err(plot_err)?;
    let colour = OKABE_ITO[0];
    let r = (pitch / 2.0 - 0.5).clamp(1.0, 3.5) as i32;
    let every = (px(label_font) * 1.25 / pitch).ceil().max(1.0) as usize;
    let label_style = anchored(label_font, HPos::Right, false);
    for (k, (topic, d, h)) in f.topics.iter().enumerate() {
        let y = (k + 2) as f64;
        if *h > 0.0 {
            chart.draw_series([PathElement::new(vec![(d - h, y), (d + h, y)], colour.stroke_width(if pitch >= 4.0 { 2 } else { 1 }))]).map_err(plot_err)?;
        }
        chart.draw_series([Circle::new((*d, y), r, colour.filled())]).map_err(plot_err)?;
        // Every `every`-th topic from the top is labelled.
        if (t - 1 - k).is_multiple_of(every) {
            let (px_x, px_y) = chart.backend_coord(&(xt.lo, y));
            root.draw(&Text::new(fit(topic, label_w, label_font), (px_x - 6, px_y), label_style.clone())).map_err(plot_err)?;
        }
    }
    if lo.is_finite() && hi.is_finite() {
        chart.draw_series([PathElement::new(vec![(lo, 0.0), (hi, 0.0)], BLACK.stroke_width(2))]).map_err(plot_err)?;
    }
    if mean.is_finite() {
        let (cx, cy) = chart.backend_coord(&(mean, 0.0));
        let s = 5;
        root.draw(&Polygon::new(vec![(cx - s, cy), (cx, cy - s), (cx + s, cy), (cx, cy + s)], BLACK.filled())).map_err(plot_err)?;
    }
    let (px_x, px_y) = chart.backend_coord(&(xt.lo, 0.0));
    root.draw(&Text::new(fit(&overall, label_w, label_font), (px_x - 6, px_y), anchored(label_font, HPos::Right, true))).map_err(plot_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_profiles_draw_twelve_evenly_spaced_and_say_so() {
        let names: Vec<String> = (0..78).map(|i| format!("p{i}")).collect();
        let (drawn, note) = drawn_profiles(names.clone(), Some(MAX_PROFILE_ROWS), "pooled.csv");
        // Hand derivation: index i * 77 / 11 for i = 0..12, i.e. every 7th profile.
        let want: Vec<String> = [0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77].iter().map(|i| format!("p{i}")).collect();
        assert_eq!(drawn, want);
        let note = note.expect("a note when profiles are left out");
        assert!(note.starts_with("12 of 78 profiles drawn") && note.contains("pooled.csv") && note.contains("--detail full"), "{note}");
        // Few profiles, or --detail full (no cap): every profile, no note.
        assert_eq!(drawn_profiles(names[..12].to_vec(), Some(MAX_PROFILE_ROWS), "x"), (names[..12].to_vec(), None));
        assert_eq!(drawn_profiles(names.clone(), None, "x"), (names, None));
    }

    #[test]
    fn ecdf_steps_reach_one_and_mark_jumps() {
        let pts = ecdf_steps(&[(1.0, 1), (2.0, 3)], 100);
        assert_eq!(pts, vec![(1.0, 0.0), (1.0, 0.25), (2.0, 0.25), (2.0, 1.0)]);
    }

    #[test]
    fn labels_say_units_once() {
        assert_eq!(axis_label(&MEASURES[measure_index("gain").unwrap()]), "gain");
        assert_eq!(axis_label(&MEASURES[measure_index("time").unwrap()]), "time (seconds)");
        assert_eq!(axis_label(&MEASURES[measure_index("relevant_found").unwrap()]), "relevant found (documents)");
    }
}

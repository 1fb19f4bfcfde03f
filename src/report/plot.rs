//! SVG plots for papers (plotters, SVG backend only): the Okabe-Ito colour-blind-safe
//! palette, units on every axis, legends in their own panel beside the data, ECDFs with their
//! end points marked and a margin around the data, gain curves with 95 % bands.

use crate::error::{Error, Result};
use crate::simulate::summary::{measure_index, Curve, PooledSummary};
use crate::simulate::{RunSummary, MEASURES};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Wraps a plotters failure as an [`Error`].
pub fn plot_err<E: std::fmt::Display>(e: E) -> Error {
    Error::Invalid(format!("plotting failed: {e}"))
}

/// The Okabe-Ito palette (Okabe and Ito 2002), distinguishable with every common colour
/// vision deficiency; black last.
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(230, 159, 0),   // orange
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(240, 228, 66),  // yellow
    RGBColor(0, 0, 0),       // black
];

/// Line dash per series, so series differ in more than colour too.
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

fn legend(area: &DrawingArea<SVGBackend, Shift>, systems: &[String]) -> Result<()> {
    area.draw(&Text::new("System", (8, 30), ("sans-serif", 15).into_font().style(FontStyle::Bold))).map_err(plot_err)?;
    for (i, name) in systems.iter().enumerate() {
        let (c, w) = series_style(i);
        let y = 55 + 22 * i as i32;
        area.draw(&PathElement::new(vec![(8, y), (34, y)], c.stroke_width(w + 1))).map_err(plot_err)?;
        let label: String = if name.chars().count() > 28 { name.chars().take(27).chain(std::iter::once('…')).collect() } else { name.clone() };
        area.draw(&Text::new(label, (40, y - 7), ("sans-serif", 13))).map_err(plot_err)?;
    }
    Ok(())
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

/// ECDFs of gain, effort and time (pooled over topics and users) per system: one row per
/// profile, one column per measure, the legend in its own column.
pub fn ecdf_svg(s: &RunSummary) -> Result<String> {
    let (systems, profiles) = names(s);
    let shown: Vec<usize> = ["gain", "effort", "time"].iter().filter_map(|m| measure_index(m)).collect();
    let mut svg = String::new();
    {
        let rows = profiles.len().max(1);
        let root = SVGBackend::with_string(&mut svg, (1200, 330 * rows as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plots, legend_area) = root.split_horizontally(1000);
        legend(&legend_area, &systems)?;
        let areas = plots.split_evenly((rows, shown.len()));
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
                let (lo, hi) = series.iter().flat_map(|(_, v)| v.iter().map(|p| p.0)).fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                let (lo, hi) = if lo > hi { (0.0, 1.0) } else if lo == hi { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
                let pad = 0.05 * (hi - lo);
                let info = MEASURES[m];
                let mut chart = ChartBuilder::on(area)
                    .caption(format!("{profile}: {}", info.name.replace('_', " ")), ("sans-serif", 15))
                    .margin(10)
                    .x_label_area_size(36)
                    .y_label_area_size(44)
                    .build_cartesian_2d((lo - pad)..(hi + pad), -0.03f64..1.03f64)
                    .map_err(plot_err)?;
                chart
                    .configure_mesh()
                    .x_desc(format!("{} ({})", info.name.replace('_', " "), info.unit))
                    .y_desc("P(X <= x)")
                    .light_line_style(WHITE.mix(0.0))
                    .draw()
                    .map_err(plot_err)?;
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

fn band_chart(area: &DrawingArea<SVGBackend, Shift>, title: &str, x_desc: &str, series: &[(usize, &Curve)]) -> Result<()> {
    let xmax = series.iter().flat_map(|(_, c)| c.x.last().copied()).fold(1e-9, f64::max);
    let ymax = series
        .iter()
        .flat_map(|(_, c)| c.mean.iter().zip(&c.se).map(|(m, s)| m + 1.96 * s))
        .fold(1e-9, f64::max)
        * 1.08;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..xmax * 1.02, 0f64..ymax)
        .map_err(plot_err)?;
    chart.configure_mesh().x_desc(x_desc).y_desc("mean gain collected").light_line_style(WHITE.mix(0.0)).draw().map_err(plot_err)?;
    for &(i, c) in series {
        let (col, w) = series_style(i);
        let upper: Vec<(f64, f64)> = c.x.iter().zip(c.mean.iter().zip(&c.se)).map(|(&x, (&m, &s))| (x, m + 1.96 * s)).collect();
        let lower: Vec<(f64, f64)> = c.x.iter().zip(c.mean.iter().zip(&c.se)).map(|(&x, (&m, &s))| (x, (m - 1.96 * s).max(0.0))).rev().collect();
        let band: Vec<(f64, f64)> = upper.into_iter().chain(lower).collect();
        chart.draw_series([Polygon::new(band, col.mix(0.22).filled())]).map_err(plot_err)?;
        chart.draw_series(LineSeries::new(c.x.iter().copied().zip(c.mean.iter().copied()), col.stroke_width(w))).map_err(plot_err)?;
    }
    Ok(())
}

/// Gain over time and over effort (mean, 95 % band) per system: one row per profile.
pub fn curves_svg(s: &RunSummary) -> Result<String> {
    let (systems, profiles) = names(s);
    let mut svg = String::new();
    {
        let rows = profiles.len().max(1);
        let root = SVGBackend::with_string(&mut svg, (1100, 340 * rows as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plots, legend_area) = root.split_horizontally(900);
        legend(&legend_area, &systems)?;
        let areas = plots.split_evenly((rows, 2));
        for (p, profile) in profiles.iter().enumerate() {
            let pooled: Vec<&PooledSummary> = s.pooled.iter().filter(|x| &x.summary.profile == profile).collect();
            let idx = |x: &PooledSummary| systems.iter().position(|n| *n == x.summary.system).unwrap_or(0);
            let time: Vec<(usize, &Curve)> = pooled.iter().map(|x| (idx(x), &x.time_curve)).collect();
            let effort: Vec<(usize, &Curve)> = pooled.iter().map(|x| (idx(x), &x.effort_curve)).collect();
            band_chart(&areas[2 * p], &format!("{profile}: gain over time (95 % band)"), "time spent (seconds)", &time)?;
            band_chart(&areas[2 * p + 1], &format!("{profile}: gain over effort (95 % band)"), "effort spent (weighted actions)", &effort)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdf_steps_reach_one_and_mark_jumps() {
        let pts = ecdf_steps(&[(1.0, 1), (2.0, 3)], 100);
        assert_eq!(pts, vec![(1.0, 0.0), (1.0, 0.25), (2.0, 0.25), (2.0, 1.0)]);
    }
}

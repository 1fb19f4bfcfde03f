//! SVG plots (plotters, SVG backend only).

use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::simulate::CellSamples;
use crate::user::UserProfile;
use plotters::prelude::*;

/// Wraps a plotters failure as an [`Error`].
pub fn plot_err<E: std::fmt::Display>(e: E) -> Error {
    Error::Invalid(format!("plotting failed: {e}"))
}

/// Up to `max_points` points of the ECDF of `xs` (pooled samples).
fn ecdf_points(mut xs: Vec<f64>, max_points: usize) -> Vec<(f64, f64)> {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let step = (n / max_points).max(1);
    let mut pts: Vec<(f64, f64)> = (0..n).step_by(step).map(|i| (xs[i], (i + 1) as f64 / n as f64)).collect();
    if let Some(&last) = xs.last() {
        pts.push((last, 1.0));
    }
    pts
}

/// ECDFs of effort and gain per system, pooled over topics: one row per profile.
pub fn ecdf_svg(c: &Collection, profiles: &[UserProfile], cells: &[CellSamples]) -> Result<String> {
    let mut svg = String::new();
    {
        let rows = profiles.len().max(1);
        let root = SVGBackend::with_string(&mut svg, (1000, 320 * rows as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let areas = root.split_evenly((rows, 2));
        for (p, profile) in profiles.iter().enumerate() {
            for (col, (measure, label)) in [(0usize, "effort"), (2usize, "gain")].into_iter().enumerate() {
                let area = &areas[p * 2 + col];
                let series: Vec<(String, Vec<(f64, f64)>)> = c
                    .systems
                    .iter()
                    .enumerate()
                    .map(|(s, sys)| {
                        let xs: Vec<f64> = cells
                            .iter()
                            .filter(|x| x.system == s && x.profile == p)
                            .flat_map(|x| x.outcomes.iter().map(|o| o.measure(measure)))
                            .collect();
                        (sys.name.clone(), if xs.is_empty() { Vec::new() } else { ecdf_points(xs, 400) })
                    })
                    .collect();
                let (lo, hi) = series.iter().flat_map(|(_, v)| v.iter().map(|p| p.0)).fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                let (lo, hi) = if lo > hi { (0.0, 1.0) } else if lo == hi { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
                let mut chart = ChartBuilder::on(area)
                    .caption(format!("{}: {label} (ECDF over topics and replicates)", profile.name), ("sans-serif", 16))
                    .margin(12)
                    .x_label_area_size(32)
                    .y_label_area_size(40)
                    .build_cartesian_2d(lo..hi, 0f64..1f64)
                    .map_err(plot_err)?;
                chart.configure_mesh().x_desc(label).y_desc("P(X <= x)").draw().map_err(plot_err)?;
                for (i, (name, pts)) in series.into_iter().enumerate() {
                    let color = Palette99::pick(i).to_rgba();
                    chart
                        .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                        .map_err(plot_err)?
                        .label(name)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
                }
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::LowerRight)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(plot_err)?;
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

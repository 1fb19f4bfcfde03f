//! ROC plot (SVG, plotters) of BARACO's P(safe) against the MT estimated difference.

use crate::error::Result;
use crate::stats::{roc_auc, roc_points};
use crate::write::plot::{fit, legend, plot_err, y_area, Ticks, DESC_FONT, OKABE_ITO, TICK_FONT};
use plotters::prelude::*;

/// ROC curves for BARACO (score P(safe), i.e. delta swept over [0, 1]) and, when `mt_diff` is
/// not empty, for MT (score M^_c - M^_p, i.e. m swept), against the truth labels `safe`.
pub fn roc_svg(title: &str, p_safe: &[f64], mt_diff: &[f64], safe: &[bool]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        // The legend in its own strip below the plot, never over a curve.
        let (plot, legend_area) = root.split_vertically(520);
        let ticks = Ticks { lo: 0.0, hi: 1.0, points: (0..=5).map(|i| i as f64 / 5.0).collect(), step: 0.2 };
        let mut chart = ChartBuilder::on(&plot)
            .caption(fit(title, 530.0, 18.0), ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(y_area(&ticks))
            .build_cartesian_2d(ticks.range(), ticks.range())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|x| ticks.label(*x))
            .y_label_formatter(&|y| ticks.label(*y))
            .label_style(("sans-serif", TICK_FONT))
            .axis_desc_style(("sans-serif", DESC_FONT))
            .x_desc("false positive rate")
            .y_desc("true positive rate")
            .draw()
            .map_err(plot_err)?;
        chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.3))).map_err(plot_err)?;
        let mut series = vec![("BARACO", p_safe, OKABE_ITO[0])];
        if !mt_diff.is_empty() {
            series.push(("MT (m swept)", mt_diff, OKABE_ITO[1]));
        }
        let mut entries = Vec::new();
        for (name, scores, color) in series {
            let auc = roc_auc(scores, safe);
            chart.draw_series(LineSeries::new(roc_points(scores, safe), color.stroke_width(2))).map_err(plot_err)?;
            entries.push((format!("{name} (AUC = {auc:.3})"), color, 2));
        }
        let (left, right) = legend_area.split_horizontally(300);
        legend(&left, "Decision score", &entries, &[])?;
        legend(&right, "", &[], &["Grey diagonal: a score no better than chance.".to_string()])?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

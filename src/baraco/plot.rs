//! ROC plot (SVG, plotters) of BARACO's P(safe) against the MT estimated difference.

use crate::error::Result;
use crate::report::plot_err;
use crate::stats::{roc_auc, roc_points};
use plotters::prelude::*;

/// ROC curves for BARACO (score P(safe), i.e. delta swept over [0, 1]) and, when `mt_diff` is
/// not empty, for MT (score M^_c - M^_p, i.e. m swept), against the truth labels `safe`.
pub fn roc_svg(title: &str, p_safe: &[f64], mt_diff: &[f64], safe: &[bool]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(0f64..1f64, 0f64..1f64)
            .map_err(plot_err)?;
        chart.configure_mesh().x_desc("false positive rate").y_desc("true positive rate").draw().map_err(plot_err)?;
        chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.3))).map_err(plot_err)?;
        let mut series = vec![("BARACO", p_safe, BLUE.to_rgba())];
        if !mt_diff.is_empty() {
            series.push(("MT (m swept)", mt_diff, RED.to_rgba()));
        }
        for (name, scores, color) in series {
            let auc = roc_auc(scores, safe);
            chart
                .draw_series(LineSeries::new(roc_points(scores, safe), color.stroke_width(2)))
                .map_err(plot_err)?
                .label(format!("{name} (AUC = {auc:.3})"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

//! SVG plot primitives below every module that draws (plotters, SVG backend only): the
//! Okabe-Ito colour-blind-safe palette, the house fonts, text widths for DejaVu Sans (wider
//! than the usual browser sans-serif fonts) with fitting and wrapping, axis ticks spaced so
//! that their labels never touch, the one chart set-up and legends in their own panel. The
//! report's plots (`report`), the click-model validation plots (`clickmodels::validate`) and
//! BARACO's (`baraco::plot`) draw with them; nothing here knows what is plotted.

use crate::error::{Error, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Font size (plotters units) of tick labels.
pub const TICK_FONT: f64 = 13.0;
/// Font size of axis descriptions.
pub const DESC_FONT: f64 = 14.0;
/// Font size of panel captions.
pub const CAPTION_FONT: f64 = 15.0;

/// Pixel size of a plotters font size (its SVG backend writes `size / 1.24`).
pub(crate) fn px(size: f64) -> f64 {
    size / 1.24
}

/// Width in pixels of `s` in a `size` font, erring wide: DejaVu Sans advance widths rounded
/// up by class (browsers' default sans-serif fonts are narrower).
pub fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'm' | 'w' | 'M' | 'W' | '…' | '%' => 1.0,
            ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'i' | 'l' | 'j' | '(' | ')' | '[' | ']' | 'f' | 't' | 'r' | 'I' => 0.45,
            c if c.is_uppercase() => 0.82,
            _ => 0.66,
        })
        .sum();
    em * px(size)
}

/// `s`, cut with an ellipsis where needed to fit `width` pixels in a `size` font.
pub fn fit(s: &str, width: f64, size: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().collect();
    while !out.is_empty() && text_width(&format!("{out}…"), size) > width {
        out.pop();
    }
    format!("{}…", out.trim_end())
}

/// `head: tail` fitted to `width` pixels in a `size` font, cutting `head` (a long name) so
/// that `tail` (what the panel shows) stays whole.
pub fn caption(head: &str, tail: &str, width: f64, size: f64) -> String {
    let tail = format!(": {tail}");
    let room = (width - text_width(&tail, size)).max(text_width("ab…", size));
    format!("{}{tail}", fit(head, room, size))
}

/// `s` broken into lines of at most `width` pixels in a `size` font (at spaces; a word too
/// long for a line is cut).
pub fn wrap(s: &str, width: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in s.split_whitespace() {
        let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        if text_width(&candidate, size) <= width || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.into_iter().map(|l| fit(&l, width, size)).collect()
}

/// Tick positions of an axis: multiples of a 1, 2 or 5 x 10^k step, as many as fit without
/// their labels touching.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    /// Lower end of the axis.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Tick positions.
    pub points: Vec<f64>,
    /// Distance between ticks.
    pub step: f64,
}

impl Ticks {
    /// Ticks for `lo..hi` drawn over `pixels` pixels, horizontal (labels side by side) or
    /// vertical (labels stacked); `integer`: only whole-number steps (count data).
    pub fn new(lo: f64, hi: f64, pixels: f64, horizontal: bool, integer: bool) -> Ticks {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo { (lo, hi) } else { (0.0, 1.0) };
        let range = hi - lo;
        let first = (range.log10().floor() - 3.0) as i32;
        let mut fallback = None;
        for k in first..first + 12 {
            for m in [1.0, 2.0, 5.0] {
                let step = m * 10f64.powi(k);
                if integer && step < 1.0 {
                    continue;
                }
                let t = Ticks::with_step(lo, hi, step);
                if t.points.len() > 11 {
                    continue;
                }
                fallback.get_or_insert_with(|| t.clone());
                let gap = pixels * step / range;
                let need = if horizontal {
                    t.points.iter().map(|&x| text_width(&t.label(x), TICK_FONT)).fold(0.0, f64::max) + px(TICK_FONT)
                } else {
                    px(TICK_FONT) * 1.7
                };
                if gap >= need {
                    return t;
                }
            }
        }
        let mut t = fallback.unwrap_or_else(|| Ticks::with_step(lo, hi, range));
        t.points.truncate(1);
        t
    }

    fn with_step(lo: f64, hi: f64, step: f64) -> Ticks {
        let mut points = Vec::new();
        let mut i = (lo / step - 1e-9).ceil();
        while i * step <= hi + 1e-9 * step && points.len() < 1000 {
            points.push(i * step);
            i += 1.0;
        }
        Ticks { lo, hi, points, step }
    }

    /// The tick label of `x`: as many decimals as the step needs ("4", not "4.0").
    pub fn label(&self, x: f64) -> String {
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        let s = format!("{x:.decimals$}");
        if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            s.trim_start_matches('-').to_string()
        } else {
            s
        }
    }

    /// The widest label, in pixels.
    pub fn label_width(&self) -> f64 {
        self.points.iter().map(|&x| text_width(&self.label(x), TICK_FONT)).fold(0.0, f64::max)
    }

    /// The axis range with these ticks as its key points.
    pub fn range(&self) -> TickRange {
        TickRange { inner: (self.lo..self.hi).into(), points: self.points.clone() }
    }
}

/// An f64 axis whose key points are given ticks (no light lines); labels come from the chart's
/// label formatter ([`Ticks::label`]).
#[derive(Clone)]
pub struct TickRange {
    inner: RangedCoordf64,
    points: Vec<f64>,
}

impl Ranged for TickRange {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.points.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// Width of a y label area for `ticks` with a rotated axis description.
pub fn y_area(ticks: &Ticks) -> u32 {
    (ticks.label_width() + 18.0 + px(DESC_FONT) * 1.6).ceil() as u32
}

/// A chart on `area` in the house style: a caption, the ticks `xt` and `yt` with their labels
/// ([`Ticks::label`]), the tick and description fonts, the axis descriptions; `light_lines`
/// false hides plotters' light grid lines. The one mesh set-up of every plot.
pub fn ticked_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    (caption, caption_size): (&str, f64),
    margin: u32,
    (xt, yt): (&Ticks, &Ticks),
    (x_desc, y_desc): (&str, &str),
    light_lines: bool,
) -> Result<ChartContext<'a, SVGBackend<'b>, Cartesian2d<TickRange, TickRange>>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", caption_size))
        .margin(margin)
        .x_label_area_size(44)
        .y_label_area_size(y_area(yt))
        .build_cartesian_2d(xt.range(), yt.range())
        .map_err(plot_err)?;
    let x_label = |x: &f64| xt.label(*x);
    let y_label = |y: &f64| yt.label(*y);
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(xt.points.len())
        .y_labels(yt.points.len())
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", DESC_FONT))
        .x_desc(x_desc)
        .y_desc(y_desc);
    if !light_lines {
        mesh.light_line_style(WHITE.mix(0.0));
    }
    mesh.draw().map_err(plot_err)?;
    Ok(chart)
}

/// A `size` sans-serif text style anchored at its vertical centre, left or right.
pub fn anchored(size: f64, h: HPos, bold: bool) -> TextStyle<'static> {
    let font = ("sans-serif", size).into_font();
    TextStyle::from(if bold { font.style(FontStyle::Bold) } else { font }).pos(Pos::new(h, VPos::Center))
}

/// A legend in its own panel: a title (if any), one line per series (its line style and name, cut to
/// the panel), then `notes` wrapped to the panel.
pub fn legend(area: &DrawingArea<SVGBackend, Shift>, title: &str, series: &[(String, RGBColor, u32)], notes: &[String]) -> Result<()> {
    let width = area.dim_in_pixel().0 as f64 - 16.0;
    let mut y = 20;
    if !title.is_empty() {
        area.draw(&Text::new(fit(title, width, 15.0), (8, y), anchored(15.0, HPos::Left, true))).map_err(plot_err)?;
        y += 26;
    }
    for (name, c, w) in series {
        area.draw(&PathElement::new(vec![(8, y), (34, y)], c.stroke_width(w + 1))).map_err(plot_err)?;
        area.draw(&Text::new(fit(name, width - 34.0, 13.0), (40, y), anchored(13.0, HPos::Left, false))).map_err(plot_err)?;
        y += 22;
    }
    y += 8;
    for note in notes {
        for line in wrap(note, width, 12.0) {
            area.draw(&Text::new(line, (8, y), anchored(12.0, HPos::Left, false))).map_err(plot_err)?;
            y += 16;
        }
        y += 6;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_spaced_and_integer_for_counts() {
        // Hand: a 13-unit font is 10.48 px; "300" is 3 x 0.66 x 10.48 = 20.8 px wide, plus a
        // gap of one font size, 31.2 px a label. 0..300 over 270 px: steps of 50 are 45 px
        // apart (fit; 20 would make 16 ticks, over the 11 allowed). Over 150 px: 50 is 25 px
        // apart (too close), 100 is 50 px.
        let t = Ticks::new(0.0, 300.0, 270.0, true, false);
        assert_eq!(t.step, 50.0);
        assert_eq!(t.points, vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0]);
        assert_eq!(t.label(100.0), "100");
        assert_eq!(Ticks::new(0.0, 300.0, 150.0, true, false).step, 100.0);
        // Counts 0..3 over a wide axis: steps of 1, never 0.5.
        let t = Ticks::new(0.0, 3.0, 1000.0, true, true);
        assert_eq!((t.step, t.label(2.0)), (1.0, "2".to_string()));
        let t = Ticks::new(0.0, 3.0, 1000.0, true, false);
        assert_eq!((t.step, t.label(0.5)), (0.5, "0.5".to_string()));
        // Vertical: 0..1 over 100 px takes labels 1.7 x 10.5 px = 18 px apart: step 0.2 (20 px).
        let t = Ticks::new(0.0, 1.0, 100.0, false, false);
        assert_eq!(t.step, 0.2);
        assert_eq!(t.label(0.6000000000000001), "0.6");
        assert_eq!(Ticks { lo: -1.0, hi: 1.0, points: vec![], step: 0.5 }.label(-0.0), "0.0");
    }

    #[test]
    fn text_fits_and_wraps() {
        let long = "a profile name far too long for a legend panel";
        let f = fit(long, 100.0, 13.0);
        assert!(f.ends_with('…') && text_width(&f, 13.0) <= 100.0, "{f}");
        assert_eq!(fit("short", 100.0, 13.0), "short");
        assert_eq!(wrap("one two three", 60.0, 12.0), vec!["one two", "three"]);
        let c = caption(long, "gain over time", 200.0, 15.0);
        assert!(c.ends_with("…: gain over time") && text_width(&c, 15.0) <= 200.0, "{c}");
    }
}

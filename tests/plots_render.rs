//! Rendering test of every plot kind serpsim writes: each SVG, made from small project-made
//! inputs, is laid out by usvg (the parser and text layout of the `resvg` renderer) with the
//! DejaVu Sans font of Debian's `fonts-dejavu-core`, loaded by path (no system font lookup, so
//! the layout is the same on every machine). Every text element must be laid out (none dropped
//! for want of a font), stay inside the canvas, and not overlap any other text element.
//!
//! A missing font fails the test (`scripts/test.sh` installs the package).

use resvg::usvg;
use std::path::Path;
use std::sync::Arc;

/// Where Debian's `fonts-dejavu-core` puts its fonts.
const FONT_DIR: &str = "/usr/share/fonts/truetype/dejavu";

fn options() -> usvg::Options<'static> {
    let mut db = usvg::fontdb::Database::new();
    for file in ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"] {
        let path = Path::new(FONT_DIR).join(file);
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}: install Debian's fonts-dejavu-core (scripts/test.sh does)", path.display()));
        db.load_font_data(data);
    }
    assert_eq!(db.len(), 2, "two DejaVu faces loaded");
    db.set_sans_serif_family("DejaVu Sans");
    let mut opt = usvg::Options { font_family: "DejaVu Sans".into(), ..usvg::Options::default() };
    opt.fontdb = Arc::new(db);
    opt
}

/// A laid-out text element: its characters and its text box in canvas coordinates.
#[derive(Debug, Clone)]
struct Label {
    text: String,
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

fn collect(g: &usvg::Group, out: &mut Vec<Label>) {
    for node in g.children() {
        match node {
            usvg::Node::Group(g) => collect(g, out),
            usvg::Node::Text(t) => {
                // The text box (advance widths by line height), in canvas coordinates: what a
                // reader sees as the label's extent, wider than the glyphs' ink.
                let r = t.abs_bounding_box();
                let text: String = t.chunks().iter().map(|c| c.text()).collect::<Vec<_>>().join("");
                out.push(Label { text: text.trim().to_string(), x0: r.left(), y0: r.top(), x1: r.right(), y1: r.bottom() });
            }
            _ => {}
        }
    }
}

/// Every problem with the text of `svg`: text elements dropped by the layout, text outside the
/// canvas, and pairs of overlapping text boxes (a shared edge or corner is not an overlap).
fn text_problems(name: &str, svg: &str) -> Vec<String> {
    let tree = usvg::Tree::from_str(svg, &options()).unwrap_or_else(|e| panic!("{name}: not a valid SVG: {e}"));
    let mut labels = Vec::new();
    collect(tree.root(), &mut labels);
    let mut problems = Vec::new();
    let elements = svg.matches("<text").count();
    if elements == 0 || labels.len() != elements {
        problems.push(format!("{name}: {elements} <text> elements but {} laid out", labels.len()));
    }
    let (w, h) = (tree.size().width(), tree.size().height());
    const EPS: f32 = 0.01;
    for l in &labels {
        if l.x0 < -EPS || l.y0 < -EPS || l.x1 > w + EPS || l.y1 > h + EPS {
            problems.push(format!("{name}: `{}` at [{:.1}, {:.1}]-[{:.1}, {:.1}] leaves the {w}x{h} canvas", l.text, l.x0, l.y0, l.x1, l.y1));
        }
    }
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            let ox = a.x1.min(b.x1) - a.x0.max(b.x0);
            let oy = a.y1.min(b.y1) - a.y0.max(b.y0);
            if ox > EPS && oy > EPS {
                problems.push(format!(
                    "{name}: `{}` [{:.1}, {:.1}]-[{:.1}, {:.1}] overlaps `{}` [{:.1}, {:.1}]-[{:.1}, {:.1}]",
                    a.text, a.x0, a.y0, a.x1, a.y1, b.text, b.x0, b.y0, b.x1, b.y1
                ));
            }
        }
    }
    problems
}

/// Asserts that `svg` has no text problems, and renders it with resvg: the picture must not be
/// blank. With `SERPSIM_PLOT_PNG` set to a folder, the PNG is saved there for a look.
fn assert_readable(name: &str, svg: &str) {
    let p = text_problems(name, svg);
    assert!(p.is_empty(), "{} text problems:\n{}", p.len(), p.join("\n"));
    let tree = usvg::Tree::from_str(svg, &options()).unwrap();
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let drawn = pixmap.pixels().iter().filter(|p| p.alpha() > 0 && (p.red() < 250 || p.green() < 250 || p.blue() < 250)).count();
    assert!(drawn > 1000, "{name}: only {drawn} pixels drawn");
    if let Some(dir) = std::env::var_os("SERPSIM_PLOT_PNG") {
        let file: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
        pixmap.save_png(Path::new(&dir).join(format!("{file}.png"))).unwrap();
    }
}

/// Runs scenario `toml` (a synthetic collection unless it says otherwise) into a temporary
/// folder and returns each report plot's SVG by file name.
fn report_plots(toml: &str, replicates: u64) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let mut scenario = serpsim::scenario::Scenario::parse(toml, "test scenario").unwrap();
    scenario.replicates = replicates;
    let overrides = serpsim::scenario::Overrides { out: Some(dir.path().to_path_buf()), ..Default::default() };
    serpsim::run::run_scenario(scenario, Path::new("."), &overrides, &|_, _| {}).unwrap();
    let mut out = Vec::new();
    for f in ["distributions.svg", "gain_curves.svg", "differences.svg"] {
        let path = dir.path().join(f);
        assert!(path.exists(), "{f} written");
        out.push((f.to_string(), std::fs::read_to_string(path).unwrap()));
    }
    out
}

/// A synthetic scenario: `topics` topics, `systems` rankers of graded quality, two profiles
/// (one with a long name), seed `seed`.
fn synthetic(topics: usize, systems: usize, seed: u64) -> String {
    let systems: Vec<String> =
        (0..systems).map(|i| format!("{{ name = \"ranker-{i}\", ndcg = [{:.2}, {:.2}] }}", 0.7 - 0.1 * i as f64, 0.8 - 0.1 * i as f64)).collect();
    format!(
        r#"name = "render"
seed = {seed}
replicates = 20
[collection]
source = "synthetic"
topics = {topics}
docs_per_topic = 60
relevant_share = 0.1
grade_weights = [0.7, 0.3]
systems = [{}]
seed = 3
page_size = 10
[[profiles]]
name = "a searcher with a rather long profile name that no panel can hold whole"
continuation = {{ model = "fixed", depth = 1000 }}
stopping = [{{ rule = "total_nonrelevant", n = 10 }}, {{ rule = "time_budget", seconds = 300.0 }}]
clicks = {{ click = [0.3, 0.7, 0.9], stop = [0.0], mark = [0.1, 0.8, 0.9] }}
gain = {{ model = "graded", gains = [0.0, 1.0, 3.0] }}
[[profiles]]
name = "find-one"
continuation = {{ model = "exponential", lambda = 0.1 }}
stopping = [{{ rule = "satisfaction", k = 1 }}]
clicks = {{ click = [0.2, 0.9], stop = [0.0, 0.6], mark = [0.0, 1.0] }}
"#,
        systems.join(", ")
    )
}

/// The default scenario (50 topics, 2 systems, 2 profiles): the plots of `serpsim
/// simulate` with no arguments.
#[test]
fn default_run_plots_are_readable() {
    let default = serpsim::scenario::Scenario::embedded_default();
    let dir = tempfile::tempdir().unwrap();
    let overrides = serpsim::scenario::Overrides { out: Some(dir.path().to_path_buf()), replicates: Some(500), ..Default::default() };
    serpsim::run::run_scenario(default, Path::new("."), &overrides, &|_, _| {}).unwrap();
    for f in ["distributions.svg", "gain_curves.svg", "differences.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_readable(f, &svg);
    }
}

/// Many topics (120: thin rows, every k-th topic labelled), three systems (three pairs per
/// profile), long profile names.
#[test]
fn many_topics_plots_are_readable() {
    for (f, svg) in report_plots(&synthetic(120, 3, 5), 10) {
        assert_readable(&f, &svg);
        if f == "differences.svg" {
            // Six panels (2 profiles x 3 pairs), each with a mean over the 120 topics.
            assert_eq!(svg.matches("mean of 120 topics").count(), 6, "{f}");
        }
    }
}

/// More profile and system pairs than panels (2 profiles x 10 pairs = 20 > 12): the rest are
/// named in a note.
#[test]
fn many_pairs_plots_are_readable() {
    for (f, svg) in report_plots(&synthetic(8, 5, 6), 10) {
        assert_readable(&f, &svg);
        if f == "differences.svg" {
            assert!(svg.contains("8 more profile and system pairs not drawn"), "{f}");
        }
    }
}

/// More profiles than rows (a sweep: 2 profiles x 7 depths = 14 > 12): the per-profile plots
/// draw 12 and say so in their legend, without overlapping text.
#[test]
fn many_profiles_plots_are_readable_and_say_what_is_left_out() {
    let depths: Vec<String> = (1..=7).map(|d| format!("{{ model = \"fixed\", depth = {d} }}")).collect();
    let toml = format!("{}\n[[sweep]]\nkey = \"continuation\"\nvalues = [{}]\n", synthetic(6, 2, 9), depths.join(", "));
    for (f, svg) in report_plots(&toml, 10) {
        assert_readable(&f, &svg);
        if f != "differences.svg" {
            assert!(svg.contains("12 of 14 profiles drawn"), "{f}");
        }
    }
}

/// One topic: no band and no interval over topics, and the plots say so.
#[test]
fn one_topic_plots_are_readable_and_say_there_is_no_band() {
    for (f, svg) in report_plots(&synthetic(1, 2, 7), 50) {
        assert_readable(&f, &svg);
        match f.as_str() {
            "gain_curves.svg" => assert!(svg.contains("no band: 1 topic") && !svg.contains("<polygon"), "{f}"),
            "differences.svg" => assert!(svg.contains("1 topic: no interval"), "{f}"),
            _ => {}
        }
    }
}

/// Click-model validation (`serpsim clicks validate`, `serpsim study`): a DBN against the
/// sessions it generated, with dwell times.
#[test]
fn validation_plot_is_readable() {
    use serpsim::clickmodels::validate::{plot_svg, validate, Dwell, ValidateConfig};
    use serpsim::clickmodels::{ClickModel, Dbn};
    let n = 20;
    let truth = Dbn { attractiveness: (0..n).map(|i| 0.2 + 0.6 * (i % 5) as f64 / 5.0).collect(), satisfaction: vec![0.6; n], gamma: 0.8 };
    let mut test = serpsim::logs::ClickLog::new();
    let mut clicks = Vec::new();
    let mut rng = serpsim::rng::stream(1, &[]);
    let mut dwell_test = Vec::new();
    for i in 0..2_000u32 {
        let q = i % 2;
        let pairs: Vec<u32> = (0..10).map(|r| q * 10 + (r + i / 2 % 3) % 10).collect();
        truth.simulate(&pairs, &mut rng, &mut clicks);
        test.push(q, &pairs, &clicks);
        dwell_test.push(clicks.iter().enumerate().map(|(r, &c)| if c { 10.0 + (i % 7) as f64 * 5.0 + r as f64 } else { f64::NAN }).collect());
    }
    let dwell = Dwell { test: dwell_test, train_by_rank: (0..10).map(|r| (0..50).map(|k| 5.0 + k as f64 + r as f64).collect()).collect() };
    let cfg = ValidateConfig { replicates: 2, bootstrap: 50, ..Default::default() };
    let v = validate(&truth, &test, Some(&dwell), &cfg).unwrap();
    assert!(v.measures.iter().any(|m| m.measure == "dwell"), "the dwell panel is drawn");
    assert_readable("validation.svg", &plot_svg(&v, "DBN (trained on 2,000 sessions) against its own test sessions").unwrap());
}

/// BARACO's ROC (`serpsim compare-rankers`), with and without the MT curve.
#[test]
fn roc_plot_is_readable() {
    // Scores that rank safe cases higher, with overlap: a seeded pattern.
    let safe: Vec<bool> = (0..60).map(|i| i % 3 != 0).collect();
    let p: Vec<f64> = (0..60).map(|i| if i % 3 != 0 { 0.4 + 0.01 * (i % 50) as f64 } else { 0.1 + 0.012 * (i % 45) as f64 }).collect();
    let mt: Vec<f64> = (0..60).map(|i| ((i * 37) % 60) as f64 / 60.0 - 0.5).collect();
    let roc = serpsim::baraco::plot::roc_svg;
    assert_readable("roc.svg", &roc("BARACO switching decision: ROC over delta", &p, &mt, &safe).unwrap());
    assert_readable("roc.svg (BARACO only)", &roc("BARACO switching decision: ROC over delta", &p, &[], &safe).unwrap());
}

/// The sessions sweep's depth-rate plot (`serpsim sessions run`): two query sets, three rules,
/// three thresholds (six lines).
#[test]
fn depth_rate_plot_is_readable() {
    use serpsim::collection::queries::{QueryStrategy, SyntheticQueries};
    use serpsim::presets::sessions::model::SessionConfig;
    use serpsim::presets::sessions::sweep::{depth_rate_svg, grid, paper_rules, run_points, QuerySet};
    let g = SyntheticQueries { topics: 3, docs_per_topic: 200, relevant_per_topic: 30, queries_per_strategy: 6, list_length: 40, ..Default::default() };
    let sets: Vec<QuerySet> =
        [QueryStrategy::Qs1, QueryStrategy::Qs3].iter().map(|&s| QuerySet { label: s.name().into(), topics: g.generate(s).unwrap() }).collect();
    let points = grid(2, &paper_rules(), &[1, 3, 10], &SessionConfig::default());
    let results = run_points(&sets, &points, 20, 9, &|_, _| {}).unwrap();
    assert_readable("depth_vs_rate.svg", &depth_rate_svg(&results).unwrap());
}

/// The sublists sweep's Fig. 6 (`serpsim sublists sweep`): one panel per task.
#[test]
fn sublists_fig6_is_readable() {
    use serpsim::collection::categories::SublistSyntheticConfig;
    use serpsim::presets::sublists::collection::topics_from_collection;
    use serpsim::presets::sublists::sweep::{fig6_svg, run_sweep, SweepGrid};
    let mut cfg = SublistSyntheticConfig::default();
    cfg.collection.topics = 3;
    cfg.collection.docs_per_topic = 120;
    let topics = topics_from_collection(&cfg.generate().unwrap(), 0).unwrap();
    let mut grid = SweepGrid::paper(7);
    grid.replicates = 20;
    let cells = run_sweep(&topics, &grid, &|_, _| {}).unwrap();
    assert_readable("fig6.svg", &fig6_svg(&grid, &cells).unwrap());
}

//! Relevance labels of a click log's own (query, document) pairs, in the layouts public
//! click-model datasets ship them in, for `clicks fit --labels FILE --label-format FMT`
//! (the per-grade fit of [`super::portable`]).
//!
//! Formats (column numbers are 1-based):
//!
//! | name | layout | query id | document | label |
//! |---|---|---|---|---|
//! | `trec` | TREC qrels, `topic iteration docno grade`, whitespace | 1 | 3 | 4 |
//! | `yandex` | Yandex relevance-prediction challenge (WSCD 2011/2012) labels, `QueryID<TAB>RegionID<TAB>URLID<TAB>Label` | `QueryID_RegionID` (as serpsim's Yandex log readers name queries) | 3 | 4 |
//! | `tiangong` | TianGong-ST `human_label.txt`, `id task query result relevance`, whitespace | 3 | 4 | 5 |
//! | `tsv`, `csv`, `whitespace` | delimited, columns given by [`Delimited`] (`--label-columns query=1,doc=3,label=6`, optional `region=2`) | | | |
//!
//! What the reader decides, and says ([`LabelSummary::notes`], the model file's `labels`):
//!
//! - **unjudged value** (`--unjudged V`): lines with label `V` are skipped and counted; their
//!   documents stay unjudged (fitted apart, not grade 0) unless `--unjudged-grade G` says they
//!   are grade `G`. Without `--unjudged` every label is a grade; negative labels are then
//!   pointed out.
//! - **conflicting labels** for the same (query, document): the majority label; a tie goes to
//!   the lowest of the tied grades. The number of such pairs is reported.
//! - **grade scale**: the distinct grades of the file; `--grade-map 0:0,1:1,2:1,3:2,4:2`
//!   rewrites the (majority) grades onto another scale, and every grade of the file must be
//!   mapped.
//!
//! The file is streamed line by line; a bad line is a `file:line: reason` error.

use crate::collection::trec::{parse_qrels_line, Qrels};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// Query resamples of the per-grade intervals when not told (`clicks fit --grade-bootstrap`).
pub const DEFAULT_GRADE_BOOTSTRAP: usize = 200;

/// How the fields of a delimited label file are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    /// One TAB.
    Tab,
    /// One comma (no quoted fields).
    Comma,
    /// Runs of spaces and TABs.
    Whitespace,
}

impl Separator {
    fn name(self) -> &'static str {
        match self {
            Separator::Tab => "tsv",
            Separator::Comma => "csv",
            Separator::Whitespace => "whitespace",
        }
    }
}

/// A delimited layout: which columns hold the query id, an optional region (appended to the
/// query id as `query_region`), the document id and the label. Columns are stored 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delimited {
    /// Field separator.
    pub sep: Separator,
    /// Query id column.
    pub query: usize,
    /// Region column, appended to the query id with `_`.
    pub region: Option<usize>,
    /// Document id column.
    pub doc: usize,
    /// Label column.
    pub label: usize,
    /// Exact number of fields a line must have (named formats); `None`: at least the largest
    /// column.
    pub fields: Option<usize>,
    /// The first non-blank line is a header, skipped.
    pub header: bool,
}

impl Delimited {
    /// Parses `query=1,doc=3,label=6[,region=2]` for separator `sep`.
    pub fn parse(sep: Separator, spec: &str) -> Result<Self> {
        let bad = |why: String| {
            Error::Invalid(format!("--label-columns `{spec}`: {why} (expected e.g. `query=1,doc=3,label=6`, optional `region=2`; columns count from 1)"))
        };
        let (mut query, mut region, mut doc, mut label) = (None, None, None, None);
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| bad(format!("`{part}` is not key=column")))?;
            let col: usize = v.trim().parse().ok().filter(|&c| c >= 1).ok_or_else(|| bad(format!("column `{}` is not a number from 1", v.trim())))?;
            let slot = match k.trim() {
                "query" => &mut query,
                "region" => &mut region,
                "doc" | "document" => &mut doc,
                "label" | "grade" | "relevance" => &mut label,
                other => return Err(bad(format!("unknown key `{other}`"))),
            };
            if slot.replace(col).is_some() {
                return Err(bad(format!("`{}` is given twice", k.trim())));
            }
        }
        let (Some(query), Some(doc), Some(label)) = (query, doc, label) else {
            return Err(bad("query, doc and label are needed".into()));
        };
        let mut cols = vec![query, doc, label];
        cols.extend(region);
        let mut sorted = cols.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != cols.len() {
            return Err(bad("two keys name the same column".into()));
        }
        Ok(Delimited { sep, query, region, doc, label, fields: None, header: false })
    }

    fn max_column(&self) -> usize {
        self.query.max(self.doc).max(self.label).max(self.region.unwrap_or(0))
    }
}

/// A label file layout (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelFormat {
    /// TREC qrels.
    Trec,
    /// Yandex relevance-prediction challenge labels.
    Yandex,
    /// TianGong-ST `human_label.txt`.
    TianGong,
    /// Delimited, with explicit columns.
    Delimited(Delimited),
}

/// The format names `--label-format` accepts.
pub const FORMAT_NAMES: &str = "trec, yandex, tiangong, tsv, csv, whitespace";

impl LabelFormat {
    /// The format `name`, with `columns` (`--label-columns`) for the delimited ones and
    /// `header` (skip the first line) for them only.
    pub fn new(name: &str, columns: Option<&str>, header: bool) -> Result<Self> {
        let sep = match name {
            "trec" | "yandex" | "tiangong" => {
                if columns.is_some() || header {
                    return Err(Error::Invalid(format!(
                        "--label-format {name} has fixed columns: --label-columns and --label-header go with tsv, csv or whitespace"
                    )));
                }
                return Ok(match name {
                    "trec" => LabelFormat::Trec,
                    "yandex" => LabelFormat::Yandex,
                    _ => LabelFormat::TianGong,
                });
            }
            "tsv" => Separator::Tab,
            "csv" => Separator::Comma,
            "whitespace" => Separator::Whitespace,
            other => return Err(Error::Invalid(format!("--label-format `{other}`: expected one of {FORMAT_NAMES}"))),
        };
        let spec = columns.ok_or_else(|| Error::Invalid(format!("--label-format {name} needs --label-columns, e.g. `query=1,doc=3,label=6`")))?;
        let mut d = Delimited::parse(sep, spec)?;
        d.header = header;
        Ok(LabelFormat::Delimited(d))
    }

    /// The columns of the format.
    fn layout(&self) -> Delimited {
        match *self {
            LabelFormat::Trec => Delimited { sep: Separator::Whitespace, query: 1, region: None, doc: 3, label: 4, fields: Some(4), header: false },
            LabelFormat::Yandex => Delimited { sep: Separator::Tab, query: 1, region: Some(2), doc: 3, label: 4, fields: Some(4), header: false },
            LabelFormat::TianGong => Delimited { sep: Separator::Whitespace, query: 3, region: None, doc: 4, label: 5, fields: Some(5), header: false },
            LabelFormat::Delimited(d) => d,
        }
    }

    fn expected(&self) -> &'static str {
        match self {
            LabelFormat::Trec => "`topic iteration docno grade`",
            LabelFormat::Yandex => "TAB-separated `QueryID RegionID URLID Label`",
            LabelFormat::TianGong => "`id task query result relevance`",
            LabelFormat::Delimited(_) => "the columns of --label-columns",
        }
    }
}

impl fmt::Display for LabelFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelFormat::Trec => f.write_str("trec"),
            LabelFormat::Yandex => f.write_str("yandex"),
            LabelFormat::TianGong => f.write_str("tiangong"),
            LabelFormat::Delimited(d) => {
                write!(f, "{}:query={}", d.sep.name(), d.query)?;
                if let Some(r) = d.region {
                    write!(f, ",region={r}")?;
                }
                write!(f, ",doc={},label={}", d.doc, d.label)?;
                if d.header {
                    f.write_str(",header")?;
                }
                Ok(())
            }
        }
    }
}

/// How to read a label file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelOptions {
    /// The layout.
    pub format: LabelFormat,
    /// The label that marks an unjudged document (`--unjudged`).
    pub unjudged: Option<i32>,
    /// The grade unjudged documents take instead of being skipped (`--unjudged-grade`).
    pub unjudged_grade: Option<i32>,
    /// `(file grade, grade)` pairs (`--grade-map`), applied after the majority vote.
    pub grade_map: Option<Vec<(i32, i32)>>,
}

impl LabelOptions {
    /// Options of `format` with nothing assumed (TREC qrels as `--qrels` reads them).
    pub fn new(format: LabelFormat) -> Self {
        LabelOptions { format, unjudged: None, unjudged_grade: None, grade_map: None }
    }

    /// With `--unjudged`, `--unjudged-grade` and `--grade-map` (`0:0,1:1,2:1`) checked.
    pub fn with(mut self, unjudged: Option<i32>, unjudged_grade: Option<i32>, grade_map: Option<&str>) -> Result<Self> {
        if unjudged_grade.is_some() && unjudged.is_none() {
            return Err(Error::Invalid("--unjudged-grade needs --unjudged (the label value that marks unjudged documents)".into()));
        }
        self.unjudged = unjudged;
        self.unjudged_grade = unjudged_grade;
        self.grade_map = grade_map.map(parse_grade_map).transpose()?;
        Ok(self)
    }
}

/// The label inputs of `clicks fit` as given, before they are checked: the CLI's flags and
/// Python's `serpsim.clicks.fit` keyword arguments go through [`LabelInputs::resolve`], so both
/// accept and refuse the same combinations.
#[derive(Debug, Clone, Copy, Default)]
pub struct LabelInputs<'a> {
    /// `--labels FILE`: a label file in the layout of `format`.
    pub labels: Option<&'a Path>,
    /// `--qrels FILE`: TREC qrels, the same as `--labels FILE --label-format trec`.
    pub qrels: Option<&'a Path>,
    /// `--label-format` (`None`: `trec`).
    pub format: Option<&'a str>,
    /// `--label-columns query=1,doc=3,label=6[,region=2]`.
    pub columns: Option<&'a str>,
    /// `--label-header`.
    pub header: bool,
    /// `--unjudged V`.
    pub unjudged: Option<i32>,
    /// `--unjudged-grade G`.
    pub unjudged_grade: Option<i32>,
    /// `--grade-map 0:0,1:1,2:1`.
    pub grade_map: Option<&'a str>,
    /// `--grade-bootstrap N` (`None`: [`DEFAULT_GRADE_BOOTSTRAP`]).
    pub grade_bootstrap: Option<usize>,
}

/// What [`LabelInputs::resolve`] makes of the inputs: the file to read, how, and the
/// bootstrap resamples of the per-grade intervals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRequest {
    /// The label file.
    pub path: std::path::PathBuf,
    /// How to read it.
    pub options: LabelOptions,
    /// Bootstrap resamples of the log's queries (0: no intervals).
    pub resamples: usize,
}

impl LabelInputs<'_> {
    /// Checks the inputs: `None` when no label file is given (and then no option that goes
    /// with one either).
    pub fn resolve(&self) -> Result<Option<LabelRequest>> {
        let resamples = self.grade_bootstrap.unwrap_or(DEFAULT_GRADE_BOOTSTRAP);
        crate::limits::check_usize("clicks fit", "--grade-bootstrap", resamples, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
        let format = self.format.unwrap_or("trec");
        // --qrels FILE is --labels FILE --label-format trec.
        let path = match (self.labels, self.qrels) {
            (Some(_), Some(_)) => return Err(Error::Invalid("give --labels FILE or --qrels FILE, not both".into())),
            (Some(p), None) => p,
            (None, Some(p)) => {
                if format != "trec" || self.columns.is_some() || self.header {
                    return Err(Error::Invalid("--qrels reads TREC qrels: for another layout give --labels FILE --label-format FMT".into()));
                }
                p
            }
            (None, None) => {
                let given = [
                    ("--label-format", self.format.is_some_and(|f| f != "trec")),
                    ("--label-columns", self.columns.is_some()),
                    ("--label-header", self.header),
                    ("--unjudged", self.unjudged.is_some()),
                    ("--unjudged-grade", self.unjudged_grade.is_some()),
                    ("--grade-map", self.grade_map.is_some()),
                    ("--grade-bootstrap", self.grade_bootstrap.is_some()),
                ];
                if let Some((flag, _)) = given.iter().find(|g| g.1) {
                    return Err(Error::Invalid(format!("{flag} goes with --labels FILE (or --qrels FILE)")));
                }
                return Ok(None);
            }
        };
        let options = LabelOptions::new(LabelFormat::new(format, self.columns, self.header)?).with(self.unjudged, self.unjudged_grade, self.grade_map)?;
        Ok(Some(LabelRequest { path: path.to_path_buf(), options, resamples }))
    }
}

/// Parses `--grade-map 0:0,1:1,2:1,3:2,4:2`.
pub fn parse_grade_map(spec: &str) -> Result<Vec<(i32, i32)>> {
    let bad = |why: String| Error::Invalid(format!("--grade-map `{spec}`: {why} (expected `from:to` pairs, e.g. `0:0,1:1,2:1,3:2,4:2`)"));
    let mut out: Vec<(i32, i32)> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once(':').ok_or_else(|| bad(format!("`{part}` is not from:to")))?;
        let int = |s: &str| s.trim().parse::<i32>().map_err(|_| bad(format!("`{}` is not an integer grade", s.trim())));
        let (a, b) = (int(a)?, int(b)?);
        if out.iter().any(|x| x.0 == a) {
            return Err(bad(format!("grade {a} is mapped twice")));
        }
        out.push((a, b));
    }
    if out.is_empty() {
        return Err(bad("no pairs".into()));
    }
    out.sort_unstable();
    Ok(out)
}

/// What reading a label file found and assumed (the model file's `labels`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSummary {
    /// The layout read, e.g. `yandex` or `tsv:query=1,doc=3,label=6`.
    pub format: String,
    /// Label lines read (blank and `#` comment lines and a header not counted).
    pub lines: u64,
    /// The label that marks unjudged documents, if any.
    pub unjudged_value: Option<i32>,
    /// Lines with that label.
    pub unjudged_lines: u64,
    /// The grade those documents took instead of being skipped, if any.
    pub unjudged_grade: Option<i32>,
    /// Distinct (query, document) pairs judged.
    pub pairs: u64,
    /// Pairs with more than one distinct label in the file.
    pub conflicting_pairs: u64,
    /// How a conflict was resolved.
    pub conflict_rule: String,
    /// The distinct grades of the file (after the majority vote, before `grade_map`).
    pub file_grades: Vec<i32>,
    /// `[file grade, grade]` pairs applied, if any.
    pub grade_map: Option<Vec<[i32; 2]>>,
    /// The distinct grades the fit used (after `grade_map`): the labels' grade scale.
    pub grades: Vec<i32>,
}

/// The conflict rule, as reported.
pub const CONFLICT_RULE: &str = "majority label; a tie goes to the lowest tied grade";

/// `0-4` for a run of consecutive grades, else `0, 1, 3`.
pub fn describe_scale(grades: &[i32]) -> String {
    match (grades.first(), grades.last()) {
        (Some(a), Some(b)) if grades.len() > 1 && grades.windows(2).all(|w| w[1] == w[0] + 1) => format!("{a}-{b}"),
        _ => grades.iter().map(|g| g.to_string()).collect::<Vec<_>>().join(", "),
    }
}

impl LabelSummary {
    /// What was found and assumed, one line each, for stderr (`labels: ...`).
    pub fn notes(&self, file: &str) -> Vec<String> {
        let mut out = vec![format!(
            "labels: {file} read as {}: {} label lines, {} (query, document) pairs, grades {} in the file",
            self.format,
            self.lines,
            self.pairs,
            describe_scale(&self.file_grades)
        )];
        match (self.unjudged_value, self.unjudged_grade) {
            (Some(v), None) => out.push(format!(
                "labels: unjudged value {v}: {} lines skipped (their documents stay unjudged, fitted apart, not grade 0; --unjudged-grade G makes them grade G)",
                self.unjudged_lines
            )),
            (Some(v), Some(g)) => out.push(format!("labels: unjudged value {v}: {} lines taken as grade {g} (--unjudged-grade)", self.unjudged_lines)),
            (None, _) => {
                let neg: Vec<i32> = self.file_grades.iter().copied().filter(|g| *g < 0).collect();
                if neg.is_empty() {
                    out.push("labels: no unjudged value given (--unjudged): every label is a grade".into());
                } else {
                    out.push(format!(
                        "warning: labels: no unjudged value given (--unjudged), and the file has negative labels {}: they are fitted as grades; if one marks unjudged documents, give --unjudged {}",
                        describe_scale(&neg),
                        neg[0]
                    ));
                }
            }
        }
        if self.conflicting_pairs > 0 {
            out.push(format!("labels: {} (query, document) pairs have conflicting labels: each takes its {CONFLICT_RULE}", self.conflicting_pairs));
        }
        if let Some(m) = &self.grade_map {
            let pairs: Vec<String> = m.iter().map(|[a, b]| format!("{a}:{b}")).collect();
            out.push(format!("labels: grades mapped by --grade-map {}: grades {} fitted", pairs.join(","), describe_scale(&self.grades)));
        }
        out
    }

    /// As the model file's `labels` value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain data")
    }

    /// Parses the model file's `labels` value; `ctx` names the file.
    pub fn from_json(v: &serde_json::Value, ctx: &str) -> Result<Self> {
        serde_json::from_value(v.clone()).map_err(|e| Error::config(ctx, "labels", e.to_string()))
    }
}

/// Reads the label file `path` (plain, gzip or zstd; `-` is standard input).
pub fn read_labels(path: &Path, opts: &LabelOptions) -> Result<(Qrels, LabelSummary)> {
    read_from(crate::input::open(path)?, opts)
}

/// Reads labels from an opened input (see [`read_labels`]).
pub fn read_from(input: crate::input::Input, opts: &LabelOptions) -> Result<(Qrels, LabelSummary)> {
    let layout = opts.format.layout();
    let mut lines = input.lines();
    // Per topic: its id, and per document its id and (label, count) votes.
    let mut topics: Vec<(String, Vec<(String, Vec<(i32, u32)>)>)> = Vec::new();
    let mut topic_pos: HashMap<String, usize> = HashMap::new();
    let mut doc_pos: HashMap<(usize, String), usize> = HashMap::new();
    let (mut read, mut unjudged_lines) = (0u64, 0u64);
    let mut header_left = layout.header;
    let mut query_buf = String::new();
    let name = lines.name().to_string();
    let hint = format!("; another layout? give --label-format ({FORMAT_NAMES})");
    let mut line_no = 0usize;
    while let Some(line) = lines.next_line()? {
        line_no += 1;
        let at = |why: String| Error::parse(&name, line_no, why);
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if std::mem::take(&mut header_left) {
            continue;
        }
        let (query, doc, label): (&str, &str, i32) = if opts.format == LabelFormat::Trec {
            let parsed = parse_qrels_line(line, &name, line_no).map_err(|e| match e {
                Error::Parse { file, line, reason } => Error::Parse { file, line, reason: format!("{reason}{hint}") },
                e => e,
            })?;
            let Some(l) = parsed else { continue };
            (l.topic, l.docno, l.grade)
        } else {
            let fields: Vec<&str> = match layout.sep {
                Separator::Tab => line.split('\t').map(str::trim).collect(),
                Separator::Comma => line.split(',').map(str::trim).collect(),
                Separator::Whitespace => line.split_ascii_whitespace().collect(),
            };
            match layout.fields {
                Some(n) if fields.len() != n => return Err(at(format!("expected {n} fields {}, found {}{hint}", opts.format.expected(), fields.len()))),
                None if fields.len() < layout.max_column() => {
                    return Err(at(format!("expected at least {} fields ({}), found {}{hint}", layout.max_column(), opts.format, fields.len())))
                }
                _ => {}
            }
            let get = |c: usize, what: &str| -> Result<&str> {
                let v = fields[c - 1];
                if v.is_empty() {
                    Err(at(format!("empty {what} (column {c})")))
                } else {
                    Ok(v)
                }
            };
            let q = get(layout.query, "query id")?;
            let query: &str = match layout.region {
                Some(r) => {
                    query_buf.clear();
                    query_buf.push_str(q);
                    query_buf.push('_');
                    query_buf.push_str(get(r, "region")?);
                    &query_buf
                }
                None => q,
            };
            let doc = get(layout.doc, "document id")?;
            let raw = get(layout.label, "label")?;
            let label = raw
                .parse::<i32>()
                .map_err(|_| at(format!("label `{}` (column {}) is not an integer", crate::input::snippet(raw, crate::input::ECHO), layout.label)))?;
            (query, doc, label)
        };
        read += 1;
        let grade = if Some(label) == opts.unjudged {
            unjudged_lines += 1;
            match opts.unjudged_grade {
                Some(g) => g,
                None => continue,
            }
        } else {
            label
        };
        let t = match topic_pos.get(query) {
            Some(&t) => t,
            None => {
                topics.push((query.to_string(), Vec::new()));
                topic_pos.insert(query.to_string(), topics.len() - 1);
                topics.len() - 1
            }
        };
        let d = *doc_pos.entry((t, doc.to_string())).or_insert_with(|| {
            topics[t].1.push((doc.to_string(), Vec::new()));
            topics[t].1.len() - 1
        });
        let votes = &mut topics[t].1[d].1;
        match votes.iter_mut().find(|v| v.0 == grade) {
            Some(v) => v.1 += 1,
            None => votes.push((grade, 1)),
        }
    }
    let source = name;
    if read == 0 {
        return Err(Error::Invalid(format!("{source}: no label lines (expected {} as --label-format {})", opts.format.expected(), opts.format)));
    }
    let (mut pairs, mut conflicting) = (0u64, 0u64);
    let mut file_grades: Vec<i32> = Vec::new();
    let mut qrels = Qrels::default();
    for (topic, docs) in topics {
        let mut judged = Vec::with_capacity(docs.len());
        for (doc, votes) in docs {
            pairs += 1;
            if votes.len() > 1 {
                conflicting += 1;
            }
            // Majority; among equal counts the lowest grade.
            let g = votes.iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).expect("one vote at least").0;
            if let Err(i) = file_grades.binary_search(&g) {
                file_grades.insert(i, g);
            }
            judged.push((doc, g));
        }
        if !judged.is_empty() {
            qrels.topics.push((topic, judged));
        }
    }
    if qrels.topics.is_empty() {
        return Err(Error::Invalid(format!(
            "{source}: all {read} label lines have the unjudged value {}: no judged (query, document) pair left",
            opts.unjudged.map_or(String::new(), |v| v.to_string())
        )));
    }
    let mut grades = file_grades.clone();
    if let Some(map) = &opts.grade_map {
        if let Some(g) = file_grades.iter().find(|g| !map.iter().any(|m| m.0 == **g)) {
            let from: Vec<String> = map.iter().map(|m| m.0.to_string()).collect();
            return Err(Error::Invalid(format!(
                "{source}: the labels have grade {g}, which --grade-map does not map (it maps {}): map every grade of the file ({})",
                from.join(", "),
                describe_scale(&file_grades)
            )));
        }
        for (_, docs) in qrels.topics.iter_mut() {
            for (_, g) in docs.iter_mut() {
                *g = map.iter().find(|m| m.0 == *g).expect("checked").1;
            }
        }
        grades = file_grades.iter().map(|g| map.iter().find(|m| m.0 == *g).expect("checked").1).collect();
        grades.sort_unstable();
        grades.dedup();
    }
    let summary = LabelSummary {
        format: opts.format.to_string(),
        lines: read,
        unjudged_value: opts.unjudged,
        unjudged_lines,
        unjudged_grade: opts.unjudged_grade,
        pairs,
        conflicting_pairs: conflicting,
        conflict_rule: CONFLICT_RULE.to_string(),
        file_grades,
        grade_map: opts.grade_map.as_ref().map(|m| m.iter().map(|&(a, b)| [a, b]).collect()),
        grades,
    };
    Ok((qrels, summary))
}

#[cfg(test)]
mod tests;

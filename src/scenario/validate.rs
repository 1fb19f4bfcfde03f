//! From scenario text to a checked [`Scenario`]: TOML errors that name the key and its line,
//! files of an older dialect or the wrong kind recognised, and the checks of values that the
//! schema alone cannot make.

use super::{Categories, CollectionSource, InterfaceSpec, ReportSpec, Scenario, StreamFiles, Variants, GRID_POINTS_MAX, VARIANTS_MAX};
use crate::error::{Error, Result};
use crate::user::Delays;

/// Line (1-based) where `key` is assigned, as `key =` at a line start or inside an inline table.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            line.match_indices(key).any(|(i, _)| {
                let before = line[..i].trim_end();
                let after = line[i + key.len()..].trim_start();
                (before.is_empty() || before.ends_with('{') || before.ends_with(',')) && after.starts_with('=')
            })
        })
        .map(|i| i + 1)
}

/// The identifier just before the last `=` in `prefix` (`a = 1, b = ` gives `b`).
fn key_before_equals(prefix: &str) -> Option<&str> {
    let before = prefix.trim_end().strip_suffix('=')?.trim_end();
    let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).map_or(0, |i| i + 1);
    (start < before.len()).then(|| &before[start..])
}

/// Key and line of the value an "invalid type/value" error is about. When the error points
/// at the value, the key is the one before it. Inside an internally tagged table the error
/// points at the table header, so the table's lines are searched for the printed value.
fn locate_invalid_value<'t>(text: &'t str, offset: usize, reason: &str) -> Option<(&'t str, usize)> {
    let what = reason.strip_prefix("invalid type: ").or_else(|| reason.strip_prefix("invalid value: "))?;
    let literal = match what.strip_prefix("string \"") {
        Some(rest) => rest.find('"').map(|end| format!("\"{}\"", &rest[..end])),
        None => what.split('`').nth(1).map(str::to_string),
    };
    let find = |line: &'t str, from: usize| {
        let literal = literal.as_deref()?;
        line.match_indices(literal).filter(|(j, _)| *j >= from).find_map(|(j, _)| key_before_equals(&line[..j]))
    };
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let first = text[..line_start].matches('\n').count();
    let lines: Vec<&str> = text.lines().collect();
    let line = *lines.get(first)?;
    if !line.trim_start().starts_with('[') {
        let key = find(line, offset - line_start).or_else(|| key_before_equals(&line[..offset - line_start]))?;
        return Some((key, first + 1));
    }
    let table = line.trim().trim_start_matches('[').split(']').next()?.trim().to_string();
    for (i, line) in lines.iter().enumerate().skip(first + 1) {
        let header = line.trim_start();
        if header.starts_with('[') && !header.trim_start_matches('[').trim_start().starts_with(&format!("{table}.")) {
            break;
        }
        if let Some(key) = find(line, 0) {
            return Some((key, i + 1));
        }
    }
    None
}

/// Deserialises TOML into `T`, turning errors into [`Error::Config`] that name the offending
/// key (unknown, missing or invalid) and its line; syntax errors name `(syntax)` and the line.
pub fn from_toml<T: serde::de::DeserializeOwned>(text: &str, context: &str) -> Result<T> {
    toml::from_str(text).map_err(|e| {
        let reason = e.message().to_string();
        let names_key = ["unknown field", "missing field", "unknown variant", "duplicate"].iter().any(|p| reason.starts_with(p));
        let mut key = if names_key { reason.split('`').nth(1).map(str::to_string) } else { None };
        let mut from_span = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        if key.is_none() {
            if let Some((k, l)) = e.span().and_then(|s| locate_invalid_value(text, s.start, &reason)) {
                key = Some(k.to_string());
                from_span = Some(l);
            }
        }
        let line = if reason.starts_with("duplicate") || !names_key { from_span } else { key.as_deref().and_then(|k| line_of_key(text, k)).or(from_span) };
        let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
        Error::config(context, key.unwrap_or_else(|| "(syntax)".into()), format!("{reason}{at}"))
    })
}

/// Recognises files of an older dialect or the wrong kind; `Some(message)` says what the file
/// looks like and how to fix it.
pub fn recognise_wrong_kind(text: &str) -> Option<String> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') && trimmed[1..].trim_start().starts_with('{') {
        let what = if trimmed.contains("serpsim-click-model") { "a click-model file (JSON)" } else { "JSON" };
        return Some(format!(
            "this looks like {what}, not a scenario (TOML); a scenario names a click-model file in a profile: `click_model = {{ file = \"model.json\" }}` (docs/scenarios.md)"
        ));
    }
    if let Some(line) = trimmed.lines().next() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if (f.len() == 6 && f[1] == "Q0") || (f.len() == 4 && f[3].parse::<i32>().is_ok() && !line.contains('=')) {
            return Some(
                "this looks like a TREC run or qrels file, not a scenario (TOML); a scenario names it in [collection]: `qrels = \"...\"`, `runs = [\"...\"]` (docs/scenarios.md)"
                    .into(),
            );
        }
        if line.contains(" qid:") {
            return Some(
                "this looks like a LETOR file, not a scenario (TOML); name it in [collection] with `source = \"letor\"`, `file = \"...\"` (docs/scenarios.md)"
                    .into(),
            );
        }
    }
    let value: toml::Table = toml::from_str(text).ok()?;
    let has = |k: &str| value.contains_key(k);
    if has("session") || (has("queries") && value.get("queries").and_then(|q| q.get("source")).is_some()) {
        return Some(
            "this looks like an old `serpsim sessions` scenario ([queries], [session.searcher]); every command now reads the one scenario schema: \
             [queries] becomes [collection] (source = \"synthetic_queries\" with the same generator, or source = \"trec\" with [variants] kind = \"suffix\"), \
             [session.searcher] becomes a [[profiles]] entry (click/mark -> clicks, stopping, times -> time, budget -> budget.seconds), \
             [session.interface] becomes [interface], [sweep] rules and thresholds become [[sweep]] entries; see docs/scenarios.md#migrating-old-scenarios"
                .into(),
        );
    }
    if has("lambdas") || has("priors") || has("tasks") || (has("source") && value.get("source").and_then(|s| s.get("kind")).is_some()) || has("help") {
        return Some(
            "this looks like an old `serpsim sublists` scenario (lambdas, priors, tasks, [source]); every command now reads the one scenario schema: \
             [source] becomes [collection] plus [categories], lambdas/priors/tasks become [[sweep]] entries over a profile's continuation.lambda, \
             sublists.prior and stopping, [weights] becomes the profile's [effort], [help] becomes [when], `out` becomes [output] dir; \
             see docs/scenarios.md#migrating-old-scenarios"
                .into(),
        );
    }
    if !has("collection") && !has("profiles") {
        return Some("this TOML file has neither [collection] nor [[profiles]]: it is not a serpsim scenario (docs/scenarios.md)".into());
    }
    None
}

impl Scenario {
    /// Parses scenario TOML; `context` names the file in errors.
    pub fn parse(text: &str, context: &str) -> Result<Self> {
        let scenario: Scenario = match from_toml(text, context) {
            Ok(s) => s,
            Err(e) => {
                if let Some(msg) = recognise_wrong_kind(text) {
                    return Err(Error::Invalid(format!("{context}: {msg}")));
                }
                return Err(e);
            }
        };
        scenario.validate(context)?;
        Ok(scenario)
    }

    /// The checks of a stream scenario: updates files, stream users, and none of the keys of
    /// result pages (variants, categories, interface, sweeps, report grids, `[when]`).
    fn validate_streams(&self, context: &str, f: &StreamFiles) -> Result<()> {
        if f.updates.is_empty() {
            return Err(Error::config(context, "collection.updates", "must list at least one updates file"));
        }
        if self.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in self.profiles.iter().enumerate() {
            crate::simulate::stream::StreamProfile::from_user(p, context, &format!("profiles[{i}]"))?;
            if self.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        let serp_only = [
            ("variants", self.variants != Variants::default()),
            ("categories", self.categories != Categories::default()),
            ("interface", self.interface != InterfaceSpec::default()),
            ("sweep", !self.sweep.is_empty()),
            ("report", self.report != ReportSpec::default()),
            ("when", self.when.is_some()),
        ];
        if let Some((key, _)) = serp_only.iter().find(|k| k.1) {
            return Err(Error::config(context, *key, "is not a key of stream scenarios (docs/streams.md)"));
        }
        Ok(())
    }

    /// Checks values that the schema alone cannot; errors name the key.
    pub fn validate(&self, context: &str) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(Error::config(context, "name", "must not be empty"));
        }
        if self.replicates == 0 {
            return Err(Error::config(context, "replicates", "must be at least 1 (`users` is a synonym)"));
        }
        if let CollectionSource::Streams(f) = &self.collection {
            return self.validate_streams(context, f);
        }
        crate::limits::check_count(context, "replicates", self.replicates, crate::limits::MAX_REPLICATES, "simulated users per profile and topic")?;
        if self.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in self.profiles.iter().enumerate() {
            p.validate(context, &format!("profiles[{i}]"))?;
            if let Some(k) = [("away", &p.away), ("duration", &p.duration), ("speed", &p.speed), ("lateness", &p.lateness)].iter().find(|k| k.1.is_some()) {
                return Err(Error::config(context, format!("profiles[{i}].{}", k.0), "is a key of stream users ([collection] source = \"streams\")"));
            }
            if self.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        for (i, s) in self.sweep.iter().enumerate() {
            if s.values.is_empty() {
                return Err(Error::config(context, format!("sweep[{i}].values"), "must list at least one value"));
            }
        }
        if self.output.histogram_bins == 0 {
            return Err(Error::config(context, "output.histogram_bins", "must be at least 1"));
        }
        crate::limits::check_usize(context, "output.histogram_bins", self.output.histogram_bins, crate::limits::MAX_HISTOGRAM_BINS, "histogram bins")?;
        let source_page = match &self.collection {
            CollectionSource::Trec(t) => {
                if t.runs.is_empty() {
                    return Err(Error::config(context, "collection.runs", "must list at least one run"));
                }
                t.page_size
            }
            CollectionSource::Letor(l) => {
                if l.rankers.is_empty() {
                    return Err(Error::config(context, "collection.rankers", "must list at least one ranker"));
                }
                for (i, r) in l.rankers.iter().enumerate() {
                    r.weights.to_dense(context, &format!("collection.rankers[{i}].weights"))?;
                }
                l.page_size
            }
            CollectionSource::Synthetic(s) => {
                s.validate(context, "collection.")?;
                None
            }
            CollectionSource::SyntheticQueries(s) => {
                if s.strategies.is_empty() {
                    return Err(Error::config(context, "collection.strategies", "must list at least one strategy"));
                }
                s.generator.validate(context, "collection.generator.")?;
                None
            }
            CollectionSource::Streams(_) => unreachable!("stream scenarios are validated by validate_streams"),
        };
        if source_page.is_some() && self.interface.page_size.is_some() {
            return Err(Error::config(context, "interface.page_size", "the page size is also given in [collection]; keep one"));
        }
        if source_page.or(self.interface.page_size) == Some(0) {
            return Err(Error::config(context, "interface.page_size", "must be at least 1"));
        }
        if self.interface.fold == Some(0) {
            return Err(Error::config(context, "interface.fold", "must be at least 1 (omit it for no fold)"));
        }
        crate::limits::check_non_negative(context, "interface.below_fold", self.interface.below_fold)?;
        Delays { query_latency: self.interface.query_latency, page_latency: self.interface.page_latency, document_latency: self.interface.document_latency }
            .validate(context, "interface.")?;
        for (name, d) in &self.interface.delays {
            d.validate(context, &format!("interface.delays.{name}."))?;
        }
        match &self.variants {
            Variants::Suffix if !matches!(self.collection, CollectionSource::Trec(_)) => {
                return Err(Error::config(context, "variants.kind", "`suffix` variants need a TREC collection (query ids `301.1`, `301.2`)"));
            }
            Variants::Perturbed { count, noise, .. } => {
                if *count == 0 {
                    return Err(Error::config(context, "variants.count", "must be at least 1"));
                }
                crate::limits::check_usize(context, "variants.count", *count, VARIANTS_MAX, "query variants per topic")?;
                crate::limits::check_non_negative(context, "variants.noise", *noise)?;
            }
            _ => {}
        }
        match &self.categories {
            Categories::LetorFeatures { bins, features } => {
                if !matches!(self.collection, CollectionSource::Letor(_)) {
                    return Err(Error::config(context, "categories.from", "`letor_features` needs a LETOR collection"));
                }
                if *bins < 2 {
                    return Err(Error::config(context, "categories.bins", "must be at least 2"));
                }
                crate::limits::check_usize(context, "categories.bins", *bins, crate::limits::MAX_CATEGORIES, "categories")?;
                if features.is_empty() {
                    return Err(Error::config(context, "categories.features", "must list at least one feature"));
                }
            }
            Categories::SyntheticSublists { .. } if !matches!(self.collection, CollectionSource::Synthetic(_)) => {
                return Err(Error::config(context, "categories.from", "`synthetic_sublists` needs a synthetic collection"));
            }
            _ => {}
        }
        for g in [&self.report.time_grid, &self.report.effort_grid].into_iter().flatten() {
            if !(g.max.is_finite() && g.max > 0.0) || g.points < 2 {
                return Err(Error::config(context, "report.time_grid", "needs max > 0 and at least 2 points"));
            }
            crate::limits::check_usize(context, "report.time_grid.points", g.points, GRID_POINTS_MAX, "points of a report grid")?;
        }
        for b in self.report.time_budgets.iter().flatten().chain(self.report.effort_budgets.iter().flatten()) {
            crate::limits::check_non_negative(context, "report.time_budgets", *b)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DEFAULT_SCENARIO;

    #[test]
    fn wrong_values_name_their_key_and_line() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "source", rename_all = "snake_case")]
        #[allow(dead_code)]
        enum Source {
            Synthetic { generator: Generator },
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Generator {
            decay: f64,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            replicates: usize,
            stop: Option<Source>,
            queries: Option<Source>,
        }
        let err = |text: &str| from_toml::<Doc>(text, "t.toml").unwrap_err().to_string();
        let e = err("replicates = \"many\"\n");
        assert!(e.contains("key `replicates`") && e.contains("(line 1)"), "{e}");
        let e = err("replicates = 1\nstop = { source = \"synthetic\", generator = { decay = \"x\" } }\n");
        assert!(e.contains("key `decay`") && e.contains("(line 2)"), "{e}");
        let e = err("replicates = 1\n[queries]\nsource = \"synthetic\"\n\n[queries.generator]\ndecay = \"high\"\n");
        assert!(e.contains("key `decay`") && e.contains("(line 6)"), "{e}");
        assert!(err("replicates = = 1\n").contains("(syntax)"));
    }

    #[test]
    fn unknown_keys_are_named() {
        let text = DEFAULT_SCENARIO.replace("replicates =", "replicatez =");
        let err = Scenario::parse(&text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("replicatez"), "{err}");
        let text = "name='a'\n[collection]\nsource='synthetic'\ntopicz=3\n[[profiles]]\nname='u'\n";
        let err = Scenario::parse(text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("topicz"), "{err}");
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nclicks={click=[0.5],stop=[0.0],mark=[1.0],foo=1}\n";
        let err = Scenario::parse(text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("foo"), "{err}");
    }

    #[test]
    fn bad_probabilities_name_the_key() {
        let base = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\n";
        let err = Scenario::parse(&format!("{base}continuation={{model='rbp',p=1.2}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].continuation.p"), "{err}");
        let err = Scenario::parse(&format!("{base}clicks={{click=[0.1,nan],stop=[0.0],mark=[1.0]}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].clicks.click[1]") && err.contains("NaN"), "{err}");
        let err = Scenario::parse(&format!("{base}continuation={{model='rbp',p={{dist='lognormal',mu=0,sigma=1}}}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].continuation.p") && err.contains("not bounded"), "{err}");
    }

    #[test]
    fn old_and_wrong_kinds_say_what_they_look_like() {
        let sessions = "name = \"x\"\n[queries]\nsource = \"synthetic\"\n[session.searcher]\nclick = [0.3, 0.6]\n";
        let e = Scenario::parse(sessions, "old.toml").unwrap_err().to_string();
        assert!(e.contains("old `serpsim sessions` scenario") && e.contains("migrating"), "{e}");
        let sublists = "seed = 1\nlambdas = [1.0]\n[source]\nkind = \"synthetic\"\n";
        let e = Scenario::parse(sublists, "old.toml").unwrap_err().to_string();
        assert!(e.contains("old `serpsim sublists` scenario") && e.contains("[[sweep]]"), "{e}");
        let e = Scenario::parse("{\"format\": \"serpsim-click-model\", \"model\": \"dbn\"}", "m.json").unwrap_err().to_string();
        assert!(e.contains("click-model file"), "{e}");
        let e = Scenario::parse("301 Q0 doc1 1 3.2 run\n", "r.txt").unwrap_err().to_string();
        assert!(e.contains("TREC run or qrels"), "{e}");
        // A typo in a real scenario still names the key rather than a kind.
        let e = Scenario::parse("name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nnam='u'\n", "x.toml").unwrap_err().to_string();
        assert!(e.contains("nam"), "{e}");
    }
}

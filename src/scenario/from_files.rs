//! A scenario from your own files: `serpsim simulate --qrels Q --run A --run B` and Python's
//! `simulate(qrels=..., runs=[...])` write the scenario this module makes and run it, so that
//! a one-line what-if and the scenario file it prints (`--print-scenario`) give the same
//! report byte for byte.
//!
//! The scenario names the files by absolute path (it runs the same from any folder), keeps the
//! default scenario's seed and users per profile, adds no system the user did not ask for (the
//! ideal ranking only with `ideal`), and lists its users: the default scenario's two unless
//! `profiles` names built-in users ([`super::users`]) or click-model files, or `robust` asks
//! for every built-in user.

use super::users;
use crate::error::{Error, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Seed of a scenario made from files (the default scenario's).
pub const SEED: u64 = 2015;
/// Users per profile of a scenario made from files (the default scenario's).
pub const REPLICATES: u64 = 10_000;

/// What a scenario from files holds.
#[derive(Debug, Clone, Default)]
pub struct FilesScenario {
    /// TREC qrels file.
    pub qrels: PathBuf,
    /// TREC run files, one system each (plain, gzip or zstd).
    pub runs: Vec<PathBuf>,
    /// Users: built-in names ([`users::NAMES`]) or click-model JSON files.
    pub profiles: Vec<String>,
    /// Every built-in user (`--users robust`), before `profiles`.
    pub robust: bool,
    /// Only these topics.
    pub topics: Option<Vec<String>>,
    /// Add the ideal ranking of the judgements as system `ideal`.
    pub ideal: bool,
    /// Run a comparison in which more than half of the runs' topics have no judgements.
    pub allow_partial_judgements: bool,
}

/// A TOML string literal.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `path` made absolute against the working directory, as text.
fn absolute(path: &Path, what: &str) -> Result<String> {
    let abs = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
    abs.to_str()
        .map(str::to_string)
        .ok_or_else(|| Error::Invalid(format!("{what} `{}`: the path is not valid UTF-8, which a scenario file cannot hold", path.display())))
}

/// Topic ids from `--topics`: a comma-separated list (`301,302,310`) or `@FILE` (ids separated
/// by white space or commas; `#` starts a comment). Empty ids and repeats are errors.
pub fn parse_topics(spec: &str) -> Result<Vec<String>> {
    let (text, source) = match spec.strip_prefix('@') {
        Some(path) => (crate::input::read_to_string(Path::new(path))?, path.to_string()),
        None => (spec.to_string(), "--topics".to_string()),
    };
    let mut out: Vec<String> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for id in line.split(|c: char| c == ',' || c.is_whitespace()) {
            if id.is_empty() {
                if spec.starts_with('@') {
                    continue;
                }
                return Err(Error::Invalid(format!("{source}: an empty topic id in `{spec}` (give ids separated by commas, or @FILE)")));
            }
            if out.iter().any(|t| t == id) {
                return Err(Error::parse(&source, lineno + 1, format!("topic `{id}` is listed twice")));
            }
            crate::limits::check_count(&source, "topics", out.len() as u64 + 1, crate::limits::MAX_TOPICS, "listed topics")?;
            out.push(id.to_string());
        }
    }
    if out.is_empty() {
        return Err(Error::Invalid(format!("{source}: no topic ids")));
    }
    Ok(out)
}

impl FilesScenario {
    /// The users, in order: every built-in one with `robust`, then `profiles`; the default
    /// scenario's two when neither is given.
    fn user_list(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if self.robust {
            out.extend(users::NAMES.iter().map(|s| s.to_string()));
        }
        out.extend(self.profiles.iter().cloned());
        if out.is_empty() {
            out.extend(users::DEFAULT.iter().map(|s| s.to_string()));
        }
        out
    }

    /// The scenario's TOML text (what `--print-scenario` writes).
    pub fn text(&self) -> Result<String> {
        if self.runs.is_empty() {
            return Err(Error::Invalid("give at least one --run (a TREC run file) with --qrels".into()));
        }
        let mut s = String::new();
        let _ = writeln!(s, "# A what-if on your own qrels and runs, written by `serpsim simulate --qrels ... --run ... --print-scenario`");
        let _ = writeln!(s, "# (docs/scenarios.md, \"From your own files\"). Keep it, edit it, run it: serpsim simulate THIS_FILE");
        let _ = writeln!(s, "name = \"whatif\"\nseed = {SEED}\nreplicates = {REPLICATES}\n");
        let _ = writeln!(s, "[collection]\nsource = \"trec\"");
        let _ = writeln!(s, "qrels = {}", quoted(&absolute(&self.qrels, "qrels")?));
        let runs = self.runs.iter().map(|r| absolute(r, "run").map(|a| quoted(&a))).collect::<Result<Vec<_>>>()?;
        let _ = writeln!(s, "runs = [{}]", runs.join(", "));
        if let Some(topics) = &self.topics {
            let _ = writeln!(s, "topics = [{}]", topics.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(", "));
        }
        if self.ideal {
            let _ = writeln!(s, "ideal_system = \"ideal\"");
        }
        if self.allow_partial_judgements {
            let _ = writeln!(s, "allow_partial_judgements = true");
        }
        let list = self.user_list();
        for (i, u) in list.iter().enumerate() {
            if list[..i].contains(u) {
                return Err(Error::Invalid(format!("user `{u}` is given twice (--users robust already has {})", users::NAMES.join(", "))));
            }
            s.push('\n');
            if u.ends_with(".json") || (!users::NAMES.contains(&u.as_str()) && Path::new(u).is_file()) {
                let path = Path::new(u);
                let name = path.file_stem().and_then(|x| x.to_str()).filter(|x| !x.is_empty()).unwrap_or("click-model");
                let _ = writeln!(s, "# Users whose clicks the click model in {u} draws (docs/scenarios.md, \"Click-model users\").");
                let _ = writeln!(s, "[[profiles]]\nname = {}\nclick_model = {{ file = {} }}", quoted(name), quoted(&absolute(path, "click model")?));
            } else {
                let b = users::built_in(u)?;
                let _ = writeln!(s, "# {}: {}.", b.name, b.about);
                let _ = write!(s, "[[profiles]]\nname = \"{}\"\n{}", b.name, b.keys);
            }
        }
        let _ = writeln!(s, "\n[output]\ndir = \"serpsim-out\"");
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_lists_and_files() {
        assert_eq!(parse_topics("301,302").unwrap(), vec!["301", "302"]);
        assert!(parse_topics("301,,302").unwrap_err().to_string().contains("empty topic id"));
        assert!(parse_topics("301,301").unwrap_err().to_string().contains("listed twice"));
        let dir = std::env::temp_dir().join(format!("serpsim-topics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.txt");
        std::fs::write(&f, "# mine\n301\n302 303\n\n").unwrap();
        assert_eq!(parse_topics(&format!("@{}", f.display())).unwrap(), vec!["301", "302", "303"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The text parses as a scenario with the files, users and switches asked for, and adds
    /// no system unless asked.
    #[test]
    fn text_is_a_scenario_with_what_was_asked() {
        let f = FilesScenario { qrels: "/q/qrels".into(), runs: vec!["/r/a.gz".into(), "/r/b".into()], ..Default::default() };
        let s = crate::scenario::Scenario::parse(&f.text().unwrap(), "made").unwrap();
        let crate::scenario::CollectionSource::Trec(t) = &s.collection else { panic!() };
        assert_eq!(t.runs, vec![PathBuf::from("/r/a.gz"), PathBuf::from("/r/b")]);
        assert_eq!(t.ideal_system, None);
        assert!(!t.allow_partial_judgements);
        assert_eq!(s.profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), vec!["patient", "impatient"]);
        let f = FilesScenario { robust: true, ideal: true, allow_partial_judgements: true, topics: Some(vec!["7".into()]), ..f };
        let s = crate::scenario::Scenario::parse(&f.text().unwrap(), "made").unwrap();
        let crate::scenario::CollectionSource::Trec(t) = &s.collection else { panic!() };
        assert_eq!(t.ideal_system.as_deref(), Some("ideal"));
        assert!(t.allow_partial_judgements);
        assert_eq!(t.topics.as_deref(), Some(&["7".to_string()][..]));
        assert_eq!(s.profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), users::NAMES.to_vec());
        // A click-model file: a profile named by its stem that draws clicks from it.
        let g = FilesScenario { robust: false, profiles: vec!["/m/fitted-dbn.json".into()], ..f.clone() };
        let s = crate::scenario::Scenario::parse(&g.text().unwrap(), "made").unwrap();
        assert_eq!(s.profiles.len(), 1);
        assert_eq!(s.profiles[0].name, "fitted-dbn");
        assert_eq!(s.profiles[0].click_model.as_ref().unwrap().file, PathBuf::from("/m/fitted-dbn.json"));
        let f = FilesScenario { profiles: vec!["patient".into()], ..f };
        assert!(f.text().unwrap_err().to_string().contains("given twice"));
        let f = FilesScenario { runs: vec![], ..f };
        assert!(f.text().unwrap_err().to_string().contains("--run"));
    }
}

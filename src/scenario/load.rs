//! Loading a scenario: its files (the scenario file, qrels, runs, LETOR, click models) read
//! relative to the scenario's folder, the collection or world built from them, and the
//! profiles prepared for that world.

use super::{Categories, CollectionSource, Scenario, SublistSystems, SweepAssignment, SyntheticQueriesSource, TrecSource, Variants};
use crate::clickmodels::user::FittedClicks;
use crate::collection::categories::{letor_with_categories, SublistSyntheticConfig};
use crate::collection::coverage::Coverage;
use crate::collection::letor::LetorData;
use crate::collection::queries::split_variant;
use crate::collection::trec::{collection_from_trec, load_subtopic_qrels_file, Qrels, Run};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::simulate::world::{Perturbation, QueryList, World, WorldSystem, WorldTopic};
use crate::simulate::PreparedProfile;
use crate::user::{ClickSource, Delays};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The scenario embedded in the binary (`simulations/default.toml`), run by `serpsim simulate`
/// without a file. Its collection is the project's own TREC-like qrels and run in
/// `study_logs/trec/` (50 topics, written from a seed by `analysis/metrics/make_trec_collection.py`).
pub const DEFAULT_SCENARIO: &str = include_str!("../../simulations/default.toml");
/// Qrels of the embedded default scenario.
pub const DEFAULT_QRELS: &str = include_str!("../../study_logs/trec/qrels.test");
/// Run of the embedded default scenario.
pub const DEFAULT_RUN: &str = include_str!("../../study_logs/trec/results.test");

impl Scenario {
    /// Reads and parses a scenario file; relative paths inside it resolve against its folder.
    pub fn from_file(path: &Path) -> Result<(Self, PathBuf)> {
        let text = crate::input::read_to_string(path)?;
        let scenario = Self::parse(&text, &path.display().to_string())?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok((scenario, base))
    }

    /// The embedded default scenario.
    pub fn embedded_default() -> Self {
        Self::parse(DEFAULT_SCENARIO, "embedded default scenario").expect("the embedded scenario is valid")
    }
}

/// Resolves `p` against `base` unless absolute.
pub(crate) fn resolve(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// One run's query variants of each topic: (variant number, query id, ranking).
type TopicVariants = Vec<Vec<(u64, String, Vec<u32>)>>;

/// A world built from TREC qrels and runs whose query ids are `topic.variant`.
fn world_from_trec_variants(qrels: &Qrels, runs: &[Run]) -> Result<World> {
    let mut topics: Vec<WorldTopic> = Vec::new();
    let mut pos: Vec<std::collections::HashMap<String, u32>> = Vec::new();
    let mut topic_pos = std::collections::HashMap::new();
    for (id, judged) in &qrels.topics {
        let mut t = WorldTopic { id: id.clone(), doc_ids: Vec::new(), grades: Vec::new(), subtopics: Vec::new(), categories: Vec::new(), relevant: 0 };
        let mut p = std::collections::HashMap::new();
        for (doc, grade) in judged {
            p.insert(doc.clone(), t.doc_ids.len() as u32);
            t.doc_ids.push(doc.clone());
            t.grades.push(*grade);
        }
        topic_pos.insert(id.clone(), topics.len());
        topics.push(t);
        pos.push(p);
    }
    let mut systems = Vec::new();
    for run in runs {
        if systems.iter().any(|s: &(String, TopicVariants)| s.0 == run.name) {
            return Err(Error::Invalid(format!("two runs are named `{}`; rename one (the tag names the system)", run.name)));
        }
        let mut variants: TopicVariants = vec![Vec::new(); topics.len()];
        for (qid, ranking) in &run.topics {
            let (topic, variant) = split_variant(qid);
            let Some(&t) = topic_pos.get(topic) else { continue };
            if let Some((_, other, _)) = variants[t].iter().find(|(v, _, _)| *v == variant) {
                return Err(Error::Invalid(format!("run `{}`: query ids `{other}` and `{qid}` are the same variant {variant} of topic `{topic}`", run.name)));
            }
            let tp = &mut topics[t];
            let list = ranking
                .iter()
                .map(|r| {
                    *pos[t].entry(r.docno.clone()).or_insert_with(|| {
                        tp.doc_ids.push(r.docno.clone());
                        tp.grades.push(0);
                        (tp.doc_ids.len() - 1) as u32
                    })
                })
                .collect();
            variants[t].push((variant, qid.clone(), list));
        }
        systems.push((run.name.clone(), variants));
    }
    for t in &mut topics {
        t.subtopics = vec![0; t.doc_ids.len()];
        t.categories = vec![Vec::new(); t.doc_ids.len()];
        t.relevant = t.grades.iter().filter(|&&g| g > 0).count();
    }
    let systems = systems
        .into_iter()
        .map(|(name, variants)| WorldSystem {
            name,
            delays: Delays::default(),
            serps: variants
                .into_iter()
                .enumerate()
                .map(|(t, mut vs)| {
                    if vs.is_empty() {
                        return None;
                    }
                    vs.sort_by_key(|(v, _, _)| *v);
                    Some(vs.into_iter().map(|(_, _, list)| QueryList::new(&topics[t], list)).collect())
                })
                .collect(),
        })
        .collect();
    Ok(World { topics, systems, categories: Vec::new(), page_size: 10, fold: usize::MAX, below_fold: 0.0 })
}

/// A world from the synthetic query generator: each strategy is a system.
fn world_from_synthetic_queries(s: &SyntheticQueriesSource) -> Result<World> {
    let sets: Vec<(String, Vec<crate::collection::queries::SessionTopic>)> =
        s.strategies.iter().map(|&st| Ok((st.name().to_string(), s.generator.generate(st)?))).collect::<Result<_>>()?;
    world_from_query_sets(&sets)
}

/// A world whose systems are named sets of topics with query variants (the same topics, in the
/// same order, with the same document tables, in every set).
pub fn world_from_query_sets(sets: &[(String, Vec<crate::collection::queries::SessionTopic>)]) -> Result<World> {
    let Some((_, first)) = sets.first() else { return Err(Error::Invalid("no query sets".into())) };
    let topics: Vec<WorldTopic> = first
        .iter()
        .map(|t| WorldTopic {
            id: t.id.clone(),
            doc_ids: t.doc_ids.clone(),
            grades: t.grades.clone(),
            subtopics: vec![0; t.doc_ids.len()],
            categories: vec![Vec::new(); t.doc_ids.len()],
            relevant: t.grades.iter().filter(|&&g| g > 0).count(),
        })
        .collect();
    let mut systems = Vec::new();
    for (name, set) in sets {
        if set.len() != topics.len() || set.iter().zip(&topics).any(|(a, b)| a.id != b.id || a.doc_ids != b.doc_ids) {
            return Err(Error::Invalid(format!("query set `{name}` does not have the same topics and documents as the first set")));
        }
        for t in set {
            t.validate()?;
        }
        systems.push(WorldSystem {
            name: name.clone(),
            delays: Delays::default(),
            serps: set
                .iter()
                .zip(&topics)
                .map(|(t, wt)| (!t.queries.is_empty()).then(|| t.queries.iter().map(|q| QueryList::new(wt, q.clone())).collect()))
                .collect(),
        });
    }
    Ok(World { topics, systems, categories: Vec::new(), page_size: 10, fold: usize::MAX, below_fold: 0.0 })
}

/// A scenario loaded: the world, the prepared profiles, warnings.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The world.
    pub world: World,
    /// Profiles after sweeps, prepared for the world.
    pub prepared: Vec<PreparedProfile>,
    /// Each profile's sweep assignment.
    pub assignments: Vec<SweepAssignment>,
    /// Compared pairs (system indices).
    pub pairs: Vec<(usize, usize)>,
    /// Warnings (also printed to stderr by the commands).
    pub warnings: Vec<String>,
    /// What TREC qrels and runs cover of each other (TREC collections without query variants).
    pub coverage: Option<Coverage>,
}

/// What a scenario's `[collection]` gives, its files read once: a collection (one ranking per
/// topic and system) or, where topics have query variants, a world built directly.
#[derive(Debug, Clone)]
pub enum SourceData {
    /// TREC qrels and runs without query variants, LETOR, synthetic: the world is made from
    /// the collection.
    Collection {
        /// Documents, judgements and one ranking per topic and system.
        collection: Collection,
        /// What TREC qrels and runs cover of each other (`None` for other sources).
        coverage: Option<Coverage>,
    },
    /// TREC runs with `topic.variant` query ids, the synthetic query generator: topics with
    /// query variants, built as a world (coverage is not counted).
    World(World),
}

/// The qrels and runs of a TREC source (relative paths against `base`), restricted to its
/// `topics` (judged topics that no run ranks are still there: [`Coverage::of`] counts them).
/// The one place a scenario reads qrels and runs.
fn trec_inputs(t: &TrecSource, base: &Path) -> Result<(Qrels, Vec<Run>)> {
    let embedded = |p: &Path| p.as_os_str() == "embedded";
    let mut qrels = if embedded(&t.qrels) { Qrels::parse(DEFAULT_QRELS, "embedded qrels")? } else { Qrels::from_file(&resolve(base, &t.qrels))? };
    let mut runs = t
        .runs
        .iter()
        .map(|r| if embedded(r) { Run::parse(DEFAULT_RUN, "embedded run") } else { Run::from_file(&resolve(base, r)) })
        .collect::<Result<Vec<_>>>()?;
    crate::collection::coverage::restrict(&mut qrels, &mut runs, t.topics.as_deref())?;
    Ok((qrels, runs))
}

impl Scenario {
    /// Reads the files of `[collection]` (relative paths against `base`), each once, and builds
    /// what they give. For TREC qrels and runs without query variants it also counts what they
    /// cover of each other ([`Coverage`]: refuses a run without a judged topic, and a comparison
    /// in which more than half of the runs' topics are unjudged unless allowed).
    pub fn source_data(&self, base: &Path) -> Result<SourceData> {
        let (collection, coverage) = match &self.collection {
            CollectionSource::Trec(t) => {
                let (mut qrels, runs) = trec_inputs(t, base)?;
                if matches!(self.variants, Variants::Suffix) {
                    // Run topic ids are `topic.variant` here: coverage is not counted.
                    return Ok(SourceData::World(world_from_trec_variants(&qrels, &runs)?));
                }
                let coverage = Coverage::of(&qrels, &runs, t.allow_partial_judgements)?;
                crate::collection::coverage::drop_unranked(&mut qrels, &runs);
                let (mut c, _report) = collection_from_trec(&qrels, &runs)?;
                if let Some(sq) = &t.subtopic_qrels {
                    load_subtopic_qrels_file(&mut c, &resolve(base, sq))?;
                }
                if let Some(di) = &t.docinfo {
                    crate::collection::docinfo::apply_docinfo_file(&mut c, &resolve(base, di))?;
                }
                if let Some(name) = &t.ideal_system {
                    c.add_ideal_system(name)?;
                }
                (c, Some(coverage))
            }
            CollectionSource::Letor(l) => {
                let data = LetorData::from_file(&resolve(base, &l.file))?;
                let rankers = l
                    .rankers
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Ok((r.name.clone(), r.weights.to_dense("scenario", &format!("collection.rankers[{i}].weights"))?)))
                    .collect::<Result<Vec<_>>>()?;
                let c = match &self.categories {
                    Categories::LetorFeatures { features, bins } => {
                        let mut c = letor_with_categories(&data, &rankers[0].1, features, *bins)?;
                        // Every ranker over the same documents and labels.
                        let other = data.to_collection(&rankers)?;
                        c.systems = other.systems;
                        c
                    }
                    _ => data.to_collection(&rankers)?,
                };
                (c, None)
            }
            CollectionSource::Synthetic(s) => {
                let c = match &self.categories {
                    Categories::SyntheticSublists { relevant_skew, sublist_purity } => {
                        let cfg = SublistSyntheticConfig { collection: s.clone(), relevant_skew: *relevant_skew, sublist_purity: *sublist_purity };
                        cfg.validate("scenario", "categories.")?;
                        cfg.generate()?
                    }
                    _ => s.generate()?,
                };
                (c, None)
            }
            CollectionSource::SyntheticQueries(s) => return Ok(SourceData::World(world_from_synthetic_queries(s)?)),
            CollectionSource::Streams(_) => {
                return Err(Error::Invalid("a stream scenario has no result pages: it runs through `run::streams::run_scenario`".into()))
            }
        };
        Ok(SourceData::Collection { collection, coverage })
    }

    /// Loads data files (relative to `base`), builds the world and prepares every profile.
    pub fn load(&self, base: &Path) -> Result<Loaded> {
        let (mut world, coverage) = match self.source_data(base)? {
            SourceData::Collection { collection, coverage } => (World::from_collection(&collection), coverage),
            SourceData::World(world) => (world, None),
        };
        let source_page = match &self.collection {
            CollectionSource::Trec(t) => t.page_size,
            CollectionSource::Letor(l) => l.page_size,
            CollectionSource::Synthetic(s) => Some(s.page_size),
            CollectionSource::SyntheticQueries(_) | CollectionSource::Streams(_) => None,
        };
        world.page_size = self.interface.page_size.or(source_page).unwrap_or(10);
        world.fold = self.interface.fold.unwrap_or(usize::MAX);
        world.below_fold = self.interface.below_fold;
        let default_delays = Delays {
            query_latency: self.interface.query_latency,
            page_latency: self.interface.page_latency,
            document_latency: self.interface.document_latency,
        };
        for s in &mut world.systems {
            s.delays = default_delays;
        }
        for (name, d) in &self.interface.delays {
            let s = world
                .systems
                .iter_mut()
                .find(|s| &s.name == name)
                .ok_or_else(|| Error::config("scenario", format!("interface.delays.{name}"), format!("unknown system `{name}`")))?;
            s.delays = *d;
        }
        if let Variants::Perturbed { count, noise, seed } = self.variants {
            world.perturb_variants(&Perturbation { count, noise, seed });
        }
        match &self.interface.sublists {
            SublistSystems::All(false) => {}
            SublistSystems::All(true) => world.add_sublists(&[])?,
            SublistSystems::Named(names) => world.add_sublists(names)?,
        }
        if self.interface.basic_twin {
            world.add_basic_twins();
        }
        world.validate()?;
        let expanded = self.expanded_profiles("scenario")?;
        let mut prepared = Vec::with_capacity(expanded.len());
        let mut assignments = Vec::with_capacity(expanded.len());
        let mut warnings = coverage.as_ref().map(Coverage::warnings).unwrap_or_default();
        let mut loaded_models: Vec<(PathBuf, Arc<dyn ClickSource>)> = Vec::new();
        for (mut p, assignment) in expanded {
            if let Some(c) = &mut p.continuation {
                c.resolve_files(base)?;
            }
            let src = match &p.click_model {
                Some(cm) => {
                    let path = resolve(base, &cm.file);
                    let found = loaded_models.iter().find(|(q, _)| *q == path).map(|x| x.1.clone());
                    Some(match found {
                        Some(s) => s,
                        None => {
                            let s: Arc<dyn ClickSource> = Arc::new(FittedClicks::load(&path, &cm.file.display().to_string())?);
                            loaded_models.push((path, s.clone()));
                            s
                        }
                    })
                }
                None => None,
            };
            let prep = PreparedProfile::new(&world, &p, self.seed, src.as_ref())?;
            for w in &prep.warnings {
                if !warnings.contains(w) {
                    warnings.push(w.clone());
                }
            }
            prepared.push(prep);
            assignments.push(assignment);
        }
        let pairs = if !self.compare.enabled {
            Vec::new()
        } else if self.compare.pairs.is_empty() {
            let n = world.systems.len();
            (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect()
        } else {
            self.compare
                .pairs
                .iter()
                .map(|[a, b]| {
                    let find = |n: &str| world.system_index(n).ok_or_else(|| Error::config("scenario", "compare.pairs", format!("unknown system `{n}`")));
                    Ok((find(a)?, find(b)?))
                })
                .collect::<Result<Vec<_>>>()?
        };
        Ok(Loaded { world, prepared, assignments, pairs, warnings, coverage })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variants `301.1`, `301.2`, `301.10` are issued in numeric order, each ranking in
    /// trec_eval order (score, by hand from the run below); run topics without judgements are
    /// dropped; unjudged documents get grade 0; two ids of the same variant are an error.
    #[test]
    fn trec_variants_map_to_topics_in_order() {
        let qrels = Qrels::parse("301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n", "q").unwrap();
        let run =
            Run::parse("301.2 Q0 d2 1 9 r\n301.2 Q0 d9 2 8 r\n301.10 Q0 d1 1 5 r\n301.1 Q0 d1 1 3 r\n301.1 Q0 d2 2 4 r\n999.1 Q0 d1 1 1 r\n", "run").unwrap();
        let w = world_from_trec_variants(&qrels, std::slice::from_ref(&run)).unwrap();
        assert_eq!(w.topics.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["301", "302"]);
        assert!(w.systems[0].serps[1].is_none());
        let t = &w.topics[0];
        let named = |q: usize| w.systems[0].serps[0].as_ref().unwrap()[q].docs.iter().map(|&d| t.doc_ids[d as usize].as_str()).collect::<Vec<_>>();
        assert_eq!(named(0), ["d2", "d1"]); // score order
        assert_eq!(named(1), ["d2", "d9"]);
        assert_eq!(named(2), ["d1"]);
        assert_eq!(t.grades[t.doc_ids.iter().position(|d| d == "d9").unwrap()], 0);
        let dup = Run::parse("301.1 Q0 d1 1 3 r\n301.01 Q0 d1 1 3 r\n", "run").unwrap();
        assert!(world_from_trec_variants(&qrels, &[dup]).is_err());
    }

    #[test]
    fn embedded_default_parses_and_loads() {
        let s = Scenario::embedded_default();
        let l = s.load(Path::new(".")).unwrap();
        // 50 topics (301-350): analysis/metrics/make_trec_collection.py writes the embedded qrels.
        assert_eq!(l.world.topics.len(), 50);
        assert!(l.world.systems.len() >= 2);
    }

    /// Each qrels and run file is read once per load, on both TREC paths (one ranking per
    /// topic: coverage and collection; `topic.variant` runs: a world). The files are FIFOs
    /// whose writers write the text once: a second open would wait for a writer for ever, so a
    /// second reading shows as a load that does not return.
    #[cfg(unix)]
    #[test]
    fn qrels_and_runs_are_read_once() {
        let sessions = |f: &str| std::fs::read_to_string(format!("tests/fixtures/sessions/{f}")).unwrap();
        let cases =
            [(Variants::None, DEFAULT_QRELS.to_string(), DEFAULT_RUN.to_string(), 50), (Variants::Suffix, sessions("qrels.test"), sessions("variants.run"), 3)];
        for (variants, qrels, run, topics) in cases {
            let dir = tempfile::tempdir().unwrap();
            let (q, r) = (dir.path().join("qrels"), dir.path().join("run"));
            let writers: Vec<_> = [(q.clone(), qrels), (r.clone(), run)]
                .into_iter()
                .map(|(path, text)| {
                    assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
                    std::thread::spawn(move || std::fs::write(&path, text).unwrap())
                })
                .collect();
            let mut s = Scenario::embedded_default();
            let CollectionSource::Trec(t) = &mut s.collection else { panic!("the default scenario is TREC") };
            (t.qrels, t.runs) = (q, vec![r]);
            s.variants = variants.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || tx.send(s.load(Path::new(".")).map(|l| l.world.topics.len())));
            let loaded = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{variants:?}: the load did not return: a qrels or run file was opened twice"));
            assert_eq!(loaded.unwrap(), topics, "{variants:?}");
            writers.into_iter().for_each(|w| w.join().unwrap());
        }
    }
}

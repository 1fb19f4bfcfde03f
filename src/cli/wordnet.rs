//! `serpsim wordnet lch|path WORD1 WORD2 [--pos n|v]` and the batch form
//! `serpsim wordnet lch|path --pairs FILE [--out FILE]`.

use super::common::display;
use serpsim::progress::{Display, Progress, Reporter};
use serpsim::wordnet::{batch, default_dir, Measure, Pos, Similarity, WordNet};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `serpsim wordnet`.
#[derive(clap::Args)]
pub struct WordnetArgs {
    #[command(subcommand)]
    command: WordnetCommand,
}

#[derive(clap::Subcommand)]
enum WordnetCommand {
    /// Word-level Leacock–Chodorow similarity (max over synset pairs, as NLTK's lch_similarity).
    Lch(PairArgs),
    /// Word-level path similarity 1 / (p + 1) (max over synset pairs, as NLTK's path_similarity).
    Path(PairArgs),
}

#[derive(clap::Args)]
struct PairArgs {
    /// First word (inflected forms are lemmatised as NLTK's morphy does).
    #[arg(required_unless_present = "pairs", conflicts_with = "pairs")]
    word1: Option<String>,
    /// Second word.
    #[arg(required_unless_present = "pairs", conflicts_with = "pairs")]
    word2: Option<String>,
    /// Part of speech: n (noun) or v (verb); with --pairs, for rows without a third column.
    #[arg(long, default_value = "n")]
    pos: String,
    /// Score every pair of a TSV file `word1<TAB>word2[<TAB>pos]` (`-` for standard input;
    /// gzip and zstd are detected) and write TSV `word1 word2 pos score`.
    #[arg(long)]
    pairs: Option<PathBuf>,
    /// Output file of --pairs (default: standard output; written whole or not at all).
    #[arg(long, short = 'o', requires = "pairs", conflicts_with_all = ["word1", "word2"])]
    out: Option<PathBuf>,
    /// WordNet directory (default: $WNHOME, else /usr/share/wordnet).
    #[arg(long)]
    wordnet: Option<PathBuf>,
}

pub fn run(args: WordnetArgs) -> anyhow::Result<()> {
    match args.command {
        WordnetCommand::Lch(a) => score(Measure::Lch, a),
        WordnetCommand::Path(a) => score(Measure::Path, a),
    }
}

fn score(measure: Measure, a: PairArgs) -> anyhow::Result<()> {
    let pos = Pos::parse(&a.pos)?;
    if let (Some(o), Some(p)) = (&a.out, &a.pairs) {
        serpsim::output::refuse_input_as_output(o, &[p])?;
    }
    let Some(pairs_path) = a.pairs else {
        let (word1, word2) = (a.word1.unwrap_or_default(), a.word2.unwrap_or_default());
        let wn = WordNet::open(&a.wordnet.unwrap_or_else(default_dir))?;
        let mut sim = Similarity::new(&wn);
        let name = if pos == Pos::Noun { "noun" } else { "verb" };
        for w in [&word1, &word2] {
            anyhow::ensure!(!wn.synsets(w, pos).is_empty(), "`{w}` has no {name} synset in WordNet");
        }
        anyhow::ensure!(sim.score(measure, &word1, &word2, pos).is_some(), "no {name} synsets of `{word1}` and `{word2}` share an ancestor");
        // The same labelled TSV row as `--pairs` writes (header, then the pair).
        let mut one = batch::Pairs::default();
        one.push(&word1, &word2, pos);
        let mut text = Vec::new();
        batch::write_scores(&mut sim, measure, &one, &mut text, None)?;
        out!("{}", String::from_utf8_lossy(&text))?;
        return Ok(());
    };
    // Check everything before the work: the output place, the input (whole), the database.
    let to_stdout = a.out.as_deref().is_none_or(serpsim::input::is_stdin);
    if let Some(out) = a.out.as_deref().filter(|_| !to_stdout) {
        anyhow::ensure!(!out.is_dir(), "--out {}: is a directory, expected a file name", out.display());
    }
    let pairs = batch::read_pairs(serpsim::input::open(&pairs_path)?, pos)?;
    let wn = WordNet::open(&a.wordnet.unwrap_or_else(default_dir))?;
    let mut sim = Similarity::new(&wn);
    let progress = Progress::new(&format!("wordnet {}", measure.name()));
    progress.phase(&format!("wordnet {}", measure.name()), "pairs", Some(pairs.len() as u64));
    let reporter = Reporter::start(&progress, if pairs.len() > 1_000_000 { display() } else { Display::Off });
    let counts = if to_stdout {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        let c = batch::write_scores(&mut sim, measure, &pairs, &mut w, Some(&progress)).and_then(|c| w.flush().map(|_| c));
        c.map_err(|e| anyhow::anyhow!("writing standard output: {e}"))?
    } else {
        let out = a.out.expect("checked");
        let mut counts = batch::Counts::default();
        serpsim::output::write_file_with(&out, |w| {
            counts = batch::write_scores(&mut sim, measure, &pairs, w, Some(&progress))?;
            Ok(())
        })?;
        counts
    };
    drop(reporter);
    if counts.missing > 0 {
        eprintln!(
            "{}: {} of {} pair(s) have no score (a word without a synset of that part of speech, or no shared \
             ancestor); their score field is empty",
            pairs_path.display(),
            counts.missing,
            pairs.len()
        );
    }
    let _ = std::io::stderr().flush();
    Ok(())
}

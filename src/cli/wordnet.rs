//! `serpsim wordnet lch WORD1 WORD2 [--pos n|v]`.

use serpsim::wordnet::{default_dir, Pos, Similarity, WordNet};
use std::path::PathBuf;

/// Arguments of `serpsim wordnet`.
#[derive(clap::Args)]
pub struct WordnetArgs {
    #[command(subcommand)]
    command: WordnetCommand,
}

#[derive(clap::Subcommand)]
enum WordnetCommand {
    /// Word-level Leacock–Chodorow similarity (max over synset pairs, as NLTK), printed as a number.
    Lch {
        /// First word (inflected forms are lemmatised as NLTK's morphy does).
        word1: String,
        /// Second word.
        word2: String,
        /// Part of speech: n (noun) or v (verb).
        #[arg(long, default_value = "n")]
        pos: String,
        /// WordNet directory (default: $WNHOME, else /usr/share/wordnet).
        #[arg(long)]
        wordnet: Option<PathBuf>,
    },
}

pub fn run(args: WordnetArgs) -> anyhow::Result<()> {
    match args.command {
        WordnetCommand::Lch { word1, word2, pos, wordnet } => {
            let pos = Pos::parse(&pos)?;
            let wn = WordNet::open(&wordnet.unwrap_or_else(default_dir))?;
            let mut sim = Similarity::new(&wn);
            let name = if pos == Pos::Noun { "noun" } else { "verb" };
            for w in [&word1, &word2] {
                anyhow::ensure!(!wn.synsets(w, pos).is_empty(), "`{w}` has no {name} synset in WordNet");
            }
            match sim.lch(&word1, &word2, pos) {
                Some(v) => println!("{v}"),
                None => anyhow::bail!("no {name} synsets of `{word1}` and `{word2}` share an ancestor"),
            }
            Ok(())
        }
    }
}

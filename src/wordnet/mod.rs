//! WordNet 3.0: a reader for the database files, the hypernym taxonomy of nouns and verbs,
//! NLTK-style lemmatisation (`morphy`), Leacock–Chodorow and path similarity exactly as NLTK's
//! `Synset.lch_similarity` and `Synset.path_similarity` compute them, and a batch scorer for
//! TSV files of word pairs ([`batch`]).
//!
//! The database is looked up in `$WNHOME` (or `$WNHOME/dict`), else `/usr/share/wordnet`
//! (Debian's `wordnet-base`). Only nouns and verbs are loaded: LCH is defined on the
//! hypernym taxonomy, which WordNet has for those two parts of speech only.
//!
//! ```no_run
//! use serpsim::wordnet::{Pos, Similarity, WordNet};
//! let wn = WordNet::open_default()?;
//! let mut sim = Similarity::new(&wn);
//! let v = sim.lch("dog", "cat", Pos::Noun).unwrap();
//! assert!(v > 2.0 && v <= sim.max_lch(Pos::Noun));
//! # Ok::<(), serpsim::Error>(())
//! ```

pub mod batch;
mod lch;
mod reader;

pub use lch::{Measure, Similarity};
pub use reader::PosDb;

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Part of speech with a hypernym taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pos {
    /// Nouns (`n`): one taxonomy under `entity.n.01`, no simulated root (NLTK, WordNet 3.0).
    Noun,
    /// Verbs (`v`): many taxonomies, joined by NLTK's simulated root.
    Verb,
}

impl Pos {
    /// Both parts of speech, nouns first.
    pub const ALL: [Pos; 2] = [Pos::Noun, Pos::Verb];

    /// WordNet's file suffix (`noun`, `verb`).
    pub fn file_suffix(self) -> &'static str {
        match self {
            Pos::Noun => "noun",
            Pos::Verb => "verb",
        }
    }

    /// WordNet's one-letter tag (`n`, `v`).
    pub fn tag(self) -> char {
        match self {
            Pos::Noun => 'n',
            Pos::Verb => 'v',
        }
    }

    /// Parses `n`/`noun` or `v`/`verb`.
    pub fn parse(s: &str) -> Result<Pos> {
        match s {
            "n" | "noun" => Ok(Pos::Noun),
            "v" | "verb" => Ok(Pos::Verb),
            other => Err(Error::Invalid(format!("unknown part of speech `{other}`: use n or v"))),
        }
    }

    fn idx(self) -> usize {
        self as usize
    }
}

/// The noun and verb parts of a WordNet database.
#[derive(Debug)]
pub struct WordNet {
    dir: PathBuf,
    dbs: [PosDb; 2],
}

/// The directory NLTK-free tools look in: `$WNHOME/dict` or `$WNHOME` when set, else
/// `/usr/share/wordnet`.
pub fn default_dir() -> PathBuf {
    match std::env::var_os("WNHOME") {
        Some(home) if !home.is_empty() => {
            let home = PathBuf::from(home);
            if home.join("dict").join("data.noun").is_file() {
                home.join("dict")
            } else {
                home
            }
        }
        _ => PathBuf::from("/usr/share/wordnet"),
    }
}

/// How to get the database, for error messages.
pub const INSTALL_HINT: &str = "install WordNet 3.0 with `apt-get install wordnet-base` \
     (Debian/Ubuntu; files go to /usr/share/wordnet) or set WNHOME to a directory holding \
     data.noun, index.noun, noun.exc, data.verb, index.verb and verb.exc";

impl WordNet {
    /// Opens the database in [`default_dir`].
    pub fn open_default() -> Result<WordNet> {
        WordNet::open(&default_dir())
    }

    /// Opens the database in `dir` (data.noun, index.noun, noun.exc and the verb files).
    /// Missing files give an error that says how to install them.
    pub fn open(dir: &Path) -> Result<WordNet> {
        for pos in Pos::ALL {
            for name in [format!("data.{}", pos.file_suffix()), format!("index.{}", pos.file_suffix()), format!("{}.exc", pos.file_suffix())] {
                let p = dir.join(&name);
                if !p.is_file() {
                    return Err(Error::Invalid(format!("WordNet database file {} not found: {INSTALL_HINT}", p.display())));
                }
            }
        }
        let noun = PosDb::load(dir, Pos::Noun)?;
        let verb = PosDb::load(dir, Pos::Verb)?;
        Ok(WordNet { dir: dir.to_path_buf(), dbs: [noun, verb] })
    }

    /// Directory the database was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The noun or verb database.
    pub fn db(&self, pos: Pos) -> &PosDb {
        &self.dbs[pos.idx()]
    }

    /// Base forms of `word` that are in the index, as NLTK 3.10's `_morphy` finds them:
    /// the word is lower-cased; if it is in the exception list, the candidates are the word
    /// and its listed base forms, otherwise the word and the results of applying each
    /// detachment rule once; candidates in the index are kept, first occurrence first.
    pub fn morphy(&self, word: &str, pos: Pos) -> Vec<String> {
        self.db(pos).morphy(&word.to_lowercase())
    }

    /// Synsets (indices into [`PosDb`]) of `word`, in NLTK's `wn.synsets(word, pos)` order.
    pub fn synsets(&self, word: &str, pos: Pos) -> Vec<u32> {
        let db = self.db(pos);
        let mut out = Vec::new();
        for form in db.morphy(&word.to_lowercase()) {
            if let Some(ss) = db.index_lookup(&form) {
                out.extend_from_slice(ss);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;

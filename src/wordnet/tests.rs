//! Mini WordNet (tests/fixtures/wordnet/mini, see its README) with hand-computed values, and
//! the real WordNet 3.0 against NLTK's values (tests/fixtures/wordnet/nltk_lch.tsv).

use super::*;

fn mini() -> WordNet {
    WordNet::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wordnet/mini")).unwrap()
}

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("a value");
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
}

#[test]
fn mini_structure() {
    let wn = mini();
    let n = wn.db(Pos::Noun);
    assert_eq!(n.len(), 15);
    // Longest path: rex -> dog -> animal -> object -> entity, chimera -> cat -> ... = 4.
    assert_eq!(n.taxonomy_depth(), 4);
    assert!(!n.simulate_root());
    let chimera = wn.synsets("chimera", Pos::Noun)[0];
    assert_eq!(n.hypernyms(chimera).len(), 2);
    assert_eq!(n.max_depth(chimera), 4);
    assert_eq!(n.offset(chimera), 1062);
    assert_eq!(wn.synsets("dog", Pos::Noun).len(), 2);
    assert_eq!(n.lemmas(wn.synsets("dog", Pos::Noun)[0]), ["dog", "domestic_dog"]);
    // Verbs: sprint -> run -> move, depth 2, plus the simulated root.
    let v = wn.db(Pos::Verb);
    assert_eq!(v.taxonomy_depth(), 3);
    assert!(v.simulate_root());
}

#[test]
fn mini_morphy_follows_nltk() {
    let wn = mini();
    assert_eq!(wn.morphy("Dogs", Pos::Noun), ["dog"]);
    assert_eq!(wn.morphy("geese", Pos::Noun), ["goose"]); // exception list
    assert_eq!(wn.morphy("mice", Pos::Noun), Vec::<String>::new()); // base not in index
    assert_eq!(wn.morphy("ran", Pos::Verb), ["run"]);
    assert_eq!(wn.morphy("walking", Pos::Verb), ["walk"]); // "walke" is not in the index
    assert_eq!(wn.morphy("sprints", Pos::Verb), ["sprint"]);
    assert_eq!(wn.morphy("cat", Pos::Verb), Vec::<String>::new());
}

#[test]
fn mini_noun_lch_closed_forms() {
    let wn = mini();
    let mut s = Similarity::new(&wn);
    let n = Pos::Noun; // 2D = 8
    close(s.lch("dog", "dog", n), 8f64.ln());
    close(s.lch("dog", "cat", n), (8.0f64 / 3.0).ln()); // dog -> animal <- cat: p = 2
    close(s.lch("dogs", "cats", n), (8.0f64 / 3.0).ln());
    close(s.lch("rex", "cat", n), 2f64.ln()); // instance hypernym: p = 3
    close(s.lch("chimera", "idea", n), 4f64.ln()); // second hypernym: p = 1
    close(s.lch("chimera", "dog", n), 2f64.ln()); // shortest of two routes: p = 3
    close(s.lch("geese", "tree", n), -(5.0f64 / 8.0).ln()); // p = 4
                                                            // "frump" only shares the second sense of "dog": frump = dog.n.02, p = 0.
    close(s.lch("frump", "dog", n), 8f64.ln());
    assert_eq!(s.lch("orphan", "dog", n), None); // no common ancestor, no root for nouns
    assert_eq!(s.lch("unicorn", "dog", n), None);
    assert_eq!(s.cached_words(n), 12);
    close(Some(s.max_lch(n)), 8f64.ln());
}

#[test]
fn mini_verb_lch_uses_simulated_root() {
    let wn = mini();
    let mut s = Similarity::new(&wn);
    let v = Pos::Verb; // D = 2 + 1, 2D = 6
    close(s.lch("sprint", "walk", v), (6.0f64 / 4.0).ln()); // p = 3
    close(s.lch("ran", "walk", v), 2f64.ln()); // exception list, p = 2
    close(s.lch("walking", "walk", v), 6f64.ln());
    // Separate trees: sprint reaches the root at 2 + 1, ponder at 1 + 1: p = 5, LCH = 0.
    close(s.lch("sprint", "ponder", v), 0.0);
    close(s.lch("move", "think", v), (6.0f64 / 3.0).ln()); // roots: 1 + 1
    let (a, b) = (wn.synsets("sprint", v)[0], wn.synsets("ponder", v)[0]);
    close(s.synset_lch(a, b, v), 0.0);
}

#[test]
fn missing_files_say_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let err = WordNet::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("data.noun") && err.contains("apt-get install wordnet-base") && err.contains("WNHOME"), "{err}");
}

#[test]
fn malformed_data_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wordnet/mini");
    for f in ["data.noun", "index.noun", "noun.exc", "data.verb", "index.verb", "verb.exc"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("data.verb"), "  1 header\n00000019 29 v zz move 0 000 | bad w_cnt\n").unwrap();
    let err = WordNet::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("data.verb:2") && err.contains("w_cnt"), "{err}");
}

/// The real WordNet 3.0. A missing database fails the test (scripts/test.sh installs
/// `wordnet-base`); it never skips.
fn real() -> WordNet {
    WordNet::open(&default_dir()).unwrap_or_else(|e| panic!("real WordNet is required (scripts/test.sh installs it): {e}"))
}

/// Compares word-level scores with an NLTK fixture (`pos word1 word2 value|none`); returns
/// the pairs checked per part of speech and the largest difference.
fn against_nltk(wn: &WordNet, measure: Measure, text: &str) -> ([usize; 2], f64) {
    let mut s = Similarity::new(wn);
    let mut checked = [0usize; 2];
    let mut max_diff: f64 = 0.0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let pos = Pos::parse(f[0]).unwrap();
        let got = s.score(measure, f[1], f[2], pos);
        match f[3] {
            "none" => assert_eq!(got, None, "{line}"),
            v => {
                let want: f64 = v.parse().unwrap();
                let got = got.unwrap_or_else(|| panic!("None for {line}"));
                assert!((got - want).abs() < 1e-9, "{line}: got {got}");
                max_diff = max_diff.max((got - want).abs());
            }
        }
        checked[pos as usize] += 1;
    }
    (checked, max_diff)
}

/// Word-level LCH on the real WordNet 3.0 against NLTK 3.10.4 (1,200 pairs, 1e-9;
/// tests/fixtures/wordnet/nltk_lch.tsv, made by analysis/wordnet/nltk_lch.py).
#[test]
fn real_wordnet_matches_nltk() {
    let wn = real();
    assert_eq!(wn.db(Pos::Noun).taxonomy_depth(), 19);
    assert_eq!(wn.db(Pos::Verb).taxonomy_depth(), 13);
    let (checked, max_diff) = against_nltk(&wn, Measure::Lch, include_str!("../../tests/fixtures/wordnet/nltk_lch.tsv"));
    eprintln!("real WordNet vs NLTK (lch): {checked:?} noun/verb pairs, max |diff| = {max_diff:e}");
    assert!(checked[0] >= 500 && checked[1] >= 500 && checked[0] + checked[1] >= 1000, "{checked:?}");
}

/// Word-level path similarity against NLTK 3.10.4's `path_similarity` on the same 1,200
/// pairs (tests/fixtures/wordnet/nltk_path.tsv, `MEASURE=path analysis/wordnet/nltk_lch.py`).
#[test]
fn real_wordnet_path_matches_nltk() {
    let wn = real();
    let (checked, max_diff) = against_nltk(&wn, Measure::Path, include_str!("../../tests/fixtures/wordnet/nltk_path.tsv"));
    eprintln!("real WordNet vs NLTK (path): {checked:?} noun/verb pairs, max |diff| = {max_diff:e}");
    assert_eq!(checked, [700, 500]);
}

#[test]
fn mini_path_similarity_closed_forms() {
    let wn = mini();
    let mut s = Similarity::new(&wn);
    // Path lengths from the LCH tests above: 1 / (p + 1).
    close(s.path("dog", "cat", Pos::Noun), 1.0 / 3.0);
    close(s.path("dog", "dog", Pos::Noun), 1.0);
    close(s.path("rex", "cat", Pos::Noun), 0.25);
    close(s.path("sprint", "ponder", Pos::Verb), 1.0 / 6.0); // through the simulated root, p = 5
    assert_eq!(s.path("orphan", "dog", Pos::Noun), None);
}

#[test]
fn batch_reads_checks_and_scores_pairs() {
    use crate::input::Input;
    let wn = mini();
    let text = "word1\tword2\tpos\ndog\tcat\n# comment\n\nran\twalk\tverb\nunicorn\tdog\tn\n";
    let pairs = batch::read_pairs(Input::from_bytes("p.tsv", text.as_bytes().to_vec()).unwrap(), Pos::Noun).unwrap();
    assert_eq!(pairs.len(), 3);
    assert_eq!(pairs.get(1), ("ran", "walk", Pos::Verb));
    let mut out = Vec::new();
    let c = batch::write_scores(&mut Similarity::new(&wn), Measure::Lch, &pairs, &mut out, None).unwrap();
    assert_eq!(c, batch::Counts { scored: 2, missing: 1 });
    // ln(8/3) and ln 2 from the closed forms above, printed as Rust's shortest round trip.
    let want = format!("word1\tword2\tpos\tlch\ndog\tcat\tn\t{}\nran\twalk\tv\t{}\nunicorn\tdog\tn\t\n", (8.0f64 / 3.0).ln(), 2f64.ln());
    assert_eq!(String::from_utf8(out).unwrap(), want);
    for (bad, what) in [
        ("dog\n", "p.tsv:1: expected at least 2 TAB-separated fields (word1, word2[, pos][, extra...]), found 1"),
        ("dog\tcat\na\tb\tadj\n", "p.tsv:2: part of speech `adj`: use n or v"),
        ("dog\tcat\t7\na\tb\n", "p.tsv:2: 0 extra column(s) after word1, word2[, pos], where the first pair has 1"),
        ("dog\t \n", "p.tsv:1: empty word"),
        ("# nothing\n", "p.tsv: no word pairs"),
    ] {
        let err = batch::read_pairs(Input::from_bytes("p.tsv", bad.as_bytes().to_vec()).unwrap(), Pos::Noun).unwrap_err().to_string();
        assert!(err.starts_with(what), "{bad:?}: {err}");
    }
}

#[test]
fn batch_carries_extra_columns_through() {
    // A word-similarity data set's layout (word1, word2, human score) and one with a part of
    // speech before an id and a score: the extra columns follow the score unchanged, named by
    // the header or extra1, extra2, ... Expected rows written by hand from the input rows and
    // the closed forms of the mini WordNet (lch(dog, cat) = ln(8/3), lch(ran, walk) = ln 2).
    use crate::input::Input;
    let wn = mini();
    let read = |text: &str| batch::read_pairs(Input::from_bytes("p.tsv", text.as_bytes().to_vec()).unwrap(), Pos::Noun).unwrap();
    let score = |pairs: &batch::Pairs| {
        let mut out = Vec::new();
        batch::write_scores(&mut Similarity::new(&wn), Measure::Lch, pairs, &mut out, None).unwrap();
        String::from_utf8(out).unwrap()
    };
    let simlex = read("word1\tword2\tSimLex999\ndog\tcat\t1.75\nunicorn\tdog\t0.5\n");
    let (l83, l2) = ((8.0f64 / 3.0).ln(), 2f64.ln());
    assert_eq!(score(&simlex), format!("word1\tword2\tpos\tlch\tSimLex999\ndog\tcat\tn\t{l83}\t1.75\nunicorn\tdog\tn\t\t0.5\n"));
    let with_pos = read("dog\tcat\tn\tp1\t7\nran\twalk\tv\tp2\t8.5\n");
    assert_eq!(score(&with_pos), format!("word1\tword2\tpos\tlch\textra1\textra2\ndog\tcat\tn\t{l83}\tp1\t7\nran\twalk\tv\t{l2}\tp2\t8.5\n"));
}

#[test]
fn cache_grows_and_tells_words_apart() {
    let wn = mini();
    let mut s = Similarity::new(&wn);
    // 3,000 distinct non-words force several table growths; real words stay correct.
    for i in 0..3000 {
        assert_eq!(s.lch(&format!("w{i}"), "dog", Pos::Noun), None);
    }
    close(s.lch("dog", "cat", Pos::Noun), (8.0f64 / 3.0).ln());
    close(s.lch("cat", "cats", Pos::Noun), 8f64.ln());
    assert_eq!(s.lch("ca", "cat", Pos::Noun), None); // a prefix is another word
    assert_eq!(s.cached_words(Pos::Noun), 3000 + 4);
}

#[test]
fn word_level_equals_max_over_synset_pairs() {
    // The merged-ancestor shortcut against brute force over every lemma pair of the mini WordNet.
    let wn = mini();
    let mut s = Similarity::new(&wn);
    for pos in Pos::ALL {
        let db = wn.db(pos);
        let words: Vec<String> = (0..db.len() as u32).flat_map(|x| db.lemmas(x).to_vec()).collect();
        for a in &words {
            for b in &words {
                let mut best: Option<f64> = None;
                for &x in &wn.synsets(a, pos) {
                    for &y in &wn.synsets(b, pos) {
                        if let Some(v) = s.synset_lch(x, y, pos) {
                            best = Some(best.map_or(v, |b: f64| b.max(v)));
                        }
                    }
                }
                assert_eq!(s.lch(a, b, pos), best, "{a} {b}");
            }
        }
    }
}

#!/usr/bin/env python3
"""Reference word-level Leacock-Chodorow similarities from NLTK, for the Rust tests.

Usage:  python3 analysis/wordnet/nltk_lch.py [WORDNET_DIR] > tests/fixtures/wordnet/nltk_lch.tsv
        MEASURE=path python3 analysis/wordnet/nltk_lch.py > tests/fixtures/wordnet/nltk_path.tsv

WORDNET_DIR defaults to $WNHOME, else /usr/share/wordnet (Debian's wordnet-base, WordNet 3.0).
Debian's package lacks the `lexnames` file that NLTK's reader insists on, so the script copies
the database into a temporary directory and writes `lexnames` there from the table in the
lexnames(5WN) man page (file number, name, syntactic category). /usr/share/wordnet is not modified.

Word-level LCH = max over the synset pairs of wn.synsets(w1, pos) x wn.synsets(w2, pos) of
Synset.lch_similarity (NLTK's defaults: simulate_root=True, which only adds a root for verbs).
With MEASURE=path in the environment: the same maximum of Synset.path_similarity (defaults,
simulate_root=True) over the same word pairs.
Output: TSV `pos word1 word2 lch` (or `path`) with lch printed by repr() (17 significant digits), or `none`
when a word has no synset or no pair has a path. The word sample is drawn with a fixed seed.
"""
import gzip
import os
import random
import re
import shutil
import sys
import tempfile

import nltk
from nltk.corpus.reader.wordnet import WordNetCorpusReader

MAN = "/usr/share/man/man5/lexnames.5WN.gz"


def lexnames_from_man():
    text = gzip.open(MAN, "rt").read()
    rows = []
    for line in text.splitlines():
        m = re.match(r"^(\d\d)\t(\S+)\s*\t", line)
        if m:
            num, name = int(m.group(1)), m.group(2)
            cat = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}[name.split(".")[0]]
            rows.append((num, name, cat))
    assert [r[0] for r in rows] == list(range(len(rows))), rows
    assert len(rows) == 45, len(rows)
    return "".join("%02d\t%s\t%d\n" % r for r in rows)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("WNHOME", "/usr/share/wordnet")
    tmp = tempfile.mkdtemp(prefix="wn-nltk-")
    for name in os.listdir(src):
        p = os.path.join(src, name)
        if os.path.isfile(p):
            shutil.copy(p, tmp)
    if not os.path.exists(os.path.join(tmp, "lexnames")):
        with open(os.path.join(tmp, "lexnames"), "w") as f:
            f.write(lexnames_from_man())
    nltk.data.path.append(tmp)  # NLTK >= 3.9 only reads corpora under its data paths
    # NLTK 3.10 maps synsets to the packaged "wordnet" corpus for the multilingual (OMW) data on
    # construction; that needs nltk_data, which we do not use. The map plays no part in LCH.
    WordNetCorpusReader.map_wn = lambda self, version="wordnet": None
    wn = WordNetCorpusReader(tmp, None)
    print("# NLTK %s, WordNet %s from %s" % (nltk.__version__, wn.get_version(), src))
    measure = os.environ.get("MEASURE", "lch")
    assert measure in ("lch", "path"), measure
    print("# pos\tword1\tword2\t%s" % measure)

    rng = random.Random(20150809)
    for pos, n_pairs in (("n", 700), ("v", 500)):
        lemmas = sorted(l for l in wn.all_lemma_names(pos) if re.fullmatch(r"[a-z]+", l))
        # Mix in inflected forms and non-words so the morphy path and misses are tested.
        extra = {"n": ["dogs", "geese", "children", "boxes", "churches", "wolves", "women",
                       "mice", "analyses", "cities", "xyzzyq", "running"],
                 "v": ["ran", "went", "eating", "cried", "tries", "boxes", "stopped",
                       "was", "hoping", "flies", "xyzzyq", "dogs"]}[pos]
        words = rng.sample(lemmas, 2 * n_pairs - 2 * len(extra)) + extra * 2
        rng.shuffle(words)
        for i in range(n_pairs):
            w1, w2 = words[2 * i], words[2 * i + 1]
            if i % 50 == 0:
                w2 = w1  # identical words
            best = None
            for s1 in wn.synsets(w1, pos):
                for s2 in wn.synsets(w2, pos):
                    v = s1.lch_similarity(s2) if measure == "lch" else s1.path_similarity(s2)
                    if v is not None and (best is None or v > best):
                        best = v
            print("%s\t%s\t%s\t%s" % (pos, w1, w2, "none" if best is None else repr(best)))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()

"""Writes the input files of tests/fixtures/trec_eval/ (see its README.md).

Every file is derived from the project's own bundled `study_logs/trec/qrels.test` and
`study_logs/trec/results.test` (50 topics, written from a seed by
analysis/metrics/make_trec_collection.py) or written by this script from a fixed seed; none is
fetched, none comes from trec_eval's test suite or a TREC collection. They exercise what trec_eval's own test suite
exercises, in the same layouts:

  qrels.test, results.test   copies of study_logs/trec/
  results.extra              no topic 302 (a qrels topic without results), the first 60 lines
                             (in file order) of every other topic, every 5th line with extra
                             trailing fields (as trec_eval's results.trunc: "junk" after the
                             run tag), and a run topic 399 that has no judgements
  qrels.graded               qrels.test with grades -1..4 (relevant -> 1..4, not relevant -> 0
                             or -1, chosen by a CRC32 of topic and docno)
  qrels.comments             qrels.test with '#' comment lines and one relevant docno containing '#'
  qrels.binary               qrels.test with grade 2 read as 1 (binary judgements)
  qrels.302, results.302     topic 302 of qrels.test / results.test only
  results.ties               results.test with scores rounded to 1 decimal (ties everywhere;
                             trec_eval orders ties by docno), lines in reverse order
  qrels.synth.zst            50 synthetic topics (401-450), graded 0-2, zstd -19
  run.synth_a.gz             a run on them, 100 documents per topic, gzip -9 -n
  run.synth_b                a weaker run on the same topics (the pair for `eval --ci`)

Usage (repository root): python3 analysis/metrics/make_trec_fixtures.py
Then regenerate the expected outputs with analysis/metrics/trec_eval_fixtures.sh.
"""
import gzip
import os
import random
import subprocess
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SRC = os.path.join(ROOT, "study_logs", "trec")
OUT = os.path.join(ROOT, "tests", "fixtures", "trec_eval")


def read(name):
    with open(os.path.join(SRC, name)) as f:
        return f.read().splitlines()


def write(name, lines):
    with open(os.path.join(OUT, name), "w") as f:
        f.write("".join(line + "\n" for line in lines))


def crc(*parts):
    return zlib.crc32(" ".join(parts).encode())


def main():
    qrels, results = read("qrels.test"), read("results.test")
    write("qrels.test", qrels)
    write("results.test", results)

    # results.extra: no topic 302, the first 60 lines of each other topic, trailing junk, topic 399.
    extra, per_topic = [], {}
    for line in results:
        topic = line.split()[0]
        if topic == "302":
            continue
        per_topic[topic] = per_topic.get(topic, 0) + 1
        if per_topic[topic] > 60:
            continue
        if len(extra) % 5 == 4:
            line += " extra fields after the tag"
        extra.append(line)
    for i in range(5):  # a run topic without judgements: trec_eval ignores it
        extra.append(f"399\tQ0\tNOJUDGE-{i}\t{i + 1}\t{5 - i:10.6f}\tSTANDARD")
    write("results.extra", extra)

    # qrels.graded: grades -1..4.
    graded = []
    for line in qrels:
        topic, it, doc, rel = line.split()
        h = crc(topic, doc)
        grade = 1 + h % 4 if int(rel) > 0 else -(h % 2)
        graded.append(f"{topic} {it} {doc} {grade}")
    write("qrels.graded", graded)

    # qrels.comments: comment lines, one judged docno with '#' inside.
    # trec_eval 10 skips one '#' line at a time (two comment lines in a row or an indented '#'
    # make it report a malformed line), so the comments here are single lines in column 0.
    comments = ["# comment at the top"]
    # The '#' goes into a relevant document's id: read as a comment instead, the topic would
    # lose a relevant document (num_rel and recall change).
    hashed = next(i for i, l in enumerate(qrels) if l.split()[3] == "1" and i > 3)
    for i, line in enumerate(qrels):
        if i == 3:
            comments.append("# comment between judgements")
        if i == hashed:
            topic, it, doc, rel = line.split()
            line = f"{topic} {it} {doc[:2]}#{doc[2:]} {rel}"
        comments.append(line)
        if i == len(qrels) // 2:
            comments.append("#comment without a blank")
    write("qrels.comments", comments)

    # qrels.binary: grades 2 -> 1, for the measures whose peers agree on binary judgements only
    # (trec_eval's rbp normalises graded gains to [0, 1], ir_measures' RBP(p=..) does not).
    binary = []
    for line in qrels:
        topic, it, doc, rel = line.split()
        binary.append(f"{topic} {it} {doc} {min(int(rel), 1)}")
    write("qrels.binary", binary)

    write("qrels.302", [l for l in qrels if l.split()[0] == "302"])
    write("results.302", [l for l in results if l.split()[0] == "302"])

    ties = []
    for line in results:
        f = line.split()
        ties.append(f"{f[0]} {f[1]} {f[2]} {f[3]} {float(f[4]):.1f} {f[5]}")
    write("results.ties", ties[::-1])

    # The synthetic collection: 50 topics, 300 candidate documents each, a latent grade 0-2,
    # 60 % of the candidates judged. Run A ranks by grade + N(0, 1) noise, run B by
    # 0.5 * grade + N(0, 1); both return their top 100 with 4-decimal scores.
    rng = random.Random(20260523)
    synth_q, run_a, run_b = [], [], []
    for t in range(401, 451):
        docs = []
        for d in range(300):
            u = rng.random()
            grade = 2 if u < 0.04 else 1 if u < 0.14 else 0
            doc = f"D{t}-{d:04d}"
            docs.append((doc, grade))
            if rng.random() < 0.6 or (grade > 0 and rng.random() < 0.5):
                synth_q.append(f"{t} 0 {doc} {grade}")
        for run, weight, tag in ((run_a, 1.0, "synthA"), (run_b, 0.5, "synthB")):
            scored = sorted(((weight * g + rng.gauss(0, 1), doc) for doc, g in docs), reverse=True)[:100]
            for r, (s, doc) in enumerate(scored, 1):
                run.append(f"{t} Q0 {doc} {r} {s:.4f} {tag}")
    write("qrels.synth", synth_q)
    subprocess.run(["zstd", "-19", "-q", "-f", "--rm", os.path.join(OUT, "qrels.synth"), "-o",
                    os.path.join(OUT, "qrels.synth.zst")], check=True)
    with open(os.path.join(OUT, "run.synth_a.gz"), "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as g:
            g.write("".join(l + "\n" for l in run_a).encode())
    write("run.synth_b", run_b)


if __name__ == "__main__":
    main()

"""serpsim.evaluate against `serpsim eval` on the bundled TREC run, several runs, agreement,
significance, and bad input."""

import io

import pandas as pd
import pyarrow as pa
import pytest

import serpsim
from serpsim._tables import read_csv
from conftest import cli_close, DATA, run_cli

QRELS = DATA / "trec" / "qrels.test"
RUN = DATA / "trec" / "results.test"
# A mix of trec_eval and serpsim spellings; the labels are whatever the library's parser makes
# of them (no list of names is kept here).
MEASURES = ["map", "P_5", "ndcg@10", "recip_rank", "rbp:p=0.8", "err@20", "num_rel_ret"]


def read_qrels(path):
    # Independent of serpsim's readers: pandas splits the whitespace-separated columns.
    q = read_csv(path, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"], dtype={"query_id": str, "doc_id": str})
    return q


def read_run(path):
    r = read_csv(path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"], dtype={"query_id": str, "doc_id": str})
    return r[["query_id", "doc_id", "score"]], r["tag"][0]


def margs(measures):
    # `serpsim eval -m` takes one measure per flag, as trec_eval's does.
    return [a for m in measures for a in ("-m", m)]


def cli_csv(cli, *args):
    return read_csv(io.StringIO(run_cli(cli, "eval", *args)), dtype={"topic": str, "value": str})


def test_dataframes_equal_the_cli_to_the_last_digit(cli):
    # Expected: `serpsim eval qrels.test results.test -m ... -q` of this checkout; the CSV
    # prints shortest round-trip floats, so the text equals and the parsed floats are equal.
    run, tag = read_run(RUN)
    ev = serpsim.evaluate(read_qrels(QRELS), {tag: run}, MEASURES, progress=False)
    expected_text = run_cli(cli, "eval", str(QRELS), str(RUN), "-q", *margs(MEASURES))
    assert ev.to_text("csv", per_query=True) == expected_text
    expected = read_csv(io.StringIO(expected_text), dtype={"topic": str})
    per = expected[expected["topic"] != "all"]
    got = ev.per_query
    assert list(got.columns) == ["run", "query_id", "measure", "value"]
    merged = per.merge(got, left_on=["run", "metric", "topic"], right_on=["run", "measure", "query_id"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all()
    assert cli_close(merged["value_y"], merged["value_x"])
    agg = expected[expected["topic"] == "all"].reset_index(drop=True)
    assert cli_close(ev.aggregate["value"], agg["value"])
    assert list(ev.aggregate["measure"]) == list(agg["metric"])
    # Unpacking gives the two frames.
    per_query, aggregate = ev
    assert per_query is ev.per_query and aggregate is ev.aggregate


def test_paths_gzip_and_arrow_give_the_same_numbers(tmp_path):
    import gzip

    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN.read_bytes()))
    from_files = serpsim.evaluate(QRELS, gz, MEASURES, progress=False)
    run, tag = read_run(RUN)
    from_arrow = serpsim.evaluate(pa.Table.from_pandas(read_qrels(QRELS)), {tag: pa.Table.from_pandas(run)}, MEASURES, progress=False)
    assert from_files.runs == [tag]
    pd.testing.assert_frame_equal(from_files.per_query, from_arrow.per_query)
    # Integer query ids read as their decimal text.
    q = read_qrels(QRELS).astype({"query_id": int})
    r = run.astype({"query_id": int})
    from_ints = serpsim.evaluate(q, {tag: r}, MEASURES, progress=False)
    pd.testing.assert_frame_equal(from_ints.per_query, from_arrow.per_query)


def test_several_runs_agreement_and_significance_equal_the_cli(cli, tmp_path):
    # A second and third run: the bundled run with scores reversed and shifted by rank.
    lines = RUN.read_text().splitlines()
    rev = tmp_path / "rev.txt"
    rev.write_text("".join(f"{f[0]} Q0 {f[2]} {f[3]} {-float(f[4])} rev\n" for f in (l.split() for l in lines)))
    half = tmp_path / "half.txt"
    half.write_text("".join(f"{f[0]} Q0 {f[2]} {f[3]} {float(f[4]) * (i % 7)} half\n" for i, f in enumerate(l.split() for l in lines)))
    agree, comp = tmp_path / "agree.csv", tmp_path / "comp.csv"
    expected = run_cli(cli, "eval", str(QRELS), str(RUN), str(rev), str(half), *margs(MEASURES), "--agreement", str(agree), "--compare", str(comp), "--resamples", "500", "--seed", "3")
    ev = serpsim.evaluate(QRELS, [RUN, rev, half], MEASURES, progress=False)
    assert ev.runs == ["STANDARD", "rev", "half"]
    assert ev.to_text("csv") == expected
    a = serpsim.agreement(ev)
    ea = read_csv(agree)
    assert list(a["measure_a"]) == list(ea["metric_a"]) and list(a["measure_b"]) == list(ea["metric_b"])
    # Compared as floats: a column of whole numbers (e.g. every tau 0 or 1) reads back from the
    # CSV as integers; the values must still be equal to the last digit.
    for c in ["kendall_tau_a", "kendall_tau_b", "tau_ap", "tau_gap", "spearman", "pearson"]:
        assert cli_close(a[c].astype(float), ea[c].astype(float)), c
    c = serpsim.compare(ev, seed=3, resamples=500)
    ec = read_csv(comp)
    assert len(c) == len(ec) > 0
    for col in ["mean_difference", "t_test_p", "wilcoxon_p", "bootstrap_lower", "bootstrap_upper"]:
        assert cli_close(c[col].astype(float), ec[col].astype(float)), col
    assert list(c["queries"]) == list(ec["topics"])


def test_complete_matches_the_cli(cli, tmp_path):
    # Expected: `serpsim eval [-c]` on the run without topic 301.
    part_file = tmp_path / "part.txt"
    part_file.write_text("".join(l + "\n" for l in RUN.read_text().splitlines() if not l.startswith("301")))
    run, tag = read_run(RUN)
    part = run[run["query_id"] != "301"]
    for flag, kw in [([], {}), (["-c"], {"complete": True})]:
        expected = run_cli(cli, "eval", str(QRELS), str(part_file), "-m", "map", "-m", "P.5", "--format", "csv", *flag)
        assert serpsim.evaluate(QRELS, {tag: part}, ["map", "P.5"], progress=False, **kw).to_text() == expected
    # By hand: trec_eval's default averages over the 49 remaining queries; -c adds a 0 for 301.
    # (1e-12: numpy and serpsim sum the 49 values in different orders.)
    full = serpsim.evaluate(QRELS, {tag: run}, ["map"], progress=False).per_query.set_index("query_id")["value"]
    assert len(full) == 50
    rest = full.drop("301")
    assert abs(serpsim.evaluate(QRELS, {tag: part}, ["map"], progress=False).aggregate["value"][0] - rest.mean()) < 1e-12
    assert abs(serpsim.evaluate(QRELS, {tag: part}, ["map"], complete=True, progress=False).aggregate["value"][0] - rest.sum() / 50) < 1e-12


def test_bad_inputs_name_the_problem(tmp_path):
    run, tag = read_run(RUN)
    qrels = read_qrels(QRELS)
    with pytest.raises(serpsim.InvalidInputError, match=r"run `x`: missing column `score` \(columns present: query_id, doc_id, sc\)"):
        serpsim.evaluate(qrels, {"x": run.rename(columns={"score": "sc"})}, ["map"], progress=False)
    with pytest.raises(serpsim.InvalidInputError, match="qrels: missing column `relevance`"):
        serpsim.evaluate(qrels.rename(columns={"relevance": "rel"}), run, ["map"], progress=False)
    with pytest.raises(ValueError, match="qrels: column `relevance`: expected integers"):
        serpsim.evaluate(qrels.astype({"relevance": str}), run, ["map"], progress=False)
    dup = pd.concat([run, run.head(1)], ignore_index=True)
    # A table is read by the run reader itself; its messages count lines, line = row + 1.
    with pytest.raises(ValueError, match=rf"\(table; line = row \+ 1\):{len(run) + 1}: document `{run['doc_id'][0]}` retrieved twice for topic `301` \(first at line 1\)"):
        serpsim.evaluate(qrels, dup, ["map"], progress=False)
    with pytest.raises(ValueError, match="nosuchmeasure"):
        serpsim.evaluate(qrels, run, ["nosuchmeasure"], progress=False)
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        serpsim.evaluate(qrels, tmp_path / "missing.txt", ["map"], progress=False)
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 1.0 t\n301 Q0 d2 2\n")
    with pytest.raises(serpsim.ParseError, match=r"bad.run:2:"):
        serpsim.evaluate(QRELS, bad, ["map"], progress=False)
    with pytest.raises(ValueError, match="agreement needs at least two runs"):
        serpsim.evaluate(QRELS, RUN, ["map"], progress=False).agreement()
    with pytest.raises(TypeError, match="run `run`: expected a pandas DataFrame"):
        serpsim.evaluate(QRELS, 42, ["map"], progress=False)


def test_ir_measures_parameter_spellings_match_ir_measures():
    # Expected: ir_measures 0.4.3 and its back ends (trectools 0.0.50 for RBP(p=..), cwl-eval
    # 1.0.12 for RBP(rel=..), gdeval for ERR@10, pytrec_eval-terrier 0.5.11 otherwise), per
    # topic and mean, recorded by `python analysis/metrics/ir_measures_params.py` in
    # study_logs/metrics/ir_measures_params.json on tie-free copies of the bundled runs.
    # Tolerance 1e-12 (summation order); gdeval prints 5 decimals (5e-6).
    import json

    fixture = json.loads((DATA / "metrics" / "ir_measures_params.json").read_text())
    assert len(fixture["cases"]) >= 10
    for case in fixture["cases"]:
        qrels = read_qrels(DATA.parent / case["qrels"])
        run, _ = read_run(DATA.parent / case["run"])
        # ir_measures scores a qrels topic the run misses as 0 (trec_eval's -c).
        ev = serpsim.evaluate(qrels, run, [case["measure"]], complete=True, progress=False)
        tol = 5e-6 if case["provider"] == "gdeval" else 1e-12
        per = ev.per_query.set_index("query_id")["value"]
        for topic, want in case["per_topic"].items():
            assert abs(per[topic] - want) <= tol, (case["measure"], case["run"], topic, per[topic], want)
        assert abs(ev.aggregate["value"][0] - case["mean"]) <= tol, (case["measure"], case["run"])


def test_unsupported_ir_measures_parameters_are_refused():
    qrels = read_qrels(QRELS)
    run, _ = read_run(RUN)
    with pytest.raises(ValueError, match="judged_only.*not supported"):
        serpsim.evaluate(qrels, run, ["P(judged_only=True)@5"], progress=False)
    with pytest.raises(ValueError, match="exp-log2"):
        serpsim.evaluate(qrels, run, ["nDCG(dcg=exp-log2)@10"], progress=False)

"""serpsim.clicks against the CLI on the bundled click log (Yandex sample layout), JSON round trips, bad input."""

import json
import math

import pandas as pd
import pytest

import serpsim
from conftest import DATA, run_cli_json

YANDEX = DATA / "clicks" / "synthetic_yandex_layout.txt"


@pytest.fixture(scope="module")
def log():
    return serpsim.clicks.read_log(YANDEX, progress=False)


def test_read_log_matches_the_file(log):
    # Independent of the reader: split the file's first impression with str.split.
    first = YANDEX.read_text().splitlines()[0].split(";")[0]
    query, rest = first.split("\t")
    docs, clicked = rest.split(":")
    docs = docs.strip().split(",")
    clicked = {c.strip() for c in clicked.split(",") if c.strip()}
    row = log.iloc[0]
    assert row["query_id"] == query
    assert list(row["docs"]) == docs
    assert [bool(c) for c in row["clicks"]] == [d in clicked for d in docs]


@pytest.mark.parametrize("model", ["sdbn", "dbn"])
def test_log_likelihood_equals_the_cli(cli, log, model):
    # Expected: `serpsim clicks eval --model M --train synthetic_yandex_layout.txt` of this checkout
    # (the 75/25 protocol). JSON from serde_json and Python's repr are both shortest round-trip,
    # so equal floats print equally: compare exactly.
    expected = run_cli_json(cli, "clicks", "eval", "--model", model, "--train", str(YANDEX), "--iterations", "20")
    train, test = serpsim.clicks.split(log)
    assert (len(train), len(test)) == (expected["train_sessions"], expected["test_sessions"])
    m = serpsim.clicks.fit(train, model=model, iterations=20, progress=False)
    got = m.evaluate(test)
    assert got["log_likelihood"] == expected["log_likelihood"]
    assert got["perplexity"] == expected["perplexity"]
    assert got["perplexity_at_rank"] == expected["perplexity_at_rank"]


def test_sdbn_matches_pyclick_numbers(log):
    # PyClick's SDBN on this log with the same split (PyClick commit 98e7e46,
    # `python3 analysis/clickmodels/pyclick_reference.py study_logs/clicks/synthetic_yandex_layout.txt`,
    # analysis/clickmodels/README.md): log-likelihood -0.282214, perplexity 1.326904.
    train, test = serpsim.clicks.split(log)
    assert (len(train), len(test)) == (22500, 7500)
    got = serpsim.clicks.fit(train, model="sdbn", progress=False).evaluate(test)
    assert round(got["log_likelihood"], 6) == -0.282214
    assert round(got["perplexity"], 6) == 1.326904


def test_json_round_trip_and_cli_files(cli, log, tmp_path):
    m = serpsim.clicks.fit(log.head(2000), model="dbn", iterations=5, progress=False)
    path = tmp_path / "m.json"
    m.save(path)
    back = serpsim.clicks.load(path)
    pd.testing.assert_frame_equal(back.params, m.params)
    assert back.scalars == m.scalars
    # A file the CLI wrote loads and predicts like the CLI's own model.
    cli_file = tmp_path / "cli.json"
    run_cli_text = __import__("subprocess").run(
        [str(cli), "--quiet", "clicks", "fit", "--model", "sdbn", "--train", str(YANDEX), "--out", str(cli_file)],
        check=True,
        capture_output=True,
    )
    assert run_cli_text.returncode == 0
    loaded = serpsim.clicks.load(cli_file)
    refit = serpsim.clicks.fit(log, model="sdbn", progress=False)
    pd.testing.assert_frame_equal(loaded.params, refit.params, check_exact=True)
    assert json.loads(loaded.to_json())["model"] == "sdbn"


def test_click_probabilities_and_simulate(log):
    m = serpsim.clicks.fit(log, model="sdbn", progress=False)
    serps = log.head(3)[["query_id", "docs"]]
    p = m.click_probabilities(serps)
    assert list(p.columns) == ["serp", "rank", "query_id", "doc_id", "click_probability"]
    assert len(p) == sum(len(d) for d in serps["docs"])
    # SDBN's first-rank click probability is the attractiveness of the first document.
    first = serps.iloc[0]
    a = m.params.set_index(["query_id", "doc_id"]).loc[(first["query_id"], first["docs"][0]), "attractiveness"]
    assert p.iloc[0]["click_probability"] == a
    sim = m.simulate(serps, n=4, seed=3)
    assert len(sim) == 12 and list(sim.columns) == ["serp", "replicate", "query_id", "docs", "clicks"]
    again = m.simulate(serps, n=4, seed=3)
    pd.testing.assert_frame_equal(sim, again)


def test_arrow_tables_with_several_batches_and_integer_ids():
    import pyarrow as pa

    # Two record batches, integer ids: the same model as one pandas frame of string ids.
    b1 = pa.record_batch({"query_id": [1, 1], "docs": [[10, 11], [11, 10]], "clicks": [[True, False], [False, False]]})
    b2 = pa.record_batch({"query_id": [2], "docs": [[10]], "clicks": [[True]]})
    from_arrow = serpsim.clicks.fit(pa.Table.from_batches([b1, b2]), model="sdbn", progress=False)
    frame = pd.DataFrame({"query_id": ["1", "1", "2"], "docs": [["10", "11"], ["11", "10"], ["10"]], "clicks": [[1, 0], [0, 0], [1]]})
    from_pandas = serpsim.clicks.fit(frame, model="sdbn", progress=False)
    pd.testing.assert_frame_equal(from_arrow.params, from_pandas.params)
    assert len(from_arrow.params) == 3


def test_bad_inputs_raise_clear_errors(tmp_path):
    with pytest.raises(serpsim.InvalidInputError, match="missing column `docs`"):
        serpsim.clicks.fit(pd.DataFrame({"query_id": ["q"], "documents": [["a"]], "clicks": [[1]]}), model="sdbn")
    with pytest.raises(ValueError, match="row 0: 1 clicks for 2 documents"):
        serpsim.clicks.fit(pd.DataFrame({"query_id": ["q"], "docs": [["a", "b"]], "clicks": [[1]]}), model="sdbn")
    with pytest.raises(ValueError, match="unknown click model `dbx`"):
        serpsim.clicks.fit(pd.DataFrame({"query_id": ["q"], "docs": [["a"]], "clicks": [[1]]}), model="dbx")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        serpsim.clicks.fit(tmp_path / "nope.txt", model="sdbn")
    bad = tmp_path / "bad.txt"
    bad.write_text("q1\td1,d2 : d1\nq2 no tab here\n")
    with pytest.raises(serpsim.ParseError, match=r"bad.txt:2:"):
        serpsim.clicks.fit(bad, model="sdbn")
    with pytest.raises(serpsim.InvalidInputError, match="no sessions"):
        serpsim.clicks.fit(pd.DataFrame({"query_id": [], "docs": [], "clicks": []}), model="sdbn")


def test_repeated_result_lists_give_the_cli_model_file(cli, tmp_path):
    # Expected: the model file `serpsim clicks fit` writes from the same sessions as a Yandex
    # text log (its own reader). The rows repeat result lists (read from the cache of lists
    # already seen) between lists that differ only in their query or in how their text splits
    # into ids (["ab", "c"] against ["a", "bc"]), and new documents arrive after repeats, so
    # a cache that mixed lists up or skipped interning would change the file.
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = [
        ("q1", ["ab", "c"], [1, 0]),
        ("q1", ["a", "bc"], [0, 1]),
        ("q1", ["ab", "c"], [0, 0]),
        ("q2", ["ab", "c"], [1, 1]),
        ("q1", ["a", "bc", "d"], [0, 0, 1]),
        ("q2", ["ab", "c"], [0, 1]),
        ("q2", ["e", "ab"], [1, 0]),
        ("q1", ["a", "bc"], [1, 0]),
    ]
    log = tmp_path / "log.txt"
    log.write_text("".join(f"{q}\t{','.join(d)} : {' , '.join(x for x, c in zip(d, cl) if c)}\n" for q, d, cl in rows))
    expected = tmp_path / "cli.json"
    __import__("subprocess").run([str(cli), "--quiet", "clicks", "fit", "--model", "sdbn", "--train", str(log), "--out", str(expected)], check=True)
    table = pa.table({"query_id": [r[0] for r in rows], "docs": [r[1] for r in rows], "clicks": [r[2] for r in rows]})
    docs = table["docs"].combine_chunks()
    layouts = {
        "pandas": table.to_pandas(),
        "arrow_strings": table.to_pandas(types_mapper=pd.ArrowDtype),
        "dictionary": pa.table({"query_id": pc.dictionary_encode(table["query_id"]), "docs": pa.ListArray.from_arrays(docs.offsets, pc.dictionary_encode(docs.values)), "clicks": table["clicks"]}),
        "batches": pa.Table.from_batches(table.to_batches(max_chunksize=3)),
    }
    for name, frame in layouts.items():
        got = tmp_path / f"{name}.json"
        serpsim.clicks.fit(frame, model="sdbn", progress=False).save(got)
        assert got.read_bytes() == expected.read_bytes(), name


def test_posterior_closed_form_on_a_tiny_log():
    # Pair (q, a): clicked in 1 of its 2 impressions at rank 1 (CM counts every shown result),
    # so its Beta(1, 1) posterior is Beta(2, 2) (hand derivation): mean 1/2, sd
    # sqrt(2 * 2 / (4^2 * 5)) = sqrt(0.05); 90 % interval ends solve I_x(2, 2) = 3x^2 - 2x^3 =
    # 0.05, x = 0.135350362171584 (mpmath 1.3.0 findroot), and 1 - x by symmetry.
    log = pd.DataFrame({"query_id": ["q", "q"], "docs": [["a", "b"], ["a", "b"]], "clicks": [[1, 0], [0, 0]]})
    model, post = serpsim.clicks.fit_posterior(log, model="cm", prior="uniform", progress=False)
    row = post[(post.parameter == "attractiveness") & (post.document == "a")].iloc[0]
    assert row["mean"] == pytest.approx(0.5, abs=1e-15)
    assert row["sd"] == pytest.approx(0.05 ** 0.5, rel=1e-12)
    assert row["lower"] == pytest.approx(0.135350362171584, rel=1e-10)
    assert row["upper"] == pytest.approx(1 - 0.135350362171584, rel=1e-10)
    assert row["level"] == 0.9
    # The model is CM's usual fit, (1 + 1) / (2 + 2) under Beta(1, 1).
    assert float(model.params.set_index("doc_id").loc["a", "attractiveness"]) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "model,extra",
    [
        ("sdbn", ["--prior", "uniform"]),
        ("cm", ["--prior", "global"]),
        ("dbn", ["--prior", "hierarchical", "--chains", "2", "--warmup", "10", "--samples", "10", "--draws", "3"]),
    ],
)
def test_posterior_records_and_model_equal_the_cli(cli, tmp_path, model, extra):
    # Expected: the files `serpsim clicks fit --posterior` writes for the same log and settings.
    post_file, model_file = tmp_path / "post.json", tmp_path / "model.json"
    __import__("subprocess").run(
        [str(cli), "--quiet", "clicks", "fit", "--model", model, "--train", str(YANDEX), "--out", str(model_file), "--posterior", str(post_file), *extra],
        check=True,
    )
    kw = {"prior": extra[1]}
    if model == "dbn":
        kw.update(chains=2, warmup=10, samples=10, draws=3)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 10 sweeps do not converge; the CLI warns likewise
        got_model, got = serpsim.clicks.fit_posterior(YANDEX, model=model, progress=False, **kw)
    want = pd.DataFrame.from_records(json.loads(post_file.read_text()))
    pd.testing.assert_frame_equal(got, want)
    assert got_model.to_json() == model_file.read_text()


def test_posterior_bad_settings_raise_clear_errors():
    log = pd.DataFrame({"query_id": ["q"], "docs": [["a"]], "clicks": [[1]]})
    with pytest.raises(Exception, match="Gibbs sampler"):
        serpsim.clicks.fit_posterior(log, model="sdbn", prior="hierarchical", progress=False)
    with pytest.raises(Exception, match="unknown prior"):
        serpsim.clicks.fit_posterior(log, model="cm", prior="flat", progress=False)
    with pytest.raises(Exception, match="`exact`: applies to sdbn and dcm"):
        serpsim.clicks.fit_posterior(log, model="cm", exact=True, progress=False)


def test_posterior_warns_about_skipped_lines(tmp_path):
    # Line 2 has no " : " separator: with skip_bad_lines it is left out, and said so.
    path = tmp_path / "log.txt"
    path.write_text("q\ta,b : a\nq\ta,b\nq\tb,a : b\n")
    with pytest.warns(UserWarning, match="skipped 1 bad line"):
        _, post = serpsim.clicks.fit_posterior(path, model="cm", prior="uniform", skip_bad_lines=True, progress=False)
    row = post[post.document == "a"].iloc[0]
    # Two sessions kept. CM (cascade) counts results down to the first click: a is clicked at
    # rank 1 in the first and not reached in the last (b, above it, was clicked), so
    # Beta(1 + 1, 1 + 0), mean 2/3 (hand derivation). With the bad line read as a session
    # without clicks, a would have two trials and mean 1/2.
    assert row["mean"] == pytest.approx(2 / 3)



# Query q in three orderings (1 = clicked): O1 [a,b]: 10, 10, 00, 01; O2 [b,a]: 00, 00, 01;
# O3 [a,c]: 11, 10. Three folds: each ordering is predicted from the other two. By hand, the
# document-only baseline (plain click rates; an unseen pair gets its rank's click rate)
# predicts O1 a 3/5 b 0/3, O2 b 1/4 a 4/6, O3 a 3/7 c 2/7 (c unseen: rank 2 of O1+O2 has 2
# clicks in 7). No two orderings share a fold, so there are no pairs.
HAND = pd.DataFrame(
    {
        "query_id": ["q"] * 9,
        "docs": [["a", "b"]] * 4 + [["b", "a"]] * 3 + [["a", "c"]] * 2,
        "clicks": [[1, 0], [1, 0], [0, 0], [0, 1], [0, 0], [0, 0], [0, 1], [1, 1], [1, 0]],
    }
)


def test_validate_orderings_by_hand(tmp_path):
    v = serpsim.clicks.validate_orderings(HAND, models=["dctr"], folds=3, min_pair_sessions=1, replicates=10, bootstrap=10, progress=False)
    assert (v["orderings"], v["held_out_orderings"], v["ordering_pairs"]) == (3, 3, 0)
    # Session-weighted per-rank CTR error by hand (4, 3, 2 sessions).
    e = (4 * ((3 / 5 - 1 / 2) + (1 / 4 - 0)) / 2 + 3 * ((1 / 4 - 0) + (4 / 6 - 1 / 3)) / 2 + 2 * ((1 - 3 / 7) + (1 / 2 - 2 / 7)) / 2) / 9
    errors = v["errors"].set_index("measure")
    assert errors.loc["ctr_mae", "error"] == pytest.approx(e, abs=1e-12)
    # c is unseen in O3's 2 sessions: 2 of 18 impressions.
    assert v["unseen_impression_share"] == pytest.approx(2 / 18, abs=1e-12)
    assert v["answer"][0].startswith("3 held-out orderings of 1 queries (9 sessions), 3 folds")
    # The same log from a file gives the same tables.
    path = tmp_path / "hand.txt"
    lines = [f"{q}\t{','.join(d)} : {' , '.join(x for x, c in zip(d, cs) if c)}" for q, d, cs in zip(HAND["query_id"], HAND["docs"], HAND["clicks"])]
    path.write_text("\n".join(lines) + "\n")
    w = serpsim.clicks.validate_orderings(path, models=["dctr"], folds=3, min_pair_sessions=1, replicates=10, bootstrap=10, progress=False)
    pd.testing.assert_frame_equal(v["errors"], w["errors"])
    with pytest.raises(Exception, match="unknown click model"):
        serpsim.clicks.validate_orderings(HAND, models=["nope"], progress=False)
    # Orderings of 4, 3 and 2 sessions have no seen test share (one in five): the shift
    # comparison is empty and says so.
    assert v["shift"]["queries"] == 0 and v["shift"]["rows"].empty
    assert "no query has a seen test session" in v["shift"]["answer"][0]


def test_validate_orderings_shift_by_hand():
    # O1 [a,b]: 5 sessions clicking a (one is the seen test session); O2 [b,a]: 2 without
    # clicks; two folds. By hand with DCTR's (1 + clicks) / (2 + impressions): O2's fold
    # trains on O1's other 4 sessions (a 5/6, b 1/6) and scores the seen session, ln(5/6) at
    # both ranks; O1's fold trains on O2 (a = b = 1/4) and scores O1's 5 sessions.
    log = pd.DataFrame(
        {
            "query_id": ["q"] * 7,
            "docs": [["a", "b"]] * 5 + [["b", "a"]] * 2,
            "clicks": [[1, 0]] * 5 + [[0, 0]] * 2,
        }
    )
    v = serpsim.clicks.validate_orderings(log, models=["dctr"], folds=2, min_pair_sessions=1, replicates=10, bootstrap=10, progress=False)
    s = v["shift"]
    assert (s["queries"], s["seen_sessions"], s["unseen_sessions"]) == (1, 1, 7)
    row = s["rows"].iloc[0]
    ln = math.log
    assert row["ll_seen"] == pytest.approx(ln(5 / 6), abs=1e-12)
    assert row["ll_unseen"] == pytest.approx((2 * (ln(5 / 6) + ln(1 / 6)) / 2 + 5 * (ln(1 / 4) + ln(3 / 4)) / 2) / 7, abs=1e-12)
    assert row["perplexity_seen"] == pytest.approx(6 / 5, abs=1e-12)
    assert row["ll_seen_lower_over_queries"] == pytest.approx(row["ll_seen"], abs=1e-12)


# Labels: `fit(..., qrels=...)` against `serpsim clicks fit --labels/--qrels` (docs/clickmodels.md, "Labels").
LABELS = DATA.parent / "tests" / "fixtures" / "labels"
QRELS = LABELS / "synthetic_qrels.txt"
TSV_LABELS = LABELS / "synthetic_labels.tsv"
TSV_FLAGS = ["--label-format", "tsv", "--label-columns", "query=1,region=2,doc=3,label=6", "--label-header", "--unjudged", "-2"]


def cli_fit_bytes(cli, out, *flags):
    """The model file `serpsim clicks fit --train synthetic_yandex_layout.txt FLAGS` writes."""
    import subprocess

    subprocess.run([str(cli), "--quiet", "clicks", "fit", "--train", str(YANDEX), "--out", str(out), *flags], check=True, capture_output=True)
    return out.read_bytes()


def test_fit_with_qrels_writes_the_cli_model_file(cli, tmp_path):
    # Expected: the file `serpsim clicks fit --model sdbn --train LOG --qrels QRELS --out FILE`
    # of this checkout writes (default bootstrap: 200 resamples, seed 1), byte for byte.
    expected = cli_fit_bytes(cli, tmp_path / "cli.json", "--model", "sdbn", "--qrels", str(QRELS))
    with pytest.warns(UserWarning, match=r"read as trec: .* grades 0-4 in the file"):
        m = serpsim.clicks.fit(YANDEX, model="sdbn", qrels=QRELS, progress=False)
    m.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == expected
    assert m.to_json().encode() == expected
    # The per-grade table is the file's `grades` list.
    grades = json.loads(expected)["grades"]
    assert list(m.grades["grade"]) == [g["grade"] for g in grades] == [0, 1, 2, 3, 4]
    assert list(m.grades["attractiveness_lower"]) == [g["attractiveness_lower"] for g in grades]
    assert m.grade_report[0].startswith("fitted sdbn by relevance grade on ")
    # A model file with grades loads with them: its JSON text is the file's.
    assert serpsim.clicks.load(tmp_path / "py.json").to_json().encode() == expected


def test_fit_with_tsv_labels_and_dicts_writes_the_cli_model_file(cli, tmp_path):
    # Expected: `serpsim clicks fit --model sdbn --labels synthetic_labels.tsv --label-format tsv
    # --label-columns query=1,region=2,doc=3,label=6 --label-header --unjudged -2 --grade-map
    # 0:0,1:1,2:1,3:2,4:2 --grade-bootstrap 0` of this checkout, byte for byte; label_columns
    # and grade_map given as dicts.
    expected = cli_fit_bytes(cli, tmp_path / "cli.json", "--model", "sdbn", "--labels", str(TSV_LABELS), *TSV_FLAGS,
                             "--grade-map", "0:0,1:1,2:1,3:2,4:2", "--grade-bootstrap", "0")
    # The unjudged count from the file itself: rows (after the header) whose 6th column is -2.
    rows = [line.split("\t") for line in TSV_LABELS.read_text().splitlines()[1:] if line.strip()]
    unjudged = sum(1 for r in rows if r[5].strip() == "-2")
    assert unjudged == 716  # docs/clickmodels.md quotes the same number
    with pytest.warns(UserWarning) as caught:
        m = serpsim.clicks.fit(
            YANDEX, model="sdbn", qrels=TSV_LABELS, label_format="tsv", label_columns={"query": 1, "region": 2, "doc": 3, "label": 6},
            label_header=True, unjudged=-2, grade_map={0: 0, 1: 1, 2: 1, 3: 2, 4: 2}, grade_bootstrap=0, progress=False,
        )
    notes = [str(w.message) for w in caught]
    assert any(f"unjudged value -2: {unjudged} lines skipped" in n for n in notes), notes
    assert any("grades mapped by --grade-map 0:0,1:1,2:1,3:2,4:2: grades 0-2 fitted" in n for n in notes), notes
    m.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == expected


def test_fit_with_labels_warns_about_conflicts():
    # The conflict count from the file itself: (query, document) pairs of synthetic_tiangong.txt
    # (columns 3 and 4) with more than one distinct label (column 5).
    labels = {}
    for line in (LABELS / "synthetic_tiangong.txt").read_text().splitlines():
        f = line.split()
        if f:
            labels.setdefault((f[2], f[3]), set()).add(f[4])
    conflicts = sum(1 for v in labels.values() if len(v) > 1)
    assert conflicts == 311  # docs/clickmodels.md quotes the same number
    with pytest.warns(UserWarning, match=rf"labels: {conflicts} \(query, document\) pairs have conflicting labels"):
        serpsim.clicks.fit(YANDEX, model="sdbn", qrels=LABELS / "synthetic_tiangong.txt", label_format="tiangong",
                           grade_bootstrap=0, progress=False)


def test_fit_with_a_qrels_frame_and_a_log_frame_equals_the_cli(cli, log, tmp_path):
    # Expected: `serpsim clicks fit --model dbn --iterations 5 --qrels QRELS --grade-bootstrap 0`
    # of this checkout (with its `fit` summary of the EM passes), byte for byte: the qrels as
    # a DataFrame with TREC's own column names (qid, docno, label), the log as a DataFrame.
    expected = cli_fit_bytes(cli, tmp_path / "cli.json", "--model", "dbn", "--iterations", "5", "--qrels", str(QRELS), "--grade-bootstrap", "0")
    frame = pd.read_csv(QRELS, sep=r"\s+", names=["qid", "iteration", "docno", "label"], dtype={"qid": str, "docno": str})
    with pytest.warns(UserWarning, match="labels: qrels DataFrame read as trec"):
        m = serpsim.clicks.fit(log, model="dbn", iterations=5, qrels=frame, grade_bootstrap=0, progress=False)
    assert m.to_json().encode() == expected
    assert "fit" in json.loads(expected)


def test_label_arguments_are_checked_as_the_cli_checks_them():
    # Messages of the CLI's checks (src/clickmodels/labels.rs, LabelInputs::resolve and LabelFormat::new).
    with pytest.raises(serpsim.errors.InvalidInputError, match="--unjudged goes with --labels FILE"):
        serpsim.clicks.fit(YANDEX, model="sdbn", unjudged=-2, progress=False)
    with pytest.raises(serpsim.errors.InvalidInputError, match="--label-format tsv needs --label-columns"):
        serpsim.clicks.fit(YANDEX, model="sdbn", qrels=TSV_LABELS, label_format="tsv", progress=False)
    with pytest.raises(serpsim.errors.InvalidInputError, match="grade 0 is mapped twice"):
        serpsim.clicks.fit(YANDEX, model="sdbn", qrels=QRELS, grade_map="0:0,0:1", progress=False)
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1.5]})
    with pytest.raises(serpsim.errors.InvalidInputError, match="integer grades"):
        serpsim.clicks.fit(YANDEX, model="sdbn", qrels=frame, progress=False)
    with pytest.raises(serpsim.errors.InvalidInputError, match="read as TREC qrels"):
        serpsim.clicks.fit(YANDEX, model="sdbn", qrels=frame.assign(relevance=1), label_format="yandex", progress=False)


@pytest.mark.parametrize("model", ["dbn", "ubm"])
def test_eb_prior_fit_equals_the_cli(cli, log, tmp_path, model):
    # Checked to fail: with `prior="eb"` mapped to Beta(1, 1) in the binding, the models differ.
    # Expected: the model file of `serpsim clicks fit --prior eb` on the same log (the library's
    # fit, through the CLI), loaded; and the log-likelihood of `clicks eval --prior eb`.
    model_file = tmp_path / "model.json"
    __import__("subprocess").run(
        [str(cli), "--quiet", "clicks", "fit", "--model", model, "--prior", "eb", "--train", str(YANDEX), "--out", str(model_file)],
        check=True,
    )
    # The model file itself, byte for byte: since the fit's settings and the writer are the
    # library's (FitParams, Fitted), Python's model carries how EM ended (`fit`) as the CLI's.
    want = model_file.read_text()
    for source in (log, YANDEX):
        got = serpsim.clicks.fit(source, model=model, prior="eb", progress=False)
        assert got.to_json() == want
    # Pairs never seen take the prior mean, not 0.5 (the model file's `unseen`).
    unseen = json.loads(model_file.read_text())["unseen"]["attractiveness"]
    assert unseen != 0.5 and json.loads(got.to_json())["unseen"]["attractiveness"] == unseen
    expected = run_cli_json(cli, "clicks", "eval", "--model", model, "--prior", "eb", "--train", str(YANDEX))
    train, test = serpsim.clicks.split(log)
    assert serpsim.clicks.fit(train, model=model, prior="eb", progress=False).evaluate(test)["log_likelihood"] == expected["log_likelihood"]
    with pytest.raises(serpsim.Error, match="unknown prior `flat`"):
        serpsim.clicks.fit(log, model=model, prior="flat", progress=False)


def test_fitted_prior_fit_equals_the_cli(cli, tmp_path):
    # Expected: the model file of `serpsim clicks fit --prior global` (posterior means under an
    # empirical-Bayes prior; conjugate for sdbn, so no sampler), loaded. Before the fit's
    # settings moved into the library the binding refused a fitted prior here.
    model_file = tmp_path / "model.json"
    __import__("subprocess").run(
        [str(cli), "--quiet", "clicks", "fit", "--model", "sdbn", "--prior", "global", "--train", str(YANDEX), "--out", str(model_file)],
        check=True,
    )
    got = serpsim.clicks.fit(YANDEX, model="sdbn", prior="global", progress=False)
    assert got.to_json() == model_file.read_text()
    assert got.to_json() != serpsim.clicks.fit(YANDEX, model="sdbn", prior="uniform", progress=False).to_json()


def test_integer_arguments_out_of_range_raise_serpsim_errors():
    # Issue 42: a negative count (or one beyond 2^64) reached pyo3's conversion to an unsigned
    # integer and raised a bare OverflowError. Expected messages: the library's config-error
    # format `CONTEXT: key `KEY`: REASON` (src/error.rs), with the reasons written in
    # python/src/errors.rs (`UInt`) and, within range, the library's bound (src/clickmodels/
    # orderings.rs: at most 1,000 folds), which is the CLI's message for the same value.
    def validate(**kw):
        args = dict(models=["dctr"], min_pair_sessions=1, replicates=10, bootstrap=10, progress=False)
        args.update(kw)
        return serpsim.clicks.validate_orderings(HAND, **args)

    cases = [
        (lambda: validate(folds=-1), "clicks.validate_orderings: key `folds`: -1 must be a whole number >= 0"),
        (lambda: validate(seed=-5), "clicks.validate_orderings: key `seed`: -5 must be a whole number >= 0"),
        (lambda: validate(seed=2**64), "clicks.validate_orderings: key `seed`: 18446744073709551616 is above the upper bound of 18446744073709551615"),
        (lambda: validate(threads=-1), "clicks.validate_orderings: key `threads`: -1 must be a whole number >= 0"),
        (lambda: validate(bootstrap=-(2**200)), "clicks.validate_orderings: key `bootstrap`: a negative number must be a whole number >= 0"),
        (lambda: serpsim.clicks.fit(HAND, model="dbn", iterations=-1, progress=False), "clicks.fit: key `iterations`: -1 must be a whole number >= 0"),
        (lambda: serpsim.clicks.fit(HAND, model="sdbn", progress=False).simulate(HAND, n=-3), "ClickModel.simulate: key `n`: -3 must be a whole number >= 0"),
    ]
    for call, message in cases:
        with pytest.raises(serpsim.ConfigError) as e:
            call()
        assert str(e.value) == message
        assert isinstance(e.value, ValueError) and isinstance(e.value, serpsim.Error)
    with pytest.raises(serpsim.ConfigError, match="key `folds`: 1001 is above the upper bound of 1000"):
        validate(folds=1001)

"""PyClick's numbers on a click log in the Yandex sample layout, with PyClick's Example.py
protocol (first floor(75 %) of sessions in file order train; the rest, restricted to queries
seen in training, test). Prints one JSON object per model.

PyClick is not on PyPI: it is markovi/PyClick on GitHub, commit
98e7e460231b2b607bf58b2f16a4fd1124cee042 (its `pyclick/` folder, Python 3). Point PYCLICK at
a checkout; nothing of it is in this repository.

PyClick has no reader for this layout, so the project's reader reads it (yandex_layout.py,
following serpsim's documented conventions).

Usage: PYCLICK=/path/to/PyClick python3 analysis/clickmodels/pyclick_reference.py LOG [MODEL ...]
(models: CM SDBN DCM GCTR RCTR DCTR, PyClick's class names; default CM SDBN DCM)
"""
import json
import os
import sys

sys.path.insert(0, os.environ.get("PYCLICK", "PyClick"))
from pyclick.click_models.Evaluation import LogLikelihood, Perplexity  # noqa: E402
from pyclick.click_models.CM import CM  # noqa: E402,F401
from pyclick.click_models.SDBN import SDBN  # noqa: E402,F401
from pyclick.click_models.DCM import DCM  # noqa: E402,F401
from pyclick.click_models.CTR import DCTR, RCTR, GCTR  # noqa: E402,F401
from pyclick.search_session.SearchSession import SearchSession  # noqa: E402
from pyclick.search_session.SearchResult import SearchResult  # noqa: E402
from pyclick.utils.Utils import Utils  # noqa: E402
from yandex_layout import impressions  # noqa: E402


def parse(path):
    sessions = []
    for q, docs, clicks in impressions(path):
        s = SearchSession(q)
        s.web_results.extend(SearchResult(d, c) for d, c in zip(docs, clicks))
        sessions.append(s)
    return sessions


def main():
    path, models = sys.argv[1], sys.argv[2:] or ["CM", "SDBN", "DCM"]
    sessions = parse(path)
    cut = int(len(sessions) * 0.75)
    train = sessions[:cut]
    test = Utils.filter_sessions(sessions[cut:], Utils.get_unique_queries(train))
    for name in models:
        model = globals()[name]()
        model.train(train)
        perp, at_rank = Perplexity().evaluate(model, test)
        print(json.dumps({
            "model": name.lower(),
            "sessions": len(sessions),
            "train_sessions": len(train),
            "test_sessions": len(test),
            "log_likelihood": round(LogLikelihood().evaluate(model, test), 6),
            "perplexity": round(perp, 6),
            "perplexity_at_rank": [round(p, 6) for p in at_rank],
        }))


if __name__ == "__main__":
    main()

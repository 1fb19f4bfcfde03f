"""The one reader of the Yandex sample layout for the PyClick reproductions (pyclick_reference.py,
pyclick_dbn_rules.py), following serpsim's documented conventions (docs/clickmodels.md, "Yandex
sample"): impressions separated by `;`, `QUERY<TAB>doc1,...,docn : clicked1 , clicked2 ...`; a
result is clicked if its id is in the (whitespace-trimmed) clicked list; clicked ids not on the
SERP are ignored.
"""


def impressions(path):
    """(query, documents, clicks) per impression, in file order; clicks are 0/1 per document."""
    out = []
    for line in open(path):
        for part in line.split(";"):
            if not part.strip():
                continue
            q, rest = part.strip().split("\t")
            docs, clicks = rest.split(":")
            clicked = {x.strip() for x in clicks.split(",")}
            ids = [d.strip() for d in docs.strip().split(",")]
            out.append((q.strip(), ids, [1 if d in clicked else 0 for d in ids]))
    return out

#!/usr/bin/env python3
"""Independent count of the Yandex sample's orderings (docs/validation.md): parses the file
with str.split, not with serpsim, and prints sessions, query ids, distinct orderings and the
queries with at least two orderings of 50 or more sessions.

    python3 analysis/validation/count_orderings.py [../shared/data/clicks/yandex_sample_train.txt]
    python3 analysis/validation/count_orderings.py study_logs/clicks/synthetic_yandex_layout.txt
"""
import collections
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
data = os.environ.get("SERPSIM_DATA", os.path.join(os.path.dirname(root), "shared", "data"))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(data, "clicks", "yandex_sample_train.txt")
sessions = collections.Counter()
for line in open(path, encoding="utf-8"):
    for impression in line.split(";"):
        impression = impression.strip()
        if impression:
            query, rest = impression.split("\t", 1)
            sessions[(query, rest.split(":")[0].strip())] += 1
big = collections.Counter(q for (q, _), n in sessions.items() if n >= 50)
print(f"sessions {sum(sessions.values())}, query ids {len({q for q, _ in sessions})}, orderings {len(sessions)}")
print(f"queries with two or more orderings of at least 50 sessions: {sum(1 for c in big.values() if c >= 2)}")
per_query = collections.Counter(q for q, _ in sessions)
multi = {q for q, c in per_query.items() if c >= 2}
print(
    f"queries with two or more orderings: {len(multi)}, their orderings {sum(per_query[q] for q in multi)}, "
    f"their sessions {sum(n for (q, _), n in sessions.items() if q in multi)}"
)

#!/usr/bin/env python3
"""CLAX's DBN on serpsim's generated logs, for benches/race_clax.sh (issue 41, item 4).

    python3 benches/race_clax.py TRAIN VAL TEST [--max-epochs 5] [--batch 4096] [--lr 0.01]

Reads three logs in the Yandex layout that `serpsim clicks generate` writes (one session per
line, `query<TAB>doc,doc,... : clicked,clicked`; docs/clickmodels.md) into CLAX's arrays
(`query_doc_ids`, `clicks`, `mask`, `positions`), trains CLAX's DynamicBayesianNetwork (full
embedding tables, its defaults) epoch by epoch with AdamW as CLAX's Yandex baseline does
(learning rate 0.01, batches of 4096 training sessions), computes the validation
log-likelihood after each epoch, and stops once it got worse than the best epoch's (at most
--max-epochs epochs); the model of the best epoch is kept and scored on the test log. Prints
one JSON object (times in seconds) on standard output.

The log-likelihood is serpsim's (`clicks eval`, docs/clickmodels.md): the mean over held-out
sessions of the mean over ranks of ln P(c_r | clicks above r), with CLAX's own
`predict_conditional_clicks`, the probability of the observed event floored at 1e-6 as serpsim
does, on the sessions whose query occurs in the training log (serpsim leaves the others out),
and pairs never seen in training at attractiveness and satisfaction 0.5 (serpsim's prior; here
one extra embedding row whose logit is set to 0). CLAX's own `LogLikelihood` metric averages
per document instead, without the floor; on these logs every SERP has 10 results, so the two
differ by the floor only; both are printed (`*_ll` and `*_ll_per_doc`), with the value CLAX
gives unseen pairs natively (its baseline logit: `*_ll_native_unseen`) for comparison.
`--score-serpsim MODEL.json` scores serpsim's fitted model this way instead of training:
it must give serpsim's own `clicks eval` numbers (race_clax.sh checks it).

CLAX is the PyPI package `clax-models` (imports as `clax`; Hager, Zoeter and de Rijke 2025),
not `clax`, an unrelated package of prebuilt JAX classifiers. Its trainer module imports
`torch.utils.data.DataLoader` at import time; this script does not use it, so a stub module
stands in when torch is not installed (it is several GB).
"""

import argparse
from array import array
import json
import os
import sys
import time
import types

T_START = time.perf_counter()

try:
    import torch.utils.data  # noqa: F401
except ImportError:
    for _name in ("torch", "torch.utils", "torch.utils.data"):
        sys.modules.setdefault(_name, types.ModuleType(_name))
    sys.modules["torch.utils.data"].DataLoader = object

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from clax import DynamicBayesianNetwork  # noqa: E402
from clax.utils.math import log1mexp  # noqa: E402
from flax import nnx  # noqa: E402

LOG_PROB_MIN = float(np.log(1e-6))  # serpsim's PROB_MIN


class Vocab:
    """Pair ids of the training log, per query a dict of its documents: 1, 2, ... in order of
    first appearance (0 is CLAX's padding); held-out pairs that training never saw get
    len + 1 (the unseen row)."""

    def __init__(self):
        self.by_query = {}
        self.n = 0

    def __len__(self):
        return self.n

    def lookup(self, q, d):
        """The id of the pair (q, d) (strings), or None."""
        return self.by_query.get(q, {}).get(d)


def read_log(path, vocab, train):
    """Sessions of a log in the Yandex layout, one a line (`query<TAB>doc,...,doc :
    clicked,...`), as (query_doc_ids, clicks, lengths, query_seen); training adds its pairs to
    `vocab`. Blank lines and `#` lines are skipped."""
    # Compact buffers: 10 M sessions are 100 M positions (Python lists would take GBs).
    ids, clicks, lengths, seen = array("i"), bytearray(), array("i"), bytearray()
    by_query, none = vocab.by_query, {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line == "\n" or line.startswith("#"):
                continue
            try:
                q, rest = line.split("\t", 1)
                docs_part, click_part = rest.split(":", 1)
            except ValueError:
                sys.exit(f"{path}:{lineno}: not `query<TAB>docs : clicks`")
            docs = docs_part.rstrip().split(",")
            if " " in docs_part.rstrip():
                docs = [d.strip() for d in docs]
            qd = by_query.get(q)
            if qd is None:
                qd = none
                if train:
                    qd = by_query[q] = {}
            seen.append(qd is not none)
            if train:
                for d in docs:
                    i = qd.get(d)
                    if i is None:
                        vocab.n += 1
                        i = qd[d] = vocab.n
                    ids.append(i)
            else:
                ids.extend([qd.get(d, -1) for d in docs])
            cp = click_part.strip()
            if cp:
                cs = {c.strip() for c in cp.split(",")}
                clicks.extend([d in cs for d in docs])
            else:
                clicks.extend(bytes(len(docs)))
            lengths.append(len(docs))
    ids = np.frombuffer(ids, dtype=np.int32)
    if not train:
        ids = np.where(ids < 0, vocab.n + 1, ids).astype(np.int32)
    return (
        ids,
        np.frombuffer(clicks, dtype=np.uint8).astype(np.float32),
        np.frombuffer(lengths, dtype=np.int32),
        np.frombuffer(seen, dtype=np.uint8).astype(bool),
    )


def to_padded(ids, clicks, lengths, keep, width):
    """The kept sessions as (n, width) arrays and a mask (CLAX's batch layout)."""
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    starts, lengths = starts[keep], lengths[keep]
    n = len(lengths)
    col = np.arange(width)
    mask = col[None, :] < lengths[:, None]
    idx = np.where(mask, starts[:, None] + col[None, :], 0)
    q = np.where(mask, ids[idx], 0).astype(np.int32)
    c = np.where(mask, clicks[idx], 0).astype(np.float32)
    return q, c, mask, n


def batches(q, c, mask, size):
    """Fixed-size batches (the last padded with zero-weight rows: one compiled shape)."""
    n, width = q.shape
    positions = np.broadcast_to(np.arange(1, width + 1, dtype=np.int32), (size, width))
    for start in range(0, n, size):
        end = min(start + size, n)
        pad = size - (end - start)
        bq, bc, bm = q[start:end], c[start:end], mask[start:end]
        w = np.ones(size, dtype=np.float32)
        if pad:
            # Padding rows: one valid position on the padding id, weight 0.
            bq = np.concatenate([bq, np.zeros((pad, width), np.int32)])
            bc = np.concatenate([bc, np.zeros((pad, width), np.float32)])
            pm = np.zeros((pad, width), bool)
            pm[:, 0] = True
            bm = np.concatenate([bm, pm])
            w[end - start :] = 0
        yield {"query_doc_ids": bq, "clicks": bc, "mask": bm, "positions": positions}, w, end - start


@nnx.jit
def train_step(model, optimizer, batch, weight):
    def loss_fn(model):
        # CLAX's loss: per session the mean over positions of the binary cross-entropy of
        # the conditional click probabilities; averaged over the batch's real sessions.
        per_session = model.compute_loss(batch)
        return (per_session * weight).sum() / weight.sum()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(grads)
    return loss


@nnx.jit
def eval_step(model, batch):
    lp = model.predict_conditional_clicks(batch)
    clicks, mask = batch["clicks"], batch["mask"]
    lp_click = jnp.where(mask, lp, 0.0)
    lp_none = log1mexp(lp_click)
    raw = clicks * lp_click + (1 - clicks) * lp_none
    floored = clicks * jnp.maximum(lp_click, LOG_PROB_MIN) + (1 - clicks) * jnp.maximum(lp_none, LOG_PROB_MIN)
    raw = jnp.where(mask, raw, 0.0)
    floored = jnp.where(mask, floored, 0.0)
    return floored.sum(-1), raw.sum(-1), mask.sum(-1)


def snapshot(module):
    """A copy of a module's state (`nnx.state` alone refers to the live variables, so an
    update after it would change it too; the arrays themselves are immutable)."""
    return jax.tree_util.tree_map(lambda x: x, nnx.state(module))


def set_unseen_row(model, row, prob_half):
    """The unseen pairs' row: logit 0 (probability 0.5, serpsim's prior) or CLAX's own value
    (the row as trained: never indexed, so its initial value after weight decay)."""
    saved = []
    for p in (model.attraction, model.satisfaction):
        table = p.embeddings.embedding
        saved.append(table.value[row])
        if prob_half:
            table.value = table.value.at[row].set(-p.baseline.value)
    return saved


def restore_unseen_row(model, row, saved):
    for p, v in zip((model.attraction, model.satisfaction), saved):
        p.embeddings.embedding.value = p.embeddings.embedding.value.at[row].set(v)


def evaluate(model, data, size, row, prob_half=True):
    q, c, mask, n = data
    saved = set_unseen_row(model, row, prob_half)
    ll, raw, docs = [], [], []
    for batch, _, real in batches(q, c, mask, size):
        f, r, k = eval_step(model, batch)
        ll.append(np.asarray(f)[:real])
        raw.append(np.asarray(r)[:real])
        docs.append(np.asarray(k)[:real])
    restore_unseen_row(model, row, saved)
    ll, raw, docs = (np.concatenate(x).astype(np.float64) for x in (ll, raw, docs))
    return {
        "ll": float(np.mean(ll / docs)),  # serpsim's: mean over sessions of the mean over ranks
        "ll_unfloored": float(np.mean(raw / docs)),
        "ll_per_doc": float(raw.sum() / docs.sum()),  # CLAX's LogLikelihood metric
        "sessions": int(n),
    }


def score_serpsim(a, out):
    """Scores serpsim's fitted DBN (its model JSON) with CLAX's `predict_conditional_clicks`
    and this script's log-likelihood: equal to serpsim's `clicks eval` numbers (up to float32)
    when the two definitions agree."""
    with open(a.score_serpsim, encoding="utf-8") as f:
        m = json.load(f)
    if m.get("model") != "dbn":
        sys.exit(f"{a.score_serpsim}: not a DBN model file")
    vocab = Vocab()
    tr = read_log(a.train, vocab, True)
    n_pairs = len(vocab)
    att = np.zeros(n_pairs + 2, np.float64)  # logits; 0 = probability 0.5 (unseen, padding)
    sat = np.zeros(n_pairs + 2, np.float64)
    logit = lambda p: np.log(p) - np.log1p(-p)  # noqa: E731
    names = m["pair_params"]
    ia, isat = 2 + names.index("attractiveness"), 2 + names.index("satisfaction")
    for row in m["pairs"]:
        i = vocab.lookup(str(row[0]), str(row[1]))
        if i is not None:
            att[i], sat[i] = logit(np.clip(row[ia], 1e-7, 1 - 1e-7)), logit(np.clip(row[isat], 1e-7, 1 - 1e-7))
    model = DynamicBayesianNetwork(query_doc_pairs=n_pairs + 1, rngs=nnx.Rngs(a.seed))
    for p, v in ((model.attraction, att), (model.satisfaction, sat)):
        p.baseline.value = jnp.zeros_like(p.baseline.value)
        p.embeddings.embedding.value = jnp.asarray(v, jnp.float32)[:, None]
    model.continuation.weight.value = jnp.asarray([logit(m["scalars"]["gamma"])], jnp.float32)
    width = int(tr[2].max())
    for name, path in (("val", a.val), ("test", a.test)):
        d = read_log(path, vocab, False)
        r = evaluate(model, to_padded(*d[:3], d[3], width), a.eval_batch, n_pairs + 1)
        out[f"serpsim_model_{name}_ll"] = r["ll"]
        out[f"serpsim_model_{name}_sessions"] = r["sessions"]
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("train")
    ap.add_argument("val")
    ap.add_argument("test")
    ap.add_argument("--max-epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4096, help="training batch (CLAX's Yandex baseline: 4096)")
    ap.add_argument("--eval-batch", type=int, default=8192, help="evaluation batch (CLAX's Yandex baseline: 8192)")
    ap.add_argument("--lr", type=float, default=0.01, help="AdamW learning rate (CLAX's Yandex baseline: 0.01)")
    ap.add_argument("--seed", type=int, default=42, help="CLAX's random_state")
    ap.add_argument("--score-serpsim", metavar="MODEL.json", help="only score serpsim's fitted DBN this way (the definition check)")
    a = ap.parse_args()
    out = {"tool": "clax", "jax": jax.__version__, "devices": [str(d) for d in jax.devices()], "import_s": time.perf_counter() - T_START}
    if a.score_serpsim:
        return score_serpsim(a, out)

    t0 = time.perf_counter()
    vocab = Vocab()
    tr = read_log(a.train, vocab, True)
    va = read_log(a.val, vocab, False)
    out["read_train_val_s"] = time.perf_counter() - t0
    n_pairs = len(vocab)
    unseen_row = n_pairs + 1
    width = int(max(tr[2].max(), va[2].max()))
    train = to_padded(tr[0], tr[1], tr[2], np.ones(len(tr[2]), bool), width)
    val = to_padded(*va[:3], va[3], width)
    out.update(train_sessions=int(len(tr[2])), train_pairs=n_pairs, val_sessions_all=int(len(va[2])), val_sessions=val[3])
    out["unseen_val_positions"] = int((va[0] == unseen_row).sum())

    t0 = time.perf_counter()
    # CLAX allocates query_doc_pairs + 1 rows (row 0: padding); one more for unseen pairs.
    model = DynamicBayesianNetwork(query_doc_pairs=n_pairs + 1, rngs=nnx.Rngs(a.seed))
    optimizer = nnx.ModelAndOptimizer(model, optax.adamw(a.lr))
    out["init_s"] = time.perf_counter() - t0

    # Compile both steps once (one step on the first batch, then the model and the optimizer
    # are put back as they were), so that the epochs time execution only.
    t0 = time.perf_counter()
    initial = snapshot(optimizer)
    first, w, _ = next(batches(*train[:3], a.batch))
    jax.block_until_ready(train_step(model, optimizer, first, w))
    first_eval, _, _ = next(batches(*val[:3], a.eval_batch))
    jax.block_until_ready(eval_step(model, first_eval))
    restore_unseen_row(model, unseen_row, set_unseen_row(model, unseen_row, True))
    nnx.update(optimizer, initial)
    out["compile_s"] = time.perf_counter() - t0

    epochs, best, best_state, t_best = [], None, None, None
    t_train = time.perf_counter()
    for epoch in range(1, a.max_epochs + 1):
        t0 = time.perf_counter()
        losses = []
        for batch, w, _ in batches(*train[:3], a.batch):
            losses.append(train_step(model, optimizer, batch, w))
        train_loss = float(np.mean(jax.device_get(losses)))
        t1 = time.perf_counter()
        v = evaluate(model, val, a.eval_batch, unseen_row)
        t2 = time.perf_counter()
        epochs.append({"epoch": epoch, "train_loss": train_loss, "train_s": t1 - t0, "val_s": t2 - t1, "val_ll": v["ll"], "val_ll_per_doc": v["ll_per_doc"]})
        print(f"clax epoch {epoch}: train loss {train_loss:.6f}, validation ll {v['ll']:.6f} ({t1 - t0:.1f} s + {t2 - t1:.1f} s)", file=sys.stderr)
        if best is None or v["ll"] > best["val_ll"]:
            best = epochs[-1]
            best_state = snapshot(model)
            t_best = time.perf_counter()
        else:
            break
    nnx.update(model, best_state)
    out["epochs"] = epochs
    out["epochs_run"] = len(epochs)
    out["best_epoch"] = best["epoch"]
    out["train_to_best_s"] = t_best - t_train
    out["train_all_s"] = time.perf_counter() - t_train
    # Wall to the fitted model: reading the training and validation logs, building the model,
    # compiling, and the epochs (training and validation) up to the best one.
    out["wall_to_best_s"] = out["read_train_val_s"] + out["init_s"] + out["compile_s"] + out["train_to_best_s"]
    out["val_ll"] = best["val_ll"]
    out["val_ll_per_doc"] = best["val_ll_per_doc"]
    out["val_ll_native_unseen"] = evaluate(model, val, a.eval_batch, unseen_row, prob_half=False)["ll"]

    t0 = time.perf_counter()
    te = read_log(a.test, vocab, False)
    test = to_padded(*te[:3], te[3], width)
    t = evaluate(model, test, a.eval_batch, unseen_row)
    out["test_s"] = time.perf_counter() - t0
    out.update(test_sessions_all=int(len(te[2])), test_sessions=t["sessions"], test_ll=t["ll"], test_ll_per_doc=t["ll_per_doc"], test_ll_unfloored=t["ll_unfloored"])
    out["test_ll_native_unseen"] = evaluate(model, test, a.eval_batch, unseen_row, prob_half=False)["ll"]
    out["gamma"] = float(jax.nn.sigmoid(model.continuation.weight.value[0]))
    out["process_s"] = time.perf_counter() - T_START
    out["threads_env"] = os.environ.get("XLA_FLAGS", "")
    print(json.dumps(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The tables of docs/validation.md from the CSV files of one run of
`analysis/validation/orderings.sh` and `analysis/validation/switches.sh`.

    python3 analysis/validation/tables.py ORDERINGS_DIR SWITCHES_DIR

prints every table as markdown. The docs hold these lines verbatim, and
`scripts/conformance.d/30-validate-orderings.sh` recomputes them on the real sample and checks
that each line is in docs/validation.md, so a number that moves (a leak, a changed default)
fails the conformance suite.
"""
import csv
import sys


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def f4(x):
    return f"{float(x):.4f}"


def s4(x):
    return f"{float(x):+.4f}"


def f3(x):
    return "n/a" if x == "" else f"{float(x):.3f}"


def pct(x):
    return "n/a" if x == "" else f"{100 * float(x):.1f} %"


def orderings(d):
    errors = read(f"{d}/errors.csv")
    measures = ["ctr_mae", "abandonment", "clicks_per_session", "first_click_rank", "click_depth_tv"]
    models = list(dict.fromkeys(r["model"] for r in errors))
    get = {(r["model"], r["measure"]): r for r in errors}
    out = ["| model | role | " + " | ".join(measures) + " |", "|" + "---|" * (len(measures) + 2)]
    for m in models:
        cells = [f"{f4(get[m, x]['error_over_orderings'])} [{f4(get[m, x]['error_lower'])}, {f4(get[m, x]['error_upper'])}]" for x in measures]
        out.append(f"| {m} | {get[m, 'ctr_mae']['role']} | " + " | ".join(cells) + " |")
    out += ["", "| model | minus rank-only (rctr) | minus document-only (dctr) |", "|---|---|---|"]
    for m in models:
        r = get[m, "ctr_mae"]
        if r["role"] == "model":
            out.append(
                f"| {m} | {s4(r['minus_rank_only'])} [{s4(r['minus_rank_only_lower'])}, {s4(r['minus_rank_only_upper'])}] | "
                f"{s4(r['minus_document_only'])} [{s4(r['minus_document_only_lower'])}, {s4(r['minus_document_only_upper'])}] |"
            )
    pairs = read(f"{d}/pairs.csv")
    metrics = ["top_clicks", "abandonment", "first_click_rr"]
    pget = {(r["model"], r["metric"]): r for r in pairs}
    out += [
        "",
        "| model | sign accuracy: top_clicks | abandonment | first_click_rr | Brier: top_clicks | abandonment | first_click_rr |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in models:
        acc = [f"{f3(pget[m, k]['sign_accuracy_over_pairs'])} [{f3(pget[m, k]['sign_accuracy_lower_over_queries'])}, {f3(pget[m, k]['sign_accuracy_upper_over_queries'])}]" for k in metrics]
        brier = [f"{f3(pget[m, k]['brier'])} [{f3(pget[m, k]['brier_lower_over_queries'])}, {f3(pget[m, k]['brier_upper_over_queries'])}]" for k in metrics]
        out.append(f"| {m} | " + " | ".join(acc + brier) + " |")
    out += [
        "",
        "| model | AUC of the pair probability: top_clicks | abandonment | first_click_rr | confident and right (of confident): top_clicks | abandonment | first_click_rr |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in models:
        auc = [f"{f3(pget[m, k]['auc'])} [{f3(pget[m, k]['auc_lower_over_queries'])}, {f3(pget[m, k]['auc_upper_over_queries'])}]" for k in metrics]
        conf = [f"{pget[m, k]['confident_right']} of {pget[m, k]['confident_pairs']}" for k in metrics]
        out.append(f"| {m} | " + " | ".join(auc + conf) + " |")
    shift = read(f"{d}/shift.csv")
    out += [
        "",
        "| model | LL seen | LL unseen | LL unseen − seen | perplexity seen | perplexity unseen | perplexity unseen − seen |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in shift:
        def tri(k, sign=False):
            f = s4 if sign else f4
            return f"{f(r[k])} [{f(r[k + '_lower_over_queries'])}, {f(r[k + '_upper_over_queries'])}]"
        out.append(
            f"| {r['model']} | {tri('ll_seen')} | {tri('ll_unseen')} | {tri('ll_unseen_minus_seen', True)} | "
            f"{tri('perplexity_seen')} | {tri('perplexity_unseen')} | {tri('perplexity_unseen_minus_seen', True)} |"
        )
    return out


def switches(d, name):
    rows = read(f"{d}/{name}/summary.csv")
    dec = read(f"{d}/{name}/decisions.csv")
    classes = [sum(r["real_outcome"] == c for r in dec) for c in ("clearly_worse", "unclear", "clearly_not_worse")]
    out = [
        f"`{name}`: {len(dec)} ordered pairs of {len({r['query'] for r in dec})} queries; real outcome clearly worse {classes[0]}, unclear {classes[1]}, clearly not worse {classes[2]}.",
        "",
        "| method | switches | cannot tell | unsafe switches (% of switches) | clearly unsafe (% of switches) | switched in clearly-safe pairs | AUC of P(safe) | Brier of P(safe) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        def tri(k, lo, hi, f=pct):
            return "n/a" if r[k] == "" else f"{f(r[k])} [{f(r[lo])}, {f(r[hi])}]"
        out.append(
            " | ".join(
                [
                    f"| {r['method']}",
                    r["switches"],
                    r["cannot_tell"],
                    f"{r['unsafe_switches']}: " + tri("unsafe_share_of_switches", "unsafe_share_lower_over_queries", "unsafe_share_upper_over_queries"),
                    f"{r['clearly_unsafe_switches']}: " + tri("clearly_unsafe_share_of_switches", "clearly_unsafe_share_lower_over_queries", "clearly_unsafe_share_upper_over_queries"),
                    f"{r['clearly_safe_switches']}: " + tri("switch_share_of_clearly_safe", "switch_share_of_clearly_safe_lower_over_queries", "switch_share_of_clearly_safe_upper_over_queries"),
                    tri("auc_p_safe", "auc_lower_over_queries", "auc_upper_over_queries", f3),
                    tri("brier_p_safe", "brier_lower_over_queries", "brier_upper_over_queries", f3),
                ]
            )
            + " |"
        )
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lines = orderings(sys.argv[1])
    for name in ("first-click-rr", "top-clicks", "abandonment", "paper"):
        lines += [""] + switches(sys.argv[2], name)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

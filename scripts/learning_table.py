#!/usr/bin/env python3
"""The learned-against-unlearned summary of docs/EVALUATION.md, from the JSON that
`webcorpus eval --leave-one-out --per-site --min-sample 5 --json FILE` writes (one file per set).

One row per host with a model: pages, the default without a model ("unlearned"), with the model
learned from the host's other pages ("learned", leave-one-out), the difference with the bootstrap
standard errors of both, and the best external tool on the same pages; then the pooled rows
(page-weighted means over the hosts of a set, and over every host of every set). Word F1 and
shingle F1 (as the eval tables).

    scripts/learning_table.py target/eval/*.learning.json
"""
import json
import sys


def sites(row):
    return {s["site"]: s["summary"] for s in row["sites"] if not s["site"].startswith("other")}


def main(paths):
    out = [
        "| set | host | pages | unlearned F1 | learned F1 | Δ F1 (±se) | unlearned shingle | learned shingle "
        "| Δ shingle | best external F1 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    total = {"pages": 0, "u": 0.0, "l": 0.0, "us": 0.0, "ls": 0.0, "ext": 0.0}
    any_external = False
    for path in paths:
        for report in json.load(open(path)):
            rows = {r["label"]: r for r in report["rows"]}
            if "default (loo)" not in rows:
                continue
            learned, unlearned = sites(rows["default (loo)"]), sites(rows["default (unlearned)"])
            externals = {r["label"]: sites(r) for r in report["rows"] if r.get("reference")}
            any_external |= bool(externals)
            pooled = {"pages": 0, "u": 0.0, "l": 0.0, "us": 0.0, "ls": 0.0, "ext": 0.0}
            for host, l in learned.items():
                u = unlearned[host]
                n = l["pages"]
                ls, us = l["scores"], u["scores"]
                best = max(
                    ((name, ext[host]["scores"]["word_f1"]) for name, ext in externals.items() if host in ext),
                    key=lambda x: x[1],
                    default=None,
                )
                d = ls["word_f1"] - us["word_f1"]
                se = (ls["word_f1_se"] ** 2 + us["word_f1_se"] ** 2) ** 0.5
                out.append(
                    f"| {report['name']} | {host} | {n} | {us['word_f1']:.3f} | {ls['word_f1']:.3f} | "
                    f"{d:+.3f} (±{se:.3f}) | {us['shingle_f1']:.3f} | {ls['shingle_f1']:.3f} | "
                    f"{ls['shingle_f1'] - us['shingle_f1']:+.3f} | "
                    + (f"{best[1]:.3f} {best[0].replace(' (external)', '')}" if best else "–")
                    + " |"
                )
                for acc in (pooled, total):
                    acc["pages"] += n
                    acc["u"] += us["word_f1"] * n
                    acc["l"] += ls["word_f1"] * n
                    acc["us"] += us["shingle_f1"] * n
                    acc["ls"] += ls["shingle_f1"] * n
                    acc["ext"] += (best[1] if best else 0.0) * n
            if pooled["pages"]:
                out.append(pooled_row(f"**{report['name']}, pooled**", pooled, externals))
    if total["pages"]:
        out.append(pooled_row("**every host, pooled**", total, any_external))
    print("\n".join(out))


def pooled_row(label, acc, externals):
    n = acc["pages"]
    u, l, us, ls = acc["u"] / n, acc["l"] / n, acc["us"] / n, acc["ls"] / n
    ext = f"{acc['ext'] / n:.3f} (each host's best)" if externals else "–"
    return f"| {label} | | {n} | {u:.3f} | {l:.3f} | **{l - u:+.3f}** | {us:.3f} | {ls:.3f} | {ls - us:+.3f} | {ext} |"


if __name__ == "__main__":
    main(sys.argv[1:])

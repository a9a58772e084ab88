#!/usr/bin/env python3
"""Scores dedup verdicts against the truth written by scripts/dedup-stream.py.

    scripts/dedup-score.py TRUTH.jsonl OUT_DIR [--name NAME] [--json]

OUT_DIR holds unique.jsonl and duplicates.jsonl as `gleaner dedup --input`
writes them (and explain.jsonl with `--explain`: then each missed copy is
put down to why it matched nothing, its original's reason when the copy
arrived first: no candidate, published too far apart, below containment,
below shared weight). An id's last verdict wins: a correction on duplicates.jsonl
overrides that id's line on unique.jsonl. The planted copies (verbatim,
syndicated, reheadlined, edited, trimmed) are the positives; precision,
recall and F1 are over the articles called duplicates. A group keeps its
earliest-dated copy when that copy (the original) ends up not a duplicate.
"""

import argparse
import json
import os
from collections import defaultdict

COPY_KINDS = {"verbatim", "syndicated", "reheadlined", "edited", "trimmed"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("out")
    ap.add_argument("--name", default="gleaner")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    truth = [json.loads(l) for l in open(args.truth, encoding="utf-8")]
    dups = set()
    for line in open(os.path.join(args.out, "duplicates.jsonl"), encoding="utf-8"):
        if line.strip():
            dups.add(json.loads(line)["id"])
    positives = {t["id"] for t in truth if t["kind"] in COPY_KINDS}
    tp = len(positives & dups)
    precision = tp / len(dups) if dups else 1.0
    recall = tp / len(positives) if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    per_kind = defaultdict(lambda: [0, 0])
    for t in truth:
        k = per_kind[t["kind"]]
        k[0] += 1
        k[1] += t["id"] in dups
    groups = defaultdict(list)
    for t in truth:
        if t["kind"] in COPY_KINDS or t["kind"] == "original":
            groups[t["group"]].append(t)
    kept = 0
    for members in groups.values():
        earliest = min(members, key=lambda t: t["date"])
        kept += earliest["id"] not in dups
    earliest_share = kept / len(groups) if groups else 1.0
    result = {
        "name": args.name,
        "articles": len(truth),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "earliest_kept": round(earliest_share, 4),
        "called_duplicate": {k: f"{v[1]}/{v[0]}" for k, v in sorted(per_kind.items())},
    }
    explain = os.path.join(args.out, "explain.jsonl")
    if os.path.exists(explain):
        why = {}
        for line in open(explain, encoding="utf-8"):
            if line.strip():
                d = json.loads(line)
                why[d["id"]] = d["why"]
        order = {t["id"]: i for i, t in enumerate(truth)}
        originals = {t["group"]: t for t in truth if t["kind"] == "original"}
        missed = defaultdict(int)
        for t in truth:
            if t["kind"] not in COPY_KINDS or t["id"] in dups:
                continue
            o = originals.get(t["group"])
            first = o is not None and order[t["id"]] < order[o["id"]]
            reason = why.get(o["id"] if first else t["id"], "matched, then not reported")
            missed[("arrived first: " if first else "") + reason] += 1
        result["missed_because"] = dict(sorted(missed.items(), key=lambda kv: -kv[1]))
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.name}: P {precision:.4f}  R {recall:.4f}  F1 {f1:.4f}  earliest kept {earliest_share:.4f} "
            f"({kept}/{len(groups)} groups)"
        )
        print("  called duplicate: " + ", ".join(f"{k} {v}" for k, v in result["called_duplicate"].items()))
        if "missed_because" in result:
            print("  copies missed because: " + ", ".join(f"{k} {v}" for k, v in result["missed_because"].items()))


if __name__ == "__main__":
    main()

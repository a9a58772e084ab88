#!/usr/bin/env python3
"""The MinHash-LSH baseline for scripts/bench-dedup.sh (datasketch).

    scripts/dedup-baseline.py STREAM.jsonl OUT_DIR --window N

The usual streaming use of datasketch: 128 permutations over the same word
4-grams gleaner uses, an LSH index at Jaccard 0.5; an article with any
candidate in the index is a repost of the first one, else it joins the
index; the index keeps the latest N articles. Writes OUT_DIR/unique.jsonl
and OUT_DIR/duplicates.jsonl (ids only) and prints articles/s and resident
bytes per article.
"""

import argparse
import json
import os
import re
import resource
import time
from collections import deque

from datasketch import MinHash, MinHashLSH

WORD = re.compile(r"\w+", re.UNICODE)


def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stream")
    ap.add_argument("out")
    ap.add_argument("--window", type=int, required=True)
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lines = open(args.stream, encoding="utf-8").read().splitlines()
    articles = [json.loads(l) for l in lines]
    del lines
    before = rss_kib()
    lsh = MinHashLSH(threshold=args.threshold, num_perm=128)
    window = deque()
    unique = open(os.path.join(args.out, "unique.jsonl"), "w")
    dups = open(os.path.join(args.out, "duplicates.jsonl"), "w")
    started = time.perf_counter()
    for a in articles:
        words = WORD.findall((a["title"] + "\n" + a["text"]).lower())
        shingles = {" ".join(words[i : i + 4]).encode() for i in range(max(1, len(words) - 3))}
        m = MinHash(num_perm=128)
        m.update_batch(list(shingles))
        hits = lsh.query(m)
        if hits:
            dups.write(json.dumps({"id": a["id"], "original_id": hits[0]}) + "\n")
            continue
        unique.write(json.dumps({"id": a["id"]}) + "\n")
        if a["id"] in lsh:
            continue
        lsh.insert(a["id"], m)
        window.append(a["id"])
        while len(window) > args.window:
            lsh.remove(window.popleft())
    secs = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_article = max(0, rss_kib() - before) * 1024 / max(1, len(window))
    print(
        f"{len(articles)} articles in {secs:.2f}s: {len(articles) / secs:.0f} articles/s; "
        f"window {len(window)} articles, {per_article:.0f} bytes/article resident; peak RSS {peak // 1024} MiB"
    )


if __name__ == "__main__":
    main()

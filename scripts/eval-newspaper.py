#!/usr/bin/env python3
"""A held-out check of article extraction: the 23 news pages (English,
Chinese, Japanese, Arabic, Spanish, Latvian, Thai, Burmese, Korean...)
that newspaper4k ships with its tests, each with the text newspaper4k
extracts from it and its metadata. Not tuned on: neither labelled set of
../shared/datasets has these pages.

The reference is newspaper4k's own output, not a human label: it is
usually the article alone (no comments, no related links, no byline),
sometimes short of a paragraph. Read a low precision as "gleaner kept
something newspaper4k left out" and look at the page:
    target/release/examples/blocks PAGE --full

Usage: scripts/eval-newspaper.py [--gleaner target/release/gleaner]
(downloads newspaper4k 0.9.6's source from PyPI into target/ once)
"""
import argparse, collections, json, os, re, subprocess
import sdist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION = "0.9.6"


def data_dir():
    return os.path.join(sdist.unpacked("newspaper4k", VERSION), "tests", "data")


def tokens(s):
    return collections.Counter(re.findall(r"\w+", s.lower()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gleaner", default=os.path.join(ROOT, "target", "release", "gleaner"))
    a = ap.parse_args()
    data = data_dir()
    scores = []
    for f in sorted(os.listdir(os.path.join(data, "txt"))):
        name = f[:-4]
        html = os.path.join(data, "html", name + ".html")
        if not os.path.exists(html):
            continue
        meta_path = os.path.join(data, "metadata", name + ".json")
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        out = subprocess.run([a.gleaner, "extract", "--json", html], capture_output=True, text=True)
        lines = out.stdout.splitlines()
        art = json.loads(lines[0]) if lines else {}
        ref = tokens(open(os.path.join(data, "txt", f), encoding="utf-8").read())
        got = tokens(art.get("text", ""))
        common = sum((ref & got).values())
        p = common / max(1, sum(got.values()))
        r = common / max(1, sum(ref.values()))
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        scores.append((f1, p, r))
        title = (art.get("title") or "").strip()
        same_title = "=" if title == (meta.get("title") or "").strip() else "!="
        print(f"{name:22s} F1 {f1:.2f} P {p:.2f} R {r:.2f}  title {same_title} {title[:60]!r}"
              f"  authors {art.get('authors')} (newspaper4k {meta.get('authors')})")
    n = len(scores)
    mean = [sum(s[i] for s in scores) / n for i in range(3)]
    print(f"{n} pages: F1 {mean[0]:.4f} P {mean[1]:.4f} R {mean[2]:.4f}")


if __name__ == "__main__":
    main()

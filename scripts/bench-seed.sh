#!/usr/bin/env bash
# Seed-to-searchable of a running crawl: starts `gleaner run --follow` on an
# empty data directory, then hands it one wcxb-dev page at a time with
# `gleaner seed --data DIR --depth 0 URL` and polls `gleaner search` until
# a phrase of its main text finds it; prints the median and worst seconds
# (a page that is not an article is never found, and is counted apart).
# Usage: scripts/bench-seed.sh [BINARY] [PAGES]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release -p gleaner >&2
  bin=target/release/gleaner
fi
pages=${2:-20}
work=target/bench-seed
rm -rf "$work"; mkdir -p "$work/site"
python3 - "$work/site" "$pages" <<'PY'
# Pages picked with a phrase of their main text (from the labels) to search.
import gzip, json, os, re, sys
out, n = sys.argv[1], int(sys.argv[2])
root = "../shared/datasets/wcxb-dev"
picked = []
for f in sorted(os.listdir(f"{root}/html")):
    page = f[:-len(".html.gz")]
    truth = json.load(open(f"{root}/ground-truth/{page}.json"))["ground_truth"]
    words = (truth.get("main_content") or "").split()[:120]
    phrase = next((words[i:i + 4] for i in range(len(words) - 4)
                   if all(re.fullmatch(r"[A-Za-z]{3,}", w) for w in words[i:i + 4])), None)
    if phrase:
        open(f"{out}/{page}.html", "wb").write(gzip.open(f"{root}/html/{f}").read())
        picked.append((f"{page}.html", " ".join(phrase)))
    if len(picked) == n:
        break
open(f"{out}/picked.tsv", "w").write("".join(f"{a}\t{b}\n" for a, b in picked))
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 scripts/serve-pages.py "$work/site" "$port" &
server=$!
"$bin" run --follow --allow-private --delay 0 --data "$work/data" >"$work/run.log" 2>&1 &
run=$!
trap 'kill -INT $run 2>/dev/null; kill $server 2>/dev/null; wait $run 2>/dev/null || true' EXIT
sleep 1
while IFS=$'\t' read -r name phrase; do
  url="http://127.0.0.1:$port/$name"
  t0=$(date +%s.%N)
  "$bin" seed --data "$work/data" --depth 0 "$url" >/dev/null
  found=""
  for _ in $(seq 300); do
    if "$bin" search --json --limit 50 --data "$work/data" "\"$phrase\"" 2>/dev/null | grep -qF "\"url\":\"$url\""; then
      found=yes; break
    fi
    sleep 0.05
  done
  t1=$(date +%s.%N)
  if [ -n "$found" ]; then echo "$t0 $t1"; else echo "$t0 never"; fi
done <"$work/site/picked.tsv" >"$work/times"
python3 - "$work/times" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
took = sorted(float(b) - float(a) for a, b in rows if b != "never")
never = sum(1 for _, b in rows if b == "never")
if took:
    print(f"seed to searchable over {len(rows)} seeds: median {took[len(took) // 2]:.2f} s, "
          f"worst {took[-1]:.2f} s, never found {never}")
else:
    print(f"no seed became searchable ({never} tried)")
PY

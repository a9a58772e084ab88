#!/usr/bin/env bash
# Dedup's share of `gleaner run`'s CPU: crawls the 1,497 pages of
# ../shared/datasets/wcxb-dev, served on loopback, with --delay 0 under
# `perf record`, and prints the share of CPU samples whose call stack is in
# the dedup crate. Needs perf (Debian's linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p gleaner >&2
work=target/bench-dedup-run
rm -rf "$work"; mkdir -p "$work/site/p"
for f in ../shared/datasets/wcxb-dev/html/*.html.gz; do
  b=$(basename "$f" .gz); gzip -dc "$f" >"$work/site/p/$b"
done
python3 - "$work/site" <<'PY'
import os, sys
d = sys.argv[1]
links = "".join(f'<a href="p/{f}">{f}</a><br>' for f in sorted(os.listdir(d + "/p")))
open(d + "/index.html", "w").write(f"<html><body>{links}</body></html>")
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 scripts/serve-pages.py "$work/site" "$port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 1
sed 's/^max_links_per_page = .*/max_links_per_page = 2000/' pipelines.toml >"$work/run.toml"
perf record -F 499 -g -o "$work/perf.data" target/release/gleaner run --config "$work/run.toml" \
  --seeds "http://127.0.0.1:$port/index.html" --depth 1 --delay 0 --allow-private --data "$work/data" 2>/dev/null
perf script -i "$work/perf.data" 2>/dev/null | python3 -c '
import sys
total = dedup = 0
frames = []
for line in sys.stdin:
    if line.strip():
        frames.append(line)
        continue
    if frames:
        total += 1
        dedup += any("gleaner_dedup" in f for f in frames[1:])
    frames = []
print(f"gleaner run: {total} CPU samples, {dedup} in dedup ({100 * dedup / max(1, total):.1f}%)")
'

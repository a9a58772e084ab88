#!/usr/bin/env bash
# `gleaner run` throughput: crawls the 1,497 pages of
# ../shared/datasets/wcxb-dev served on loopback (--delay 0, several
# requests at once to the one host, so the run is bound by gleaner's own
# CPU rather than by politeness), and prints pages/s and gleaner's CPU
# seconds and peak resident memory per run. Compare binaries in one invocation:
#   scripts/bench-run.sh [RUNS] [BINARY...]   (default: 3 runs of target/release/gleaner)
# BENCH_SET="workers=1 commit_interval_ms=0" sets pipelines.toml keys for
# every run (to compare settings of one binary).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}; shift || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  cargo build --release -p gleaner >&2
  bins=(target/release/gleaner)
fi
work=target/bench-run
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
sed -e 's/^max_links_per_page = .*/max_links_per_page = 2000/' \
    -e 's/^per_host_concurrency = .*/per_host_concurrency = 8/' pipelines.toml >"$work/run.toml"
for kv in ${BENCH_SET:-}; do
  sed -i "s/^${kv%%=*} = [^#]*/${kv%%=*} = ${kv#*=} /" "$work/run.toml"
done
# An older binary may not know a newer key: drop the keys it refuses.
config_for() {
  local cfg="$work/run-$(basename "$1").toml" key
  cp "$work/run.toml" "$cfg"
  while key=$("$1" search --config "$cfg" --data "$work/none" x 2>&1 |
              grep -o 'unknown field `[a-z_]*`' | head -1 | cut -d'`' -f2 || true) && [ -n "$key" ]; do
    sed -i "/^$key = /d" "$cfg"
  done
  echo "$cfg"
}
for i in $(seq "$runs"); do
  for bin in "${bins[@]}"; do
    rm -rf "$work/data"
    cfg=$(config_for "$bin")
    /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$bin" run --config "$cfg" \
      --seeds "http://127.0.0.1:$port/index.html" --depth 1 --delay 0 --allow-private \
      --data "$work/data" >/dev/null 2>&1
    python3 - "$bin" "$work/time" "$work/data/summary.json" <<'PY'
import json, sys
user, sys_, wall, rss_kb = map(float, open(sys.argv[2]).read().split()[-4:])
s = json.load(open(sys.argv[3]))
pages = s["produced"]["pages"]
print(f"{sys.argv[1]}: {pages} pages, {s['produced']['articles']} articles in {wall:.2f} s: "
      f"{pages / wall:.0f} pages/s, {user + sys_:.2f} CPU s ({pages / (user + sys_):.0f} pages per CPU s), "
      f"peak resident {rss_kb / 1024:.0f} MB")
PY
  done
done

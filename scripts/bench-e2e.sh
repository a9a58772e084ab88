#!/usr/bin/env bash
# The end-to-end crawl bench: the 1,497 pages of ../shared/datasets/wcxb-dev
# spread over 20 loopback hosts (one port each, about 75 pages), crawled by
# `gleaner run` from the 20 host index pages, in a release build:
#   1. --delay 0: pages/s, CPU seconds per page, peak RSS, and the time from
#      a page's fetch to its article being searchable (p50 / p99), beside
#      `gleaner eval --bench` (clean + extract alone) in the same invocation;
#   2. --delay DELAY_MS (default 250): pages/s against the polite bound
#      (hosts / delay), and the shortest gap between two requests to one
#      host as the servers saw it (never under the delay).
# Runs on this machine vary by about 10%: RUNS=N repeats the --delay 0 crawl
# and prints each run and the median ratio.
# Usage: [RUNS=N] [BENCH_SET="key=value ..."] scripts/bench-e2e.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release -p gleaner >&2
  bin=target/release/gleaner
fi
delay=${DELAY_MS:-250}
hosts=20
work=target/bench-e2e
rm -rf "$work"; mkdir -p "$work"
python3 - "$work" "$hosts" <<'PY'
import gzip, os, sys
work, hosts = sys.argv[1], int(sys.argv[2])
src = "../shared/datasets/wcxb-dev/html"
files = sorted(f for f in os.listdir(src) if f.endswith(".html.gz"))
for h in range(hosts):
    os.makedirs(f"{work}/site{h}/p")
for i, f in enumerate(files):
    h = i % hosts
    name = f[:-3]
    with gzip.open(f"{src}/{f}", "rb") as g, open(f"{work}/site{h}/p/{name}", "wb") as out:
        out.write(g.read())
for h in range(hosts):
    names = sorted(os.listdir(f"{work}/site{h}/p"))
    links = "".join(f'<a href="p/{n}">{n}</a><br>' for n in names)
    open(f"{work}/site{h}/index.html", "w").write(f"<html><body>{links}</body></html>")
PY
# nginx serves every host (one port each) and logs (port, time, duration)
# per request. A Python server took about 1 ms of CPU per page, a tenth of
# what the crawl has on these two cores; nginx takes a few percent of that,
# so the figures are gleaner's.
if ! command -v nginx >/dev/null && ! [ -x /usr/sbin/nginx ]; then
  (apt-get install -y -qq nginx-light || { apt-get update -qq && apt-get install -y -qq nginx-light; }) >&2
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
ports=$(python3 -c "
import socket
socks = [socket.socket() for _ in range($hosts)]
for s in socks: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))")
abs=$(cd "$work" && pwd)
{
  echo "worker_processes 1; daemon off; pid $abs/nginx.pid; error_log $abs/nginx-error.log;"
  echo "events { worker_connections 4096; }"
  echo "http { default_type text/html; sendfile on; log_format t '\$server_port \$msec \$request_time';"
  echo "  client_body_temp_path $abs/tmp; proxy_temp_path $abs/tmp; fastcgi_temp_path $abs/tmp; uwsgi_temp_path $abs/tmp; scgi_temp_path $abs/tmp;"
  h=0
  for p in $ports; do
    echo "  server { listen 127.0.0.1:$p backlog=1024; root $abs/site$h; access_log $abs/requests.log t; }"
    h=$((h + 1))
  done
  echo "}"
} >"$work/nginx.conf"
mkdir -p "$work/tmp"
echo "$ports" >"$work/ports"
"$nginx" -c "$abs/nginx.conf" -e "$abs/nginx-error.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for p in $ports; do
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $p), 1)" 2>/dev/null; do sleep 0.1; done
done
seeds=()
for p in $(cat "$work/ports"); do seeds+=("http://127.0.0.1:$p/index.html"); done
sed -e 's/^max_links_per_page = .*/max_links_per_page = 2000/' pipelines.toml >"$work/run.toml"
for kv in ${BENCH_SET:-}; do   # e.g. BENCH_SET="channel_capacity=16"
  sed -i "s/^${kv%%=*} = [^#]*/${kv%%=*} = ${kv#*=} /" "$work/run.toml"
done

crawl() { # DELAY_MS NAME
  rm -rf "$work/data-$2"; : >"$work/requests.log"
  /usr/bin/time -f "%U %S %e %M" -o "$work/time-$2" "$bin" run --config "$work/run.toml" \
    --seeds "${seeds[@]}" --depth 1 --delay "$1" --allow-private --data "$work/data-$2" >/dev/null 2>&1
}
runs=${RUNS:-1}
for r in $(seq 1 "$runs"); do crawl 0 "fast$r"; done
"$bin" eval --bench ../shared/datasets/wcxb-dev >"$work/eval-bench" 2>/dev/null
crawl "$delay" polite
python3 - "$work" "$hosts" "$delay" "$runs" <<'PY'
import json, re, statistics, sys
from collections import defaultdict
work, hosts, delay, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def run(name):
    user, sys_, wall, rss = open(f"{work}/time-{name}").read().split()[-4:]
    s = json.load(open(f"{work}/data-{name}/summary.json"))
    return float(user) + float(sys_), float(wall), int(rss) / 1024, s
bench = open(f"{work}/eval-bench").read()
extract = float(re.search(r"\(clean \+ extract\): ([\d.]+) pages/s", bench).group(1))
ratios = []
for r in range(1, runs + 1):
    cpu, wall, rss, s = run(f"fast{r}")
    pages = s["produced"]["pages"]
    lat = s.get("fetch_to_searchable_seconds") or {}
    ratios.append(pages / wall / extract)
    print(f"--delay 0: {pages} pages, {s['produced']['articles']} articles, {s['index_docs']} indexed in {wall:.1f} s: "
          f"{pages / wall:.0f} pages/s, {1000 * cpu / pages:.1f} ms CPU per page, peak RSS {rss:.0f} MB")
    print(f"  fetch to searchable: p50 {lat.get('p50', float('nan')):.2f} s, p99 {lat.get('p99', float('nan')):.2f} s")
    print(f"  clean + extract alone (gleaner eval --bench): {extract:.0f} pages/s; run / extraction = {ratios[-1]:.2f}")
if runs > 1:
    print(f"run / extraction over {runs} runs: median {statistics.median(ratios):.2f}, "
          f"from {min(ratios):.2f} to {max(ratios):.2f}")
cpu, wall, rss, s = run("polite")
pages = s["produced"]["pages"]
bound = hosts * 1000 / delay
gaps = defaultdict(list)
for line in open(f"{work}/requests.log"):
    # $msec is when the response was logged; less $request_time, when the
    # request's first bytes were read: the gap a host sees between requests.
    port, done, took = line.split()
    gaps[port].append(float(done) - float(took))
shortest = min(b - a for ts in gaps.values() for a, b in zip(sorted(ts), sorted(ts)[1:]))
print(f"--delay {delay}: {pages} pages in {wall:.1f} s: {pages / wall:.1f} pages/s = {pages / wall / bound:.2f} of the polite bound "
      f"({hosts} hosts / {delay} ms = {bound:.0f} pages/s); shortest gap to one host {1000 * shortest:.0f} ms")
PY

#!/usr/bin/env bash
# The main job on the embedded default, offline: serves the example news
# site (examples/site) on loopback, crawls it with `gleaner run` (every stage
# in one process, no broker), then searches the index it built.
# Usage: scripts/demo.sh [DATA_DIR]   (default: target/demo-data, emptied
# first, so every demo starts from nothing; a DATA_DIR given is kept as is)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
data="${1:-target/demo-data}"
if [ $# -eq 0 ]; then rm -rf "$data"; fi
cargo build --release -p gleaner
bin=target/release/gleaner
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory examples/site >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
  python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$port)))" && break
  sleep 0.1
done
# Loopback needs --allow-private; the short delay is polite enough to our own server.
# The site's navigation links to seven pages that do not exist, so the run
# reports them and ends with status 3 (finished, some pages failed).
status=0
"$bin" run --seeds "http://127.0.0.1:$port/" --allow-private --delay 50 --data "$data" || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"
echo
echo "\$ gleaner search --data $data 'harbour bridge'"
"$bin" search --data "$data" --limit 3 'harbour bridge'

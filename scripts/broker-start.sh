#!/usr/bin/env bash
# Starts the dev broker (tansu 0.6.0, Kafka protocol) on a free loopback port
# with sqlite storage in a temp dir. Installs tansu first unless
# `tansu --version` already says 0.6.0 (about 12 minutes on two cores).
# Prints `export GLEANER_BROKERS=127.0.0.1:PORT`; state goes in $BROKER_DIR
# (default: a new temp dir), which scripts/broker-stop.sh takes.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
"$(dirname "$0")/tansu-install.sh"
dir="${BROKER_DIR:-$(mktemp -d -t gleaner-broker.XXXXXX)}"
mkdir -p "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# tansu reads the sqlite URL's path as relative, so it runs inside $dir.
(cd "$dir" && exec nohup tansu broker \
  --listener-url "tcp://127.0.0.1:$port" \
  --advertised-listener-url "tcp://127.0.0.1:$port" \
  --storage-engine "sqlite://tansu.db" >"$dir/broker.log" 2>&1) &
echo $! >"$dir/broker.pid"
echo "$port" >"$dir/broker.port"
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$port)))" 2>/dev/null; then
    echo "export BROKER_DIR=$dir"
    echo "export GLEANER_BROKERS=127.0.0.1:$port"
    exit 0
  fi
  if ! kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
    echo "tansu exited; its log:" >&2; cat "$dir/broker.log" >&2; exit 1
  fi
  sleep 0.1
done
echo "tansu did not listen on $port within 10 s; log in $dir/broker.log" >&2
exit 1

#!/usr/bin/env bash
# Dedup benchmark: speed, memory and accuracy of `gleaner dedup --input`
# beside a MinHash-LSH baseline (datasketch), on synthetic news streams with
# planted reposts (scripts/dedup-stream.py), at 1k, 10k and 100k articles in
# the window.
#
#   scripts/bench-dedup.sh [SIZES...]      default: 1000 10000 100000
#   STREAM_ARGS="--reuse 0.9 --pool 300" scripts/bench-dedup.sh 100000
#                                          streams with heavy sentence reuse
#
# For each size N: a stream of about N articles is judged with window_count
# = N, so the window holds about N when the stream ends. Bytes per article is
# resident memory: peak RSS of that run minus peak RSS of the same stream
# with a 1,000-article window (the same batches and buffers), over the
# difference in window size. Accuracy is scored by scripts/dedup-score.py.
# The baseline runs in a Python venv under target/bench-venv (made once,
# with datasketch from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
work=target/bench-dedup
mkdir -p "$work"
# As bench-scale.sh: no fat LTO (a 7-minute build on 2 cores); the
# figures in the README come from such builds.
export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
cargo build --release -p gleaner >&2
G=target/release/gleaner
venv=target/bench-venv
if ! "$venv/bin/python" -c 'import datasketch' 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q datasketch >&2
fi

peak_kib() { # runs a command, prints its peak RSS in KiB on fd 3
  /usr/bin/time -f '%M' -o "$work/time.txt" "$@"
  cat "$work/time.txt" >&3
}

config() { # window size -> config file
  sed "s/^window_count = .*/window_count = $1/" pipelines.toml >"$work/w$1.toml"
  echo "$work/w$1.toml"
}

printf '%-8s %-9s %12s %14s %8s %8s %8s %8s\n' size system articles/s bytes/article P R F1 earliest
for n in "${sizes[@]}"; do
  ds="$work/stream-$n$(echo "${STREAM_ARGS:-}" | tr -d ' -')"
  # shellcheck disable=SC2086 # STREAM_ARGS is a list of arguments
  [ -s "$ds/stream.jsonl" ] || python3 scripts/dedup-stream.py "$n" "$ds" ${STREAM_ARGS:-} >&2
  articles=$(wc -l <"$ds/stream.jsonl")

  base=$( { peak_kib "$G" dedup --config "$(config 1000)" --input "$ds/stream.jsonl" --output "$work/out-base" >/dev/null; } 3>&1 )
  full=$( { peak_kib "$G" dedup --config "$(config "$n")" --input "$ds/stream.jsonl" --output "$work/out-$n" >"$work/run-$n.txt"; } 3>&1 )
  rate=$(sed -n 's/.*: \([0-9]*\) articles\/s/\1/p' "$work/run-$n.txt")
  window=$(sed -n 's/.*window \([0-9]*\) articles.*/\1/p' "$work/run-$n.txt")
  bytes=$(python3 -c "print(max(0, ($full - $base) * 1024) // max(1, $window - min($window, 1000)) if $window > 1000 else 'n/a')")
  score=$(python3 scripts/dedup-score.py --json "$ds/truth.jsonl" "$work/out-$n")
  read -r p r f e < <(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['precision'], d['recall'], d['f1'], d['earliest_kept'])" "$score")
  printf '%-8s %-9s %12s %14s %8s %8s %8s %8s\n' "$n" gleaner "$rate" "$bytes" "$p" "$r" "$f" "$e"

  "$venv/bin/python" scripts/dedup-baseline.py "$ds/stream.jsonl" "$work/lsh-$n" --window "$n" >"$work/lsh-$n.txt"
  lrate=$(sed -n 's/.*: \([0-9]*\) articles\/s.*/\1/p' "$work/lsh-$n.txt")
  lbytes=$(sed -n 's/.*, \([0-9]*\) bytes\/article resident.*/\1/p' "$work/lsh-$n.txt")
  lscore=$(python3 scripts/dedup-score.py --json --name minhash-lsh "$ds/truth.jsonl" "$work/lsh-$n")
  read -r p r f e < <(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['precision'], d['recall'], d['f1'], d['earliest_kept'])" "$lscore")
  printf '%-8s %-9s %12s %14s %8s %8s %8s %8s\n' "$n" minhash "$lrate" "$lbytes" "$p" "$r" "$f" "$e"
  python3 -c "print(f'{\"\":8} speed ratio gleaner / minhash-lsh: {$rate / max(1, $lrate):.1f}x')"
  echo "         gleaner per kind: $(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(', '.join(f'{k} {v}' for k, v in d['called_duplicate'].items()))" "$score")"
done

#!/usr/bin/env bash
# Stories benchmark: speed and memory of `gleaner stories --input` on a
# synthetic stream of N articles (scripts/dedup-stream.py: real sentences
# recombined, 3 s of publication time apart, so the whole stream is inside
# one 30-day window and every story stays open: the worst case for the
# window), and its accuracy on the labelled BBC politics stream.
#
#   scripts/bench-stories.sh [N]      default: 100000
#
# Bytes per article is resident memory: peak RSS of the run over the whole
# stream minus peak RSS over its first 1,000 articles (the same code and
# buffers), over the difference in articles held in the window.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
work=target/bench-stories
mkdir -p "$work"
cargo build --release -p gleaner >&2
G=target/release/gleaner
ds=target/bench-dedup/stream-$n
[ -s "$ds/stream.jsonl" ] || python3 scripts/dedup-stream.py "$n" "$ds" >&2
head -n 1000 "$ds/stream.jsonl" >"$work/first-1000.jsonl"

peak_kib() { # runs a command, prints its peak RSS in KiB on fd 3
  /usr/bin/time -f '%M' -o "$work/time.txt" "$@"
  cat "$work/time.txt" >&3
}

base=$( { peak_kib "$G" stories --input "$work/first-1000.jsonl" --output "$work/out-base" >/dev/null; } 3>&1 )
full=$( { peak_kib "$G" stories --input "$ds/stream.jsonl" --output "$work/out" >"$work/run.txt"; } 3>&1 )
cat "$work/run.txt"
window=$(sed -n 's/.*window \([0-9]*\) articles.*/\1/p' "$work/run.txt")
python3 -c "print(f'peak RSS {$full // 1024} MiB; {max(0, ($full - $base) * 1024) // max(1, $window - 1000)} bytes per article in the window (over the first 1,000 articles)')"

bbc=../shared/datasets/stories-bbc-politics
if [ -d "$bbc" ]; then
  "$G" stories --input "$bbc/stream.jsonl" --output "$work/bbc" >/dev/null
  python3 "$bbc/score.py" "$bbc/labels.json" "$work/bbc/stories.jsonl"
fi

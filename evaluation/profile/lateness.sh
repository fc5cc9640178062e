#!/bin/sh
# The timer-lateness trace of concurrent send, written to evaluation/profile/lateness.md
# (which `cargo run --release -p mpst-choreo-eval` embeds in EVALUATION.md): the
# benchmark with its seeded costs, 50 requests/s, two worker threads, `ks` and `cs`
# noting how late each session started and each work's sleep woke; ROUNDS alternating
# runs of each implementation. The raw JSON lines are kept in lateness.jsonl.
# Usage: evaluation/profile/lateness.sh [SECONDS] [ROUNDS]   (from the workspace root)
set -eu
SECONDS_PER_RUN=${1:-12}
ROUNDS=${2:-3}
cargo build --release -p mpst-choreo-eval --example send_profile
BIN=target/release/examples/send_profile
OUT=$(mktemp)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
  for imp in in_order out_of_order actors; do
    "$BIN" --late "$imp" "$SECONDS_PER_RUN" >> "$OUT"
  done
  r=$((r + 1))
done
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$(dirname "$0")/lateness.py" "$OUT" "$SECONDS_PER_RUN" "$ROUNDS" "$LOAD_BEFORE" "$LOAD" \
  > evaluation/profile/lateness.md
mv "$OUT" evaluation/profile/lateness.jsonl
cat evaluation/profile/lateness.md

#!/bin/sh
# The callgrind profile of concurrent send, written to evaluation/profile/callgrind.md
# (which `cargo run --release -p mpst-choreo-eval` embeds in EVALUATION.md).
# Zero-cost sessions one at a time on a current-thread runtime (deterministic), at N and
# 2N sessions: per-session counts are the differences divided by N, so setup cancels.
# Usage: evaluation/profile/callgrind.sh [N]   (from the workspace root; ~1 minute)
# With BEFORE=path/to/an/older/send_profile (and BEFORE_NAME=its label), its
# out-of-order run is profiled too and shown as a before/after row.
set -eu
N=${1:-1000}
cargo build --release -p mpst-choreo-eval --example send_profile
BIN=target/release/examples/send_profile
DIR=$(mktemp -d)
HERE=evaluation/profile
for imp in in_order out_of_order actors; do
  for n in "$N" $((2 * N)); do
    valgrind --tool=callgrind --callgrind-out-file="$DIR/$imp.$n" "$BIN" "$imp" "$n" 1 >/dev/null 2>&1
  done
done
if [ -n "${BEFORE:-}" ]; then
  for n in "$N" $((2 * N)); do
    valgrind --tool=callgrind --callgrind-out-file="$DIR/before.$n" "$BEFORE" out_of_order "$n" 1 >/dev/null 2>&1
  done
fi
python3 "$HERE/callcounts.py" "$DIR" "$N" > "$HERE/callgrind.md"
rm -rf "$DIR"
cat "$HERE/callgrind.md"

#!/bin/sh
# The hop trace of concurrent send, written to evaluation/profile/hops.md (which
# `cargo run --release -p mpst-choreo-eval` embeds in EVALUATION.md): the benchmark with
# its seeded costs, 50 requests/s, two worker threads, an observer timestamping each
# send and receive of `key`; ROUNDS alternating runs of each choreography.
# Usage: evaluation/profile/hops.sh [SECONDS] [ROUNDS]   (from the workspace root)
set -eu
SECONDS_PER_RUN=${1:-12}
ROUNDS=${2:-2}
cargo build --release -p mpst-choreo-eval --example send_profile
BIN=target/release/examples/send_profile
OUT=$(mktemp)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
  for imp in in_order out_of_order; do
    "$BIN" --hops "$imp" "$SECONDS_PER_RUN" >> "$OUT"
  done
  r=$((r + 1))
done
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$OUT" "$SECONDS_PER_RUN" "$ROUNDS" "$LOAD" > evaluation/profile/hops.md <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"Hop trace (`evaluation/profile/hops.sh {sys.argv[2]} {sys.argv[3]}`: the benchmark with "
      "its seeded costs, an observer on every endpoint timestamping each send and receive of "
      f"`key`; medians in ms per run, {sys.argv[3]} alternating runs each; load average at the "
      f"end {sys.argv[4]}):\n")
print("| choreography | sessions | start: wake-up + work lateness | ks → s | at s | s → c | at c | key latency |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for h in rows:
    print(f"| {h['implementation']} | {h['sessions']} | {h['start_ms']:.3f} | {h['ks_to_s_ms']:.3f} | "
          f"{h['at_s_ms']:.3f} | {h['s_to_c_ms']:.3f} | {h['at_c_ms']:.3f} | {h['key_ms']:.3f} |")
def mean(imp, f):
    v = [f(h) for h in rows if h["implementation"] == imp]
    return sum(v) / max(len(v), 1)
start = {i: mean(i, lambda h: h["start_ms"]) for i in ("in_order", "out_of_order")}
after = {i: mean(i, lambda h: h["ks_to_s_ms"] + h["at_s_ms"] + h["s_to_c_ms"] + h["at_c_ms"])
         for i in ("in_order", "out_of_order")}
print(f"\nAveraged over the runs, the hops after `ks` sends (ks → s, at s, s → c, at c) add "
      f"{after['in_order']:.3f} ms in order and {after['out_of_order']:.3f} ms out of order: what "
      "`fcomm` and the keyed mailbox add is tens of microseconds (less than `comm`'s path). The "
      f"start (from the due time to `ks`'s send, less its cost) takes {start['in_order']:.3f} ms in "
      f"order and {start['out_of_order']:.3f} ms out of order ({start['out_of_order'] - start['in_order']:+.3f} ms): "
      "both forms run each session in the role's own task (out of order several overlap there, "
      "in order one after the other) and wait for the timer thread to wake the scheduled start "
      "and the end of the work.")
PY
rm -f "$OUT"
cat evaluation/profile/hops.md

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
print("| choreography | sessions | start: wake-up + work lateness | at ks: key ready → sent | ks → s | at s | s → c | at c | key latency |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for h in rows:
    print(f"| {h['implementation']} | {h['sessions']} | {h['start_ms']:.3f} | {h['at_ks_ms']:.4f} | "
          f"{h['ks_to_s_ms']:.4f} | {h['at_s_ms']:.4f} | {h['s_to_c_ms']:.4f} | {h['at_c_ms']:.4f} | "
          f"{h['key_ms']:.3f} |")
IMPS = ("in_order", "out_of_order")
def mean(imp, f):
    v = [f(h) for h in rows if h["implementation"] == imp]
    return sum(v) / max(len(v), 1)
PARTS = ("at_ks_ms", "ks_to_s_ms", "at_s_ms", "s_to_c_ms", "at_c_ms")
part = {i: {p: mean(i, lambda h: h[p]) for p in PARTS} for i in IMPS}
start = {i: mean(i, lambda h: h["start_ms"]) for i in IMPS}
after = {i: sum(part[i].values()) for i in IMPS}
o = part["out_of_order"]
print(f"\nAveraged over the runs, from `ks`'s key ready to `c` recording it the medians add up to "
      f"{after['in_order']:.3f} ms in order (where `s` waits for `txt` first) and "
      f"{after['out_of_order']:.3f} ms out of order: {1e3 * o['at_ks_ms']:.1f} µs for `ks`'s "
      f"own send (from its work done through `fcomm`, the claim of its key and the filing at "
      f"`s`, in `ks`'s task), {1e3 * o['ks_to_s_ms']:.1f} µs to `s`'s receive (the rest of "
      f"`ks`'s poll, its session's end, then `s`'s task), {1e3 * o['at_s_ms']:.1f} µs at `s`, "
      f"{1e3 * o['s_to_c_ms']:.1f} µs to `c`'s receive and {1e3 * o['at_c_ms']:.1f} µs at `c`. "
      "The lateness trace's `key delivery` measures the same span with the services' own "
      "notes, without an observer, for the actors too. The start (due time to the key ready, "
      f"less its cost) takes {start['in_order']:.3f} ms in order and "
      f"{start['out_of_order']:.3f} ms out of order: both forms run each session in the role's "
      "own task and wait for the timer's thread to wake the scheduled start and the end of "
      "the work.")
PY
rm -f "$OUT"
cat evaluation/profile/hops.md

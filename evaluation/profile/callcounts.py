#!/usr/bin/env python3
"""Per-session counts from the callgrind profiles of send_profile written by
callgrind.sh (DIR/IMPLEMENTATION.N and DIR/IMPLEMENTATION.2N): instructions, task polls,
spawns and wake-ups per session as (count at 2N - count at N) / N, and the top frames
(self instructions) of the out-of-order run; printed as markdown.
Usage: callcounts.py DIR N"""
import os
import re
import subprocess
import sys
from collections import Counter

IMPLS = ["in_order", "out_of_order", "actors"]
# Optional: DIR/before.N and DIR/before.2N, the out-of-order run of an earlier build.
BEFORE = "before"
# (column, substring of the callee's symbol)
COUNTS = [
    ("task polls", "tokio::runtime::task::raw::poll"),
    ("tasks spawned", "tokio::runtime::task::core::Cell<T,S>::new"),
    ("wake-ups", "tokio::runtime::task::waker::wake_by"),
]


def profile(path):
    names, calls, cfn, total = {}, Counter(), None, 0
    for line in open(path, errors="replace"):
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3).strip()
            if m.group(1) == "cfn":
                cfn = names.get(m.group(2))
        elif line.startswith("calls=") and cfn is not None:
            calls[cfn] += int(line.split()[0][6:])
        elif line.startswith("summary:") or line.startswith("totals:"):
            total = int(line.split()[1])
    return total, calls


def per_session(a, b, sub, n):
    count = lambda c: sum(v for k, v in c.items() if sub in k)
    return (count(b) - count(a)) / n


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    rows = {}
    impls = IMPLS + ([BEFORE] if os.path.exists(f"{d}/{BEFORE}.{n}") else [])
    for imp in impls:
        (ta, ca), (tb, cb) = profile(f"{d}/{imp}.{n}"), profile(f"{d}/{imp}.{2 * n}")
        rows[imp] = [(tb - ta) / n] + [per_session(ca, cb, s, n) for _, s in COUNTS]
    print("Callgrind profile (`evaluation/profile/callgrind.sh`: the zero-cost concurrent-send "
          f"sessions one at a time on a current-thread runtime, {n} and {2 * n} sessions, "
          "per-session counts as differences over N):\n")
    print("| implementation | instructions / session | " + " | ".join(c for c, _ in COUNTS) + " |")
    print("|---|---:|" + "---:|" * len(COUNTS))
    for imp in impls:
        r = rows[imp]
        name = os.environ.get("BEFORE_NAME", "out_of_order before") if imp == BEFORE else imp
        print(f"| {name} | {r[0]:.0f} | " + " | ".join(f"{x:.1f}" for x in r[1:]) + " |")
    io, oo = rows["in_order"][0], rows["out_of_order"][0]
    print(f"\nOut of order / in order: {oo / io:.2f}× the instructions per session.")
    if BEFORE in rows:
        b = rows[BEFORE]
        print(f"Out of order now / before: {oo / b[0]:.2f}× the instructions, "
              f"{rows['out_of_order'][1] / b[1]:.2f}× the task polls per session.")
    print()
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                          f"{d}/out_of_order.{2 * n}"], capture_output=True, text=True).stdout
    frames = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*)", line)
        if m and "PROGRAM TOTALS" not in line and len(frames) < 10:
            sym = re.sub(r"\s*\[[^\]]*\]$", "", m.group(3)).strip()
            sym = re.sub(r"^\S*?\.(rs|S|c|h):", "", sym)
            frames.append((m.group(2), sym[:110]))
    print(f"Top frames of the out-of-order run ({2 * n} sessions), self instructions:\n")
    print("| self | function |\n|---:|---|")
    for pct, sym in frames:
        print(f"| {pct}% | `{sym}` |")


main()

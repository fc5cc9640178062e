#!/usr/bin/env python3
"""CPU time per run of the choreographies, kernel included: ChoRus against mpst-choreo.

Callgrind (`callgrind.py --choreo`) counts user-space instructions only. ChoRus runs a
thread per location that blocks in `Condvar::wait`, so its futex calls and thread
switches happen in the kernel, where callgrind does not look; ours switches tasks in user
space. This script counts what both spend in user and kernel mode: for each choreography
and implementation it runs `choreo_profile` (the binary callgrind.py measures) under
`perf stat -e task-clock,context-switches` with K = RUNS and K = 0 runs, REPEATS times,
alternating the implementations, and prints the median of (task-clock(K) - task-clock(0))
/ K in microseconds, and the context switches per run, as a Markdown table with the
ratios to ChoRus. Needs `perf` (software events only; no hardware counters needed).

    cd comparison && python3 cpu_time.py [RUNS] [REPEATS]     # defaults 4000 and 5

RUNS stays below `EndpointConfig::unclaimed_limit` (10,000): in concurrent send and the
pipeline the first roles run ahead of the others by up to RUNS sessions, and an endpoint
keeps at most that many envelopes nobody has claimed yet (docs/SECURITY.md), so beyond it
the oldest are dropped and the run fails with a receive time-out, by design.

CPU time moves with the machine's load (printed before and after): read it beside the
load, and prefer the instruction counts for small differences.
"""

import os
import re
import statistics
import subprocess
import sys

from callgrind import CHOREO_IMPLEMENTATIONS, CHOREO_PROFILE, CHOREOGRAPHIES


def perf(choreography, implementation, runs):
    """(task-clock in ms, context switches) of one run of the binary."""
    run = subprocess.run(
        ["perf", "stat", "-x,", "-e", "task-clock,context-switches", CHOREO_PROFILE,
         choreography, implementation, str(runs)],
        capture_output=True, text=True,
    )
    fields = {}
    for line in run.stderr.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and re.fullmatch(r"[0-9.]+", parts[0]):
            fields[parts[2]] = float(parts[0])
    if run.returncode != 0 or "task-clock" not in fields:
        sys.exit(f"choreo_profile {choreography} {implementation} {runs} failed:\n{run.stderr}")
    return fields["task-clock"], fields.get("context-switches", 0.0)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main(args):
    runs = int(args[0]) if args else 4000
    repeats = int(args[1]) if len(args) > 1 else 5
    print(f"load average before: {load()}")
    impls = CHOREO_IMPLEMENTATIONS
    print(f"| choreography | {' | '.join(f'{i}: CPU µs per run' for i in impls)} | "
          + " | ".join(f"{i}: switches per run" for i in impls) + " | "
          + " | ".join(f"{i} / chorus" for i in impls[1:]) + " |")
    print("|---|" + "---:|" * (3 * len(impls) - 1))
    for choreography in CHOREOGRAPHIES:
        cpu = {i: [] for i in impls}
        switches = {i: [] for i in impls}
        for _ in range(repeats):
            for i in impls:
                many, many_switches = perf(choreography, i, runs)
                none, none_switches = perf(choreography, i, 0)
                cpu[i].append((many - none) * 1000 / runs)
                switches[i].append((many_switches - none_switches) / runs)
        med = {i: statistics.median(cpu[i]) for i in impls}
        cells = [f"{med[i]:.2f}" for i in impls]
        cells += [f"{statistics.median(switches[i]):.3f}" for i in impls]
        cells += [f"{med[i] / med['chorus']:.2f}" for i in impls[1:]]
        print(f"| {choreography} | {' | '.join(cells)} |", flush=True)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1:])

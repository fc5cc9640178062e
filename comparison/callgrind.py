#!/usr/bin/env python3
"""Instructions per run of the session runtimes, side by side, under callgrind.

Wall-clock times on a shared machine swing by tens of percent; instruction counts do not
depend on load. For each protocol and implementation this runs the `profile` example
(`suite/examples/profile.rs`: K runs on a current-thread tokio runtime, each setting up its
roles, running the protocol as tokio tasks and checking the answer) under
`valgrind --tool=callgrind` for K = RUNS and K = 0, and prints (Ir(RUNS) - Ir(0)) / RUNS,
the instructions of one run without the process's start-up, as a Markdown table with the
ratios to rumpsteak 0.1. Run from `comparison/` (needs valgrind):

    python3 callgrind.py                      # stream 50, double buffering 50
    python3 callgrind.py --annotate stream ours 50   # inclusive costs of one implementation
    python3 callgrind.py --choreo             # choreographies: ChoRus against mpst-choreo
    python3 callgrind.py --before OLD_BINARY  # each row twice: OLD_BINARY, then this build

`--choreo` does the same with `choreo/examples/choreo_profile.rs` (K = CHOREO_RUNS runs
of a choreography in memory: ChoRus's local transport with a thread per location, ours
over `InMemory` with a task per role, out of order and in order) and prints the ratios
to ChoRus.

The binary is built first (`cargo build --release -p comparison --example profile`); pass
`--no-build` to measure the binary already in `target/release/examples/`.

`--one-unit` builds our two runtimes (`mpst-session`, `mpst-choreo`) as one codegen unit
each, into `target/one-unit/`, and measures that binary. With the default sixteen units,
which small functions LLVM inlines on the hot path depends on how a crate happens to be
partitioned, so a change anywhere in the crate can move a count by 1-2 % with no change
on the path itself; with one unit it does not. Use it to judge a small change (both
builds with it); the tables of REPORT.md use the default build, what users compile.
"""

import os
import re
import subprocess
import sys
import tempfile

PROFILE = os.environ.get("PROFILE", "target/release/examples/profile")
RUNS = 400
CASES = [("stream", 50), ("double_buffering", 50)]
IMPLEMENTATIONS = ["rumpsteak", "ours", "ours-spsc", "bare"]


CHOREO_PROFILE = os.environ.get(
    "CHOREO_PROFILE", "target/release/examples/choreo_profile")
CHOREO_RUNS = 200
CHOREOGRAPHIES = ["ping_pong", "concurrent_send", "pipeline"]
CHOREO_IMPLEMENTATIONS = ["chorus", "ours", "ours-in-order"]


ONE_UNIT_DIR = "target/one-unit"


def build(choreo=False, one_unit=False):
    target = ["-p", "choreo-comparison", "--example", "choreo_profile"] if choreo else [
        "-p", "comparison", "--example", "profile"]
    extra, env = [], None
    if one_unit:
        for package in ("mpst-session", "mpst-choreo"):
            extra += ["--config", f"profile.release.package.{package}.codegen-units=1"]
        env = {**os.environ, "CARGO_TARGET_DIR": ONE_UNIT_DIR}
    subprocess.run(["cargo", "build", "--release", *target, *extra], check=True, env=env)


def choreo_instructions(choreography, implementation, runs):
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", CHOREO_PROFILE,
         choreography, implementation, str(runs)],
        capture_output=True, text=True,
    )
    match = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not match:
        sys.exit(f"choreo_profile {choreography} {implementation} {runs} failed:\n{run.stderr}")
    return int(match.group(1))


def choreo_table():
    print(f"| choreography | {' | '.join(CHOREO_IMPLEMENTATIONS)} | "
          + " | ".join(f"{i} / chorus" for i in CHOREO_IMPLEMENTATIONS[1:]) + " |")
    print("|---|" + "---:|" * (2 * len(CHOREO_IMPLEMENTATIONS) - 1))
    for choreography in CHOREOGRAPHIES:
        counts = {}
        for i in CHOREO_IMPLEMENTATIONS:
            many = choreo_instructions(choreography, i, CHOREO_RUNS)
            none = choreo_instructions(choreography, i, 0)
            counts[i] = (many - none) / CHOREO_RUNS
        base = counts["chorus"]
        cells = [f"{counts[i]:,.0f}" for i in CHOREO_IMPLEMENTATIONS]
        ratios = [f"{counts[i] / base:.3f}" for i in CHOREO_IMPLEMENTATIONS[1:]]
        print(f"| {choreography} | {' | '.join(cells)} | {' | '.join(ratios)} |", flush=True)


def instructions(protocol, implementation, n, runs, out="/dev/null", binary=None):
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary or PROFILE,
         protocol, implementation, str(n), str(runs)],
        capture_output=True, text=True,
    )
    match = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not match:
        sys.exit(f"profile {protocol} {implementation} {n} {runs} failed:\n{run.stderr}")
    return int(match.group(1))


def per_run(protocol, implementation, n, binary=None):
    many = instructions(protocol, implementation, n, RUNS, binary=binary)
    none = instructions(protocol, implementation, n, 0, binary=binary)
    return (many - none) / RUNS


def table(before=None):
    """One row per case; with `before` (an older build of the profile example), a row
    for it above each row of this build, measured in the same session."""
    print(f"| protocol (n) | {' | '.join(IMPLEMENTATIONS)} | "
          + " | ".join(f"{i} / rumpsteak" for i in IMPLEMENTATIONS[1:]) + " |")
    print("|---|" + "---:|" * (2 * len(IMPLEMENTATIONS) - 1))
    builds = [(", before", before), (", after", None)] if before else [("", None)]
    for protocol, n in CASES:
        for name, binary in builds:
            counts = {i: per_run(protocol, i, n, binary) for i in IMPLEMENTATIONS}
            base = counts["rumpsteak"]
            cells = [f"{counts[i]:,.0f}" for i in IMPLEMENTATIONS]
            ratios = [f"{counts[i] / base:.3f}" for i in IMPLEMENTATIONS[1:]]
            print(f"| {protocol} ({n}){name} | {' | '.join(cells)} | {' | '.join(ratios)} |",
                  flush=True)


def annotate(protocol, implementation, n):
    """Prints callgrind_annotate's inclusive costs of RUNS runs (set-up included)."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        instructions(protocol, implementation, n, RUNS, out.name)
        report = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=99", out.name],
            check=True, capture_output=True, text=True,
        ).stdout
    print(report)


def main(args):
    global PROFILE, CHOREO_PROFILE
    build_first = "--no-build" not in args
    one_unit = "--one-unit" in args
    args = [a for a in args if a not in ("--no-build", "--one-unit")]
    if one_unit:
        PROFILE = f"{ONE_UNIT_DIR}/release/examples/profile"
        CHOREO_PROFILE = f"{ONE_UNIT_DIR}/release/examples/choreo_profile"
    if build_first:
        build(choreo=args[:1] == ["--choreo"], one_unit=one_unit)
    if args[:1] == ["--before"] and len(args) == 2:
        table(before=args[1])
    elif args == ["--choreo"]:
        choreo_table()
    elif args[:1] == ["--annotate"] and len(args) == 4:
        annotate(args[1], args[2], int(args[3]))
    elif not args:
        table()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

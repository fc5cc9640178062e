#!/usr/bin/env python3
"""Instructions per session of each runtime bench, session-typed vs bare, under callgrind.

Wall-clock benchmarks are noisy on a shared machine; instruction counts are not. Run from
the workspace root (needs valgrind):

    python3 crates/mpst/benches/instructions.py

It builds the bench binaries (`cargo bench -p mpst-session --no-run`), runs each implementation
in `--count` mode (`common/mod.rs`) under `valgrind --tool=callgrind` with two numbers of
sessions, and prints the difference divided by the difference in sessions: the
instructions of one session, without the set-up. Prints a Markdown table.
"""

import json
import re
import subprocess
import sys

# bench -> (parameter name, parameters, typed implementations)
BENCHES = {
    "stream": ("values", [10, 30, 50], ["typed", "typed_unrolled"]),
    "double_buffering": ("buffer size", [5000, 25000], ["typed", "typed_optimised"]),
    "ring": ("laps", [10, 30, 50], ["typed"]),
    "three_adder": ("-", [0], ["typed"]),
    "fft": ("column length", [1000, 5000], ["typed"]),
}
FEW, MANY = 10, 60


def binaries():
    out = subprocess.run(
        ["cargo", "bench", "-p", "mpst-session", "--no-run", "--message-format=json"],
        check=True, capture_output=True, text=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        message = json.loads(line)
        target = message.get("target", {})
        if message.get("reason") == "compiler-artifact" and "bench" in target.get("kind", []):
            if message.get("executable"):
                found[target["name"]] = message["executable"]
    return found


def instructions(binary, variant, parameter, sessions):
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary,
         "--count", variant, str(parameter), str(sessions)],
        capture_output=True, text=True,
    )
    match = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not match:
        sys.exit(f"{binary} --count {variant} {parameter} {sessions} failed:\n{run.stderr}")
    return int(match.group(1))


def per_session(binary, variant, parameter):
    few = instructions(binary, variant, parameter, FEW)
    many = instructions(binary, variant, parameter, MANY)
    return (many - few) / (MANY - FEW)


def main():
    found = binaries()
    print("| bench | parameter | typed implementation | typed instr./session | bare instr./session | typed / bare |")
    print("|---|---|---|---|---|---|")
    for bench, (name, parameters, typed) in BENCHES.items():
        for parameter in parameters:
            bare = per_session(found[bench], "bare", parameter)
            for variant in typed:
                t = per_session(found[bench], variant, parameter)
                label = "-" if name == "-" else f"{name} = {parameter}"
                print(f"| {bench} | {label} | {variant} | {t:,.0f} | {bare:,.0f} | {t / bare:.3f} |", flush=True)


if __name__ == "__main__":
    main()

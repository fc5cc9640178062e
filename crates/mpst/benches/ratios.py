#!/usr/bin/env python3
"""Session-typed / bare-channel ratios from the criterion results of the runtime benches.

Run after `cargo bench -p mpst -- --quick` (from the workspace root):

    python3 crates/mpst/benches/ratios.py [target/criterion]

Prints a Markdown table: for every bench and parameter, the mean time of each typed
implementation, of the hand-written `bare` twin, and their ratio (typed / bare).
"""

import json
import sys
from pathlib import Path

GROUPS = ["stream", "double_buffering", "ring", "three_adder", "fft"]
PARAMETER = {
    "stream": "values",
    "double_buffering": "buffer size",
    "ring": "laps",
    "three_adder": "-",
    "fft": "column length",
}


def mean_ns(directory):
    """The mean point estimate (ns) criterion stored for one benchmark, or None."""
    path = directory / "new" / "estimates.json"
    if not path.is_file():
        return None
    with open(path) as f:
        return json.load(f)["mean"]["point_estimate"]


def fmt(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def rows(root):
    for group in GROUPS:
        base = root / group
        if not (base / "bare").is_dir():
            continue
        typed = sorted(d.name for d in base.iterdir() if d.is_dir() and d.name.startswith("typed"))
        bare_dir = base / "bare"
        params = [None]
        if mean_ns(bare_dir) is None:
            params = sorted(
                (d.name for d in bare_dir.iterdir() if d.is_dir() and d.name != "report"),
                key=lambda p: int(p) if p.isdigit() else p,
            )
        for param in params:
            bare = mean_ns(bare_dir if param is None else bare_dir / param)
            if bare is None:
                continue
            for name in typed:
                d = base / name
                t = mean_ns(d if param is None else d / param)
                if t is None:
                    continue
                yield group, param or "-", name, t, bare, t / bare


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    found = list(rows(root))
    if not found:
        sys.exit(f"no criterion results under {root}: run `cargo bench -p mpst -- --quick` first")
    print("| bench | parameter | typed implementation | typed mean | bare mean | typed / bare |")
    print("|---|---|---|---|---|---|")
    for group, param, name, t, bare, ratio in found:
        label = f"{PARAMETER[group]} = {param}" if param != "-" else "-"
        print(f"| {group} | {label} | {name} | {fmt(t)} | {fmt(bare)} | {ratio:.3f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Session-typed / bare-channel ratios from the criterion results of the runtime benches.

Run after `cargo bench -p mpst-session -- --quick` (from the workspace root):

    python3 crates/mpst/benches/ratios.py [CRITERION_DIR...]

(default `target/criterion`). Prints a Markdown table: for every bench and parameter, the
median time of each typed implementation, of the hand-written `bare` twin, and their ratio
(typed / bare). The median, because on a shared machine the mean follows the outliers;
given several directories (copies of `target/criterion` from repeated runs), each time is
the smallest of the runs' medians, the usual estimate of a time without interference.
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


def median_ns(directory):
    """The median point estimate (ns) criterion stored for one benchmark, or None."""
    path = directory / "new" / "estimates.json"
    if not path.is_file():
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def best_ns(roots, relative):
    """The smallest median of one benchmark over the runs in `roots`, or None."""
    found = [m for m in (median_ns(root / relative) for root in roots) if m is not None]
    return min(found) if found else None


def fmt(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def rows(roots):
    root = roots[0]
    for group in GROUPS:
        base = root / group
        if not (base / "bare").is_dir():
            continue
        typed = sorted(d.name for d in base.iterdir() if d.is_dir() and d.name.startswith("typed"))
        bare_dir = base / "bare"
        params = [None]
        if median_ns(bare_dir) is None:
            params = sorted(
                (d.name for d in bare_dir.iterdir() if d.is_dir() and d.name != "report"),
                key=lambda p: int(p) if p.isdigit() else p,
            )
        for param in params:
            def relative(name):
                return Path(group, name) if param is None else Path(group, name, param)

            bare = best_ns(roots, relative("bare"))
            if bare is None:
                continue
            for name in typed:
                t = best_ns(roots, relative(name))
                if t is None:
                    continue
                yield group, param or "-", name, t, bare, t / bare


def main():
    roots = [Path(a) for a in sys.argv[1:]] or [Path("target/criterion")]
    found = list(rows(roots))
    if not found:
        sys.exit(f"no criterion results under {roots[0]}: run `cargo bench -p mpst-session -- --quick` first")
    print("| bench | parameter | typed implementation | typed median | bare median | typed / bare |")
    print("|---|---|---|---|---|---|")
    for group, param, name, t, bare, ratio in found:
        label = f"{PARAMETER[group]} = {param}" if param != "-" else "-"
        print(f"| {group} | {label} | {name} | {fmt(t)} | {fmt(bare)} | {ratio:.3f} |")


if __name__ == "__main__":
    main()

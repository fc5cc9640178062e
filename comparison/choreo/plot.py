#!/usr/bin/env python3
"""Draws `plots/choreographies.svg` from the numbers of REPORT.md's choreography section:
instructions per run in memory (callgrind, `python3 callgrind.py --choreo`) and ping-pong
round trips over loopback (`target/release/loopback`). Run from `comparison/` after pasting
new numbers into MEMORY and LOOPBACK below."""

MEMORY = {  # instructions per run, in memory (session 14: recv, ops and sent merged)
    "ping-pong": {"ChoRus 0.5": 4636, "ours, out of order": 8054, "ours, in order": 7731},
    "concurrent send": {"ChoRus 0.5": 11809, "ours, out of order": 20130, "ours, in order": 21563},
    "pipeline + choice": {"ChoRus 0.5": 7833, "ours, out of order": 16574, "ours, in order": 16811},
}
LOOPBACK = [  # ping-pong round trip over loopback, µs (median of 5)
    ("ChoRus 0.5, HTTP", 85.1),  # TCP: plaintext; mTLS: TCP with mutual TLS
    ("ours, out of order, TCP", 27.0),
    ("ours, in order, TCP", 11.4),
    ("ours, out of order, mTLS", 11.1),
    ("ours, in order, mTLS", 19.9),
    ("ours, out of order, QUIC", 55.8),
    ("ours, in order, QUIC", 27.0),
]
COLOURS = {"ChoRus 0.5": "#888888", "ours, out of order": "#1f77b4", "ours, in order": "#ff7f0e"}


def bars(x0, y0, width, height, title, groups, unit, colour_of):
    """A bar chart at (x0, y0): groups = [(label, [(name, value)])]."""
    top = max(v for _, items in groups for _, v in items) * 1.15
    out = [f'<text x="{x0 + width / 2}" y="{y0 - 10}" text-anchor="middle" font-weight="bold">{title}</text>',
           f'<line x1="{x0}" y1="{y0 + height}" x2="{x0 + width}" y2="{y0 + height}" stroke="black"/>',
           f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 + height}" stroke="black"/>']
    for i in range(5):
        value = top * i / 4
        y = y0 + height - height * i / 4
        out.append(f'<line x1="{x0 - 4}" y1="{y}" x2="{x0 + width}" y2="{y}" stroke="#dddddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4}" text-anchor="end" font-size="11">{value:,.0f}</text>')
    out.append(f'<text x="{x0 - 55}" y="{y0 + height / 2}" font-size="12" text-anchor="middle" '
               f'transform="rotate(-90 {x0 - 55} {y0 + height / 2})">{unit}</text>')
    slot = width / len(groups)
    for g, (label, items) in enumerate(groups):
        bar = slot * 0.8 / len(items)
        for b, (name, value) in enumerate(items):
            x = x0 + g * slot + slot * 0.1 + b * bar
            h = height * value / top
            out.append(f'<rect x="{x:.1f}" y="{y0 + height - h:.1f}" width="{bar - 2:.1f}" '
                       f'height="{h:.1f}" fill="{colour_of(name)}"><title>{name}: {value:,}</title></rect>')
            out.append(f'<text x="{x + bar / 2 - 1:.1f}" y="{y0 + height - h - 3:.1f}" font-size="9" '
                       f'text-anchor="middle">{value:,}</text>')
        out.append(f'<text x="{x0 + g * slot + slot / 2:.1f}" y="{y0 + height + 16}" font-size="12" '
                   f'text-anchor="middle">{label}</text>')
    return out


def main():
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="420" '
           'font-family="sans-serif" font-size="12">', '<rect width="1000" height="420" fill="white"/>']
    memory = [(label, list(items.items())) for label, items in MEMORY.items()]
    svg += bars(90, 40, 470, 300, "In memory: instructions per run (callgrind)", memory,
                "instructions per run", lambda n: COLOURS[n])
    loop = [(name.split(", ")[-1] if "ChoRus" not in name else "HTTP", [(name, value)])
            for name, value in LOOPBACK]
    colour = lambda n: COLOURS["ChoRus 0.5"] if "ChoRus" in n else (
        COLOURS["ours, out of order"] if "out of order" in n else COLOURS["ours, in order"])
    svg += bars(660, 40, 320, 300, "Loopback: ping-pong round trip", loop, "µs (median of 5)", colour)
    for i, (name, c) in enumerate(COLOURS.items()):
        svg.append(f'<rect x="{200 + i * 200}" y="385" width="12" height="12" fill="{c}"/>')
        svg.append(f'<text x="{217 + i * 200}" y="396">{name}</text>')
    svg.append("</svg>")
    with open("plots/choreographies.svg", "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()

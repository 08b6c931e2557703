#!/usr/bin/env python3
"""Draws docs/perf/instructions.svg from the CSV that benches/instructions.sh writes.

    benches/instructions.sh 200 --csv docs/perf/instructions.csv
    python3 benches/chart.py docs/perf/instructions.csv docs/perf/instructions.svg "caption"

One row per message: each implementation's instructions per message as a share of the
best baseline's (100 %), with the target (the CSV's `target` column: one third of the
best baseline measured in the same run) marked. The implementations are the CSV's
columns between `bytes` and `target`, jsonrpc-slice first (so a new baseline needs no
change here; one without a colour below gets a grey). Plain SVG written by hand: no
dependencies.
"""

import csv
import sys
from html import escape

COLORS = {
    "jsonrpc-slice": "#1b7f3b",
    "serde_json": "#7a7a7a",
    "sonic-rs": "#a9a9a9",
    "jsonrpsee-types": "#d0d0d0",
    "simd-json": "#4a6fa5",
}


def main(src, dst, caption):
    reader = csv.DictReader(open(src))
    rows = list(reader)
    header = reader.fieldnames
    IMPLS = header[header.index("bytes") + 1 : header.index("target")]
    assert IMPLS[0] == "jsonrpc-slice", IMPLS
    BASELINES = IMPLS[1:]
    color = lambda imp: COLORS.get(imp, "#bbbbbb")
    bar_h, gap, label_w, chart_w, scale_max = 9, 10, 190, 560, 2.0
    group_h = bar_h * len(IMPLS) + gap
    top, legend_h = 46, 26
    height = top + group_h * len(rows) + legend_h + 30
    width = label_w + chart_w + 180
    x_of = lambda share: label_w + chart_w * min(share, scale_max) / scale_max
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="18" font-size="13" font-weight="bold">Instructions per message, '
        f"as a share of the best baseline (callgrind; shorter is better)</text>",
        f'<text x="10" y="34" fill="#555">{escape(caption)}</text>',
    ]
    # Grid: 0, 33 % (the target), 50 %, 100 % (best baseline), 150 %, 200 %.
    for share, label in [(0, "0"), (0.5, "50 %"), (1, "100 %"), (1.5, "150 %"), (2, "200 %+")]:
        x = x_of(share)
        out.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + group_h * len(rows)}" '
            f'stroke="#e3e3e3"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{top + group_h * len(rows) + 12}" text-anchor="middle" '
            f'fill="#555">{label}</text>'
        )
    for g, row in enumerate(rows):
        y0 = top + g * group_h
        counts = {imp: float(row[imp]) for imp in IMPLS}
        best = min(counts[b] for b in BASELINES)
        target = float(row["target"])
        name = row["message"]
        out.append(
            f'<text x="{label_w - 8}" y="{y0 + bar_h * 2.4:.1f}" text-anchor="end">'
            f"{escape(name)} ({int(row['bytes']):,} B)</text>"
        )
        for k, imp in enumerate(IMPLS):
            share = counts[imp] / best
            y = y0 + k * bar_h
            out.append(
                f'<rect x="{label_w}" y="{y}" width="{x_of(share) - label_w:.1f}" '
                f'height="{bar_h - 1}" fill="{color(imp)}"/>'
            )
            text = f"{counts[imp]:,.0f}"
            if imp == "jsonrpc-slice":
                r = best / counts[imp]
                text += f"  ({r:.1f}× below best)" if r >= 1.1 else f"  ({1 / r:.2f}× the best)"
            out.append(
                f'<text x="{x_of(share) + 4:.1f}" y="{y + bar_h - 1.5}" font-size="9" '
                f'fill="#333">{text}</text>'
            )
        # The target: one third of the best baseline, on this row's scale.
        tx = x_of(target / best)
        out.append(
            f'<line x1="{tx:.1f}" y1="{y0 - 2}" x2="{tx:.1f}" y2="{y0 + bar_h * len(IMPLS) + 1}" '
            f'stroke="#c0392b" stroke-width="2" stroke-dasharray="3,2"/>'
        )
    ly = top + group_h * len(rows) + 24
    x = 10
    for imp in IMPLS:
        out.append(f'<rect x="{x}" y="{ly}" width="12" height="10" fill="{color(imp)}"/>')
        out.append(f'<text x="{x + 16}" y="{ly + 9}">{imp}</text>')
        x += 8 * len(imp) + 40
    out.append(
        f'<line x1="{x}" y1="{ly}" x2="{x}" y2="{ly + 10}" stroke="#c0392b" stroke-width="2" '
        f'stroke-dasharray="3,2"/>'
    )
    out.append(f'<text x="{x + 6}" y="{ly + 9}">target (⅓ of the best baseline)</text>')
    out.append("</svg>")
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")

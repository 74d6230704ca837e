#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws a Chrome Trace Event Format file (tsc_trace_write_json) as a
timeline: one band per thread, nested events as sub-rows by depth, one
labelled box per "X" event. Usage: plot_trace.py trace.json out.png"""
import decimal
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def load(path):
    # Exact decimals: a double holds realtime microseconds (~1.8e15) only to
    # 0.25 us, coarser than the ns the file gives. ts and dur become int ns.
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    names, threads = {}, {}
    for e in doc["traceEvents"]:
        key = (e["pid"], e["tid"])
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[key] = e["args"]["name"]
        elif e["ph"] == "X":
            e["ts"] = int(decimal.Decimal(e["ts"]) * 1000)
            e["dur"] = int(decimal.Decimal(e["dur"]) * 1000)
            threads.setdefault(key, []).append(e)
    return doc, names, threads


def depths(events):
    """Depth of each event (they come in order of start): the number of
    enclosing events still open at its start."""
    stack, out = [], []
    for e in events:
        while stack and stack[-1] <= e["ts"]:
            stack.pop()
        out.append(len(stack))
        stack.append(e["ts"] + e["dur"])
    return out


def main(src, dst):
    doc, names, threads = load(src)
    keys = sorted(threads)
    t0 = min(e["ts"] for k in keys for e in threads[k])
    colors = plt.get_cmap("tab10")
    palette = {}
    rows = []  # (key, depths, row offset, band height)
    y = 0
    for k in keys:
        d = depths(threads[k])
        rows.append((k, d, y))
        y += max(d) + 2
    fig, ax = plt.subplots(figsize=(13, 1.2 + 0.42 * y))
    end = 0.0
    for k, d, y0 in rows:
        for e, depth in zip(threads[k], d):
            x = (e["ts"] - t0) / 1e6  # ms
            w = e["dur"] / 1e6
            end = max(end, x + w)
            c = palette.setdefault(e["name"], colors(len(palette) % 10))
            yy = y0 + depth
            ax.add_patch(Rectangle((x, yy), w, 0.9, facecolor=c, edgecolor="black", lw=0.4))
            ax.text(x + w / 2, yy + 0.45, e["name"], ha="center", va="center", fontsize=6,
                    clip_on=True)
    ax.set_xlim(0, end * 1.01)
    ax.set_ylim(y - 1, -0.2)
    ax.set_yticks([y0 + 0.45 for _, _, y0 in rows])
    ax.set_yticklabels([names.get(k, "tid %d" % k[1]) for k, _, _ in rows])
    ax.set_xlabel("ms since the first event (CLOCK_REALTIME-based timestamps)")
    other = doc.get("otherData", {})
    ax.set_title("%s: %d events, %s dropped, nesting depth as sub-rows"
                 % (src.split("/")[-1], sum(len(v) for v in threads.values()),
                    other.get("dropped", 0)), fontsize=10)
    ax.grid(axis="x", lw=0.3)
    fig.tight_layout()
    fig.savefig(dst, dpi=130)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trace.json",
         sys.argv[2] if len(sys.argv) > 2 else "trace.png")

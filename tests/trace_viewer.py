#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Opens the traces tsc_trace_write_json writes in a real trace viewer and
asserts from the viewer's own model that they show what the files say.

The viewer is Catapult's (the engine of chrome://tracing), as Debian's
golang-1.19-src ships it for `go tool trace`; the browser is Debian's
chromium-headless-shell. A page served from 127.0.0.1 loads the viewer,
imports each group of files into a tr.Model (several files of one group
together, as importTraces takes them), and writes what the model holds
into the DOM as JSON; Python reads it back with --dump-dom.

Asserted per group, times compared in ns (the viewer's ms doubles against
the file's integers, 1 ns allowed): every written event present with its
name, every thread with its name and in the file's order, every child
inside the parent the file's nesting gives it, every offset from the
first event and every duration as written; for two processes written to
two files and opened together, each block of one drawn after the block of
the other that preceded it. Exits 77 (skipped) where the browser or the
viewer is missing.

Usage: trace_viewer.py --gen TRACE_VIEWER_GEN --example EXAMPLE_TRACE
                       [--draw EXAMPLE ARGS OUT.png]...
       trace_viewer.py --screenshot OUT.png --example EXAMPLE_TRACE
(the example: examples/trace.c, or examples/pipeline.c for its zones'
trace, built; either writes its trace to the path it is given)
"""
import argparse
import decimal
import functools
import http.server
import json
import os
import re
import shutil
import struct
import signal
import subprocess
import sys
import tempfile
import threading

# Where Debian puts it; TSC_TRACE_VIEWER_DIR names another copy.
VIEWER_DIR = os.environ.get("TSC_TRACE_VIEWER_DIR", "/usr/share/go-1.19/src/cmd/trace/static")
VIEWER_FILES = ("trace_viewer_full.html", "webcomponents.min.js")
BROWSER = "chromium-headless-shell"
BROWSER_SECONDS = 60
TOLERANCE_NS = 1.0
SKIP = 77

PAGE_HEAD = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<script src="webcomponents.min.js"></script>
<link rel="import" href="trace_viewer_full.html">
<style>html, body { margin: 0; width: 100%; height: 100%; overflow: hidden; }
#view { width: 100%; height: 100%; }
tr-ui-b-mouse-mode-selector { display: none !important; }</style>
</head><body>
<script>
'use strict';
const groups = GROUPS;
"""

# Each group into a model of its own; the model as plain data.
PAGE_MODEL = """
function where(slice) {
  if (!slice) return null;
  const t = slice.parentContainer;
  return [t.parent.pid, t.tid, t.sliceGroup.slices.indexOf(slice)];
}

function describe(model) {
  const threads = model.getAllThreads().slice().sort(tr.model.Thread.compare);
  const counters = [];
  for (const p of model.getAllProcesses())
    for (const c of Object.values(p.counters))
      counters.push({pid: p.pid, name: c.name, series: c.series.map(s => ({
        name: s.name, samples: s.samples.map(x => [x.timestamp, x.value])}))});
  return {
    flows: model.flowEvents.map(f => ({title: f.title, start: f.start, duration: f.duration,
                                       from: where(f.startSlice), to: where(f.endSlice)})),
    counters: counters,
    warnings: model.importWarnings.map(w => (w.showToUser ? 'shown ' : '') + w.type + ': ' + w.message),
    threads: threads.map(t => {
      const slices = t.sliceGroup.slices;
      return {
        pid: t.parent.pid, tid: t.tid, name: t.name === undefined ? null : t.name,
        slices: slices.map(s => ({
          title: s.title, start: s.start, duration: s.duration,
          parent: s.parentSlice ? slices.indexOf(s.parentSlice) : -1,
        })),
      };
    }),
  };
}

function run() {
  const out = [];
  for (const texts of groups) {
    const model = new tr.Model();
    try {
      new tr.importer.Import(model).importTraces(texts);
      out.push(describe(model));
    } catch (e) {
      out.push({error: String(e && e.stack || e)});
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}
document.addEventListener('WebComponentsReady', run);
</script></body></html>
"""

# The timeline view as go tool trace shows it, for a screenshot.
PAGE_VIEW = """
document.addEventListener('WebComponentsReady', function() {
  const model = new tr.Model();
  new tr.importer.Import(model).importTraces(groups[0]);
  const view = document.createElement('tr-ui-timeline-view');
  view.id = 'view';
  const container = document.createElement('track-view-container');
  container.id = 'track_view_container';
  view.track_view_container = container;
  Polymer.dom(view).appendChild(container);
  Polymer.dom(document.body).appendChild(view);
  // Flow arrows drawn, as a user ticks "flow" under "Flow events" (the
  // category of tsc_zones_write_trace's flows; off by default).
  tr.b.Settings.set('tr.ui.TimelineView.selectedFlowEvents.flow', true);
  view.model = model;
  view.viewTitle = TITLE;
  // Hidden, as a user would: the notice that the page runs on a polyfill
  // (its Hide button); and not part of the trace: the empty selection
  // panel below the tracks and (in the style) the floating mouse buttons.
  view.warnPolyfill();
  Polymer.dom(view.root).querySelector('#polyfill-warning').clearMessages();
  view.$.analysis.style.display = 'none';
  view.$.drag_handle.style.display = 'none';
});
</script></body></html>
"""


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def find_viewer(args):
    browser = shutil.which(args.browser)
    if not browser:
        skip(args.browser + " not found (Debian: apt-get install chromium-headless-shell)")
    for f in VIEWER_FILES:
        if not os.path.isfile(os.path.join(args.viewer, f)):
            skip(os.path.join(args.viewer, f) + " not found (Debian: apt-get install golang-1.19-src)")
    return browser


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory):
    """An HTTP server for directory on 127.0.0.1 (the viewer's HTML import is
    fetched by script, which file:// pages may not do). Returns it running."""
    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browse(browser, directory, page, flags):
    """Runs the browser on page (a file in directory, beside links to the
    viewer's files) and returns its stdout; the browser and its children
    are killed after BROWSER_SECONDS."""
    for f in VIEWER_FILES:
        dst = os.path.join(directory, f)
        if not os.path.exists(dst):
            os.symlink(os.path.join(ARGS.viewer, f), dst)
    server = serve(directory)
    url = "http://127.0.0.1:%d/%s" % (server.server_address[1], page)
    cmd = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
           "--user-data-dir=" + os.path.join(directory, "profile"),
           "--virtual-time-budget=30000"] + flags + [url]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BROWSER_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        sys.exit("FAIL: the browser did not finish within %d s: %s" % (BROWSER_SECONDS, " ".join(cmd)))
    finally:
        server.shutdown()
    if proc.returncode != 0:
        sys.exit("FAIL: the browser exited with %d:\n%s" % (proc.returncode, err.decode(errors="replace")))
    return out.decode("utf-8")


def page(directory, name, groups, body, title=""):
    """Writes an HTML page importing groups (lists of JSON texts)."""
    text = json.dumps(groups).replace("</", "<\\/")  # no "</script>" inside the script
    html = PAGE_HEAD.replace("GROUPS", text) + body.replace("TITLE", json.dumps(title))
    with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
        f.write(html)


def load(path, check=None):
    """A trace file, strictly: UTF-8 and JSON, ts and dur as exact ns. Bytes
    that are not UTF-8 fail the check, then are read as U+FFFD."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if check is None:
            raise
        check(False, "%s is not UTF-8: %s" % (os.path.basename(path), e))
        text = data.decode("utf-8", errors="replace")
    doc = json.loads(text, parse_float=decimal.Decimal)
    for e in doc["traceEvents"]:
        if "ts" in e:
            e["ts_ns"] = int(decimal.Decimal(e["ts"]) * 1000)
            e["dur_ns"] = int(decimal.Decimal(e.get("dur", 0)) * 1000)
    return text, doc


class Check:
    def __init__(self):
        self.failures = 0
        self.checks = 0

    def __call__(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures += 1
            if self.failures <= 30:
                print("FAIL: " + what)
        return ok


def file_threads(docs):
    """(pid, tid) -> {name, events} of the files of one group, events in file
    order with the index of their parent by the file's nesting (-1: none)."""
    threads = {}
    for doc in docs:
        for e in doc["traceEvents"]:
            key = (e["pid"], e["tid"])
            t = threads.setdefault(key, {"name": None, "events": []})
            if e["ph"] == "M" and e["name"] == "thread_name":
                t["name"] = e["args"]["name"]
            elif e["ph"] in ("X", "i"):  # (the viewer makes a thread's instant a slice of 0 ns)
                t["events"].append(e)
    for t in threads.values():
        stack = []
        for i, e in enumerate(t["events"]):
            while stack and t["events"][stack[-1]]["ts_ns"] + t["events"][stack[-1]]["dur_ns"] <= e["ts_ns"]:
                stack.pop()
            e["parent"] = stack[-1] if stack else -1
            stack.append(i)
    return threads


def check_group(check, label, docs, model):
    """The viewer's model of one group against its files."""
    if not check("error" not in model, "%s: the import failed: %s" % (label, model.get("error"))):
        return
    # The one warning expected: the viewer knows no "tsc_trace_dropped"
    # metadata and says so in its log, not to the user.
    unknown = [w for w in model["warnings"] if w != "metadata_parse_error: Unrecognized metadata name: tsc_trace_dropped"]
    check(not unknown, "%s: import warnings %s" % (label, unknown))
    want = file_threads(docs)
    xs = [e["ts_ns"] for t in want.values() for e in t["events"]]
    origin = min(xs) if xs else 0  # the viewer shifts the first event to 0
    got = {(t["pid"], t["tid"]): t for t in model["threads"]}
    # A thread without events may be left out (the viewer drops empty ones).
    shown = sorted(k for k in want if want[k]["events"] or k in got)
    check(sorted(got) == shown, "%s: threads %s in the viewer, %s with events in the files"
          % (label, sorted(got), shown))
    # Per process, the viewer's thread order is the file's (tid, = sort index).
    for pid in {k[0] for k in shown}:
        order = [t["tid"] for t in model["threads"] if t["pid"] == pid]
        check(order == [k[1] for k in shown if k[0] == pid],
              "%s: pid %d threads drawn in order %s" % (label, pid, order))
    for key in shown:
        if key not in got:
            continue
        w, g = want[key], got[key]
        where = "%s: pid %d tid %d" % (label, key[0], key[1])
        check(g["name"] == w["name"], "%s: named %r in the viewer, %r in the file" % (where, g["name"], w["name"]))
        if not check(len(g["slices"]) == len(w["events"]), "%s: %d slices in the viewer, %d events in the file"
                     % (where, len(g["slices"]), len(w["events"]))):
            continue
        # Both in order of start, a parent before its children.
        for i, (e, s) in enumerate(zip(w["events"], g["slices"])):
            at = "%s: event %d %r" % (where, i, e["name"])
            check(s["title"] == e["name"], "%s drawn as %r" % (at, s["title"]))
            start = s["start"] * 1e6
            check(abs(start - (e["ts_ns"] - origin)) <= TOLERANCE_NS,
                  "%s at %.3f ns from the first event in the viewer, %d ns in the file"
                  % (at, start, e["ts_ns"] - origin))
            check(abs(s["duration"] * 1e6 - e["dur_ns"]) <= TOLERANCE_NS,
                  "%s lasts %.3f ns in the viewer, %d ns in the file" % (at, s["duration"] * 1e6, e["dur_ns"]))
            check(s["parent"] == e["parent"], "%s inside slice %d in the viewer, event %d in the file"
                  % (at, s["parent"], e["parent"]))
            if s["parent"] >= 0:
                p = g["slices"][s["parent"]]
                check(s["start"] * 1e6 >= p["start"] * 1e6 - TOLERANCE_NS and
                      (s["start"] + s["duration"]) * 1e6 <= (p["start"] + p["duration"]) * 1e6 + TOLERANCE_NS,
                      "%s [%.3f, %.3f] ns drawn outside its parent [%.3f, %.3f] ns"
                      % (at, s["start"] * 1e6, (s["start"] + s["duration"]) * 1e6,
                         p["start"] * 1e6, (p["start"] + p["duration"]) * 1e6))
                if e["parent"] >= 0:
                    into_viewer = (s["start"] - p["start"]) * 1e6
                    into_file = e["ts_ns"] - w["events"][e["parent"]]["ts_ns"]
                    check(abs(into_viewer - into_file) <= TOLERANCE_NS,
                          "%s starts %.3f ns into its parent in the viewer, %d ns in the file"
                          % (at, into_viewer, into_file))


def inner_slice(events, ts):
    """The index of the innermost complete event of a thread holding ts."""
    best = None
    for i, e in enumerate(events):
        if e["ph"] == "X" and e["ts_ns"] <= ts <= e["ts_ns"] + e["dur_ns"]:
            best = i
    return best


def check_flows(check, label, docs, model):
    """Every flow written ("s" then "f" of one name and id) drawn as an arrow
    from the slice holding its start to the slice holding its end ("bp":
    "e") or to the thread's next slice; counters' samples as written."""
    if "error" in model:
        return
    threads = file_threads(docs)
    events = [e for doc in docs for e in doc["traceEvents"]]
    origin = min(e["ts_ns"] for t in threads.values() for e in t["events"])
    starts = {(e["name"], e["id"]): e for e in events if e["ph"] == "s"}
    want = []
    for f in (e for e in events if e["ph"] == "f"):
        s = starts[(f["name"], f["id"])]
        src = (s["pid"], s["tid"])
        dst = (f["pid"], f["tid"])
        a = inner_slice(threads[src]["events"], s["ts_ns"])
        if f.get("bp") == "e":
            b = inner_slice(threads[dst]["events"], f["ts_ns"])
        else:
            b = next(i for i, e in enumerate(threads[dst]["events"]) if e["ph"] == "X" and e["ts_ns"] >= f["ts_ns"])
        check(a is not None and b is not None, "%s: flow %s %s has slices at both ends in the file" % (label, f["name"], f["id"]))
        want.append((f["name"], list(src) + [a], list(dst) + [b], s["ts_ns"] - origin, f["ts_ns"] - s["ts_ns"]))
    got = model["flows"]
    check(len(got) == len(want), "%s: %d flow arrows in the viewer, %d flows in the file" % (label, len(got), len(want)))
    drawn = {(g["title"], tuple(g["from"] or ()), tuple(g["to"] or ())): g for g in got}
    for name, a, b, start, dur in want:
        g = drawn.get((name, tuple(a), tuple(b)))
        if not check(g is not None, "%s: no arrow %s from slice %s to slice %s" % (label, name, a, b)):
            continue
        check(abs(g["start"] * 1e6 - start) <= TOLERANCE_NS and abs(g["duration"] * 1e6 - dur) <= TOLERANCE_NS,
              "%s: arrow %s from %s at %.3f ns lasting %.3f ns in the viewer, %d and %d ns in the file"
              % (label, name, a, g["start"] * 1e6, g["duration"] * 1e6, start, dur))
    samples = {}
    for e in events:
        if e["ph"] == "C":
            samples.setdefault((e["pid"], e["name"]), []).append((e["ts_ns"] - origin, e["args"]["value"]))
    counters = {(c["pid"], c["name"]): c for c in model["counters"]}
    check(sorted(counters) == sorted(samples), "%s: counters %s in the viewer, %s in the file"
          % (label, sorted(counters), sorted(samples)))
    for key, want_s in samples.items():
        c = counters.get(key)
        if c is None:
            continue
        got_s = c["series"][0]["samples"] if len(c["series"]) == 1 else []
        check(len(got_s) == len(want_s), "%s: counter %s: %d samples in the viewer, %d in the file"
              % (label, key[1], len(got_s), len(want_s)))
        for (ts, v), (gts, gv) in zip(want_s, got_s):
            check(abs(gts * 1e6 - ts) <= TOLERANCE_NS and gv == v, "%s: counter %s sample at %.3f ns = %r in the viewer, %d ns = %r in the file"
                  % (label, key[1], gts * 1e6, gv, ts, v))
    return len(want), sum(len(v) for v in samples.values())


def check_turns(check, model):
    """Two processes taking turns: each block drawn after the one before it
    in the exchange, whichever process drew it."""
    if "error" in model:
        return
    blocks = [s for t in model["threads"] for s in t["slices"]]
    a = [s for s in blocks if s["title"] == "A"]
    b = [s for s in blocks if s["title"] == "B"]
    check(len(a) == len(b) and a, "turns: %d blocks of A, %d of B" % (len(a), len(b)))
    turns = [s for pair in zip(a, b) for s in pair]
    for i in range(1, len(turns)):
        prev, cur = turns[i - 1], turns[i]
        check(cur["start"] >= prev["start"] + prev["duration"],
              "turns: %s #%d starts at %.3f us, before %s #%d ended at %.3f us"
              % (cur["title"], i // 2, cur["start"] * 1e3, prev["title"], (i - 1) // 2,
                 (prev["start"] + prev["duration"]) * 1e3))


def model_of(out):
    m = re.search(r'<pre id="result">(.*?)</pre>', out, re.S)
    if not m:
        sys.exit("FAIL: the page wrote no result (the viewer did not load?); the DOM:\n" + out[-2000:])
    return json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited with %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout.decode(errors="replace")))


def test(browser, tmp):
    run([ARGS.gen, tmp])
    run([ARGS.example, os.path.join(tmp, "trace.json")])
    groups = [("tiny blocks", ["tiny.json"]), ("escapes, invalid UTF-8, dropped, idle", ["odd.json"]),
              ("no traces", ["empty.json"]), ("two processes", ["proc_a.json", "proc_b.json"]),
              ("examples/trace.c", ["trace.json"]),
              ("zones traced: flows, instants, counters", ["zones.json"])]
    check = Check()
    files = {f: load(os.path.join(tmp, f), check) for _, fs in groups for f in fs}
    page(tmp, "test.html", [[files[f][0] for f in fs] for _, fs in groups], PAGE_MODEL)
    models = model_of(browse(browser, tmp, "test.html", ["--dump-dom"]))
    check(len(models) == len(groups), "%d models for %d groups" % (len(models), len(groups)))
    for (label, fs), model in zip(groups, models):
        check_group(check, label, [files[f][1] for f in fs], model)
    check_turns(check, models[3])
    nflows, nsamples = check_flows(check, groups[5][0], [files["zones.json"][1]], models[5])
    instants = sum(1 for t in models[5].get("threads", []) for s in t["slices"] if s["duration"] == 0)
    check(nflows >= 60 and nsamples >= 60 and instants >= 7,
          "zones.json: %d flows, %d counter samples, %d instants (60, 60, 7 written)" % (nflows, nsamples, instants))
    odd = [s["title"] for t in models[1].get("threads", []) for s in t["slices"]]
    check(any("\ufffd" in s for s in odd), "no U+FFFD in the names the viewer shows: %r" % odd)
    events = sum(len(t["slices"]) for m in models for t in m.get("threads", []))
    print("%d checks on %d groups (%d events, %d flow arrows, %d counter samples): %d failed"
          % (check.checks, len(groups), events, nflows, nsamples, check.failures))
    return 1 if check.failures else 0


def screenshot(browser, tmp, out, size, example, example_args):
    run([example, os.path.join(tmp, "trace.json")] + example_args.split())
    text, _ = load(os.path.join(tmp, "trace.json"))
    page(tmp, "view.html", [[text]], PAGE_VIEW, "examples/%s.c" % os.path.basename(example))
    if os.path.exists(out):
        os.remove(out)
    browse(browser, tmp, "view.html", ["--screenshot=" + os.path.abspath(out), "--window-size=" + size,
                                       "--hide-scrollbars"])
    # A PNG of the window's size, or the drawing failed.
    with open(out, "rb") as f:
        head = f.read(24)
    want = tuple(int(v) for v in size.split(","))
    got = struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None
    if got != want:
        print("FAIL: %s is not a %dx%d PNG (%s)" % (out, want[0], want[1], got))
        return 1
    print("wrote " + out)
    return 0


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", help="tests/trace_viewer_gen, built")
    ap.add_argument("--example", required=True, help="examples/trace.c, built")
    ap.add_argument("--screenshot", metavar="PNG", help="draw the example's trace instead of testing")
    ap.add_argument("--window-size", default="1200,236")
    ap.add_argument("--example-args", default="", help="more arguments for the example (--screenshot)")
    ap.add_argument("--draw", nargs=3, action="append", default=[], metavar=("EXAMPLE", "ARGS", "PNG"),
                    help="after the test, draw EXAMPLE's trace (run with ARGS, - for none) into PNG")
    ap.add_argument("--viewer", default=VIEWER_DIR, help="directory of " + " and ".join(VIEWER_FILES))
    ap.add_argument("--browser", default=BROWSER)
    ap.add_argument("--keep", action="store_true", help="keep the page and traces (printed)")
    ARGS = ap.parse_args()
    browser = find_viewer(ARGS)
    tmp = tempfile.mkdtemp(prefix="trace_viewer.")
    try:
        if ARGS.screenshot:
            return screenshot(browser, tmp, ARGS.screenshot, ARGS.window_size, ARGS.example,
                              ARGS.example_args)
        if not ARGS.gen:
            ap.error("--gen is needed to test")
        rc = test(browser, tmp)
        # The images of docs/profiling.md, drawn from the examples as built
        # (docs/testing.md says how they are copied there).
        for example, args, out in ARGS.draw:
            rc |= screenshot(browser, tmp, out, ARGS.window_size, example, "" if args == "-" else args)
        return rc
    finally:
        if ARGS.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

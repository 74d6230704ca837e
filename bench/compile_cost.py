#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What including the header costs a file of a program, per compiler.

Files, compiled with -c, alternating, N rounds (default 8), the median
wall time of each; the text added is `size`'s text column against the
plain file's:
  plain          <stdio.h>, <stdint.h>, <string.h>, <errno.h> and a function
  region/one     plain + tsc_timer.h, timing one region (tsc_ticks_before/
                 after, tsc_sub_overhead, tsc_ticks_to_ns): no macro
  region/many    the same with TSC_TIMER_EXTERN (the many-files mode)
  whole/one      bench/compile_whole.c (every public function and macro
                 once, little code of its own): no macro
  whole/many     the same with TSC_TIMER_EXTERN
  impl           the many-files mode's one implementation file (paid once)
and the peers that Debian packages: Highway's compiled timer
(hwy/nanobenchmark.h, hwy::platform::Now; libhwy-dev; C++ only: Debian
12's Highway 1.0.3 has no hwy/timer.h), an stb header as its many files
include it (stb_image.h without its implementation; libstb-dev) and its
one implementation file (STB_IMAGE_IMPLEMENTATION),
and C++'s <chrono> (steady_clock). Compilers: gcc -O2, clang -O2 (C files)
and g++ -O2 (all as C++).
Usage: compile_cost.py [--rounds N] [--markdown]"""
import os, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
inc = os.path.join(root, "include")
rounds = 8
if "--rounds" in sys.argv:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1])

HEAD = "#include <stdio.h>\n#include <stdint.h>\n#include <string.h>\n#include <errno.h>\n"
WORK = "extern volatile unsigned sink;\n"
PLAIN = HEAD + WORK + "uint64_t f(void)\n{\n    unsigned i;\n    for (i = 0; i < 100; i++) sink += i;\n    return sink;\n}\n"
REGION = HEAD + '#include "tsc_timer.h"\n' + WORK + """uint64_t f(void)
{
    unsigned i;
    uint64_t t0 = tsc_ticks_before(), t;
    for (i = 0; i < 100; i++) sink += i;
    t = tsc_sub_overhead(tsc_ticks_after() - t0);
    return tsc_ticks_to_ns(t);
}
"""
HWY = HEAD + "#include <hwy/nanobenchmark.h>\n" + WORK + """uint64_t f(void)
{
    unsigned i;
    double t0 = hwy::platform::Now();
    for (i = 0; i < 100; i++) sink += i;
    return (uint64_t)((hwy::platform::Now() - t0) * 1e9);
}
"""
STB = HEAD + "#include <stb/stb_image.h>\n" + WORK + """uint64_t f(void)
{
    unsigned i;
    int w = 0, h = 0, n = 0;
    for (i = 0; i < 100; i++) sink += i;
    return stbi_info("x.png", &w, &h, &n) ? (uint64_t)w : sink;
}
"""
CHRONO = HEAD + "#include <chrono>\n" + WORK + """uint64_t f(void)
{
    unsigned i;
    auto t0 = std::chrono::steady_clock::now();
    for (i = 0; i < 100; i++) sink += i;
    return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - t0).count();
}
"""
IMPL = "#define TSC_TIMER_IMPLEMENTATION\n#include \"tsc_timer.h\"\n"
STB_IMPL = "#define STB_IMAGE_IMPLEMENTATION\n#include <stb/stb_image.h>\n"

def files(tmp):
    w = lambda name, text: (open(os.path.join(tmp, name), "w").write(text), os.path.join(tmp, name))[1]
    whole = os.path.join(root, "bench", "compile_whole.c")
    return {
        "plain": (w("plain.c", PLAIN), []),
        "region/one": (w("region.c", REGION), []),
        "region/many": (os.path.join(tmp, "region.c"), ["-DTSC_TIMER_EXTERN"]),
        "whole/one": (whole, []),
        "whole/many": (whole, ["-DTSC_TIMER_EXTERN"]),
        "impl": (w("impl.c", IMPL), ["-DTSC_TIMER_EXTERN"]),
        "stb_image.h": (w("stb.c", STB), []),
        "stb_image.h impl": (w("stb_impl.c", STB_IMPL), []),
        "hwy nanobenchmark.h": (w("hwy.cc", HWY), ["cxx"]),
        "<chrono>": (w("chrono.cc", CHRONO), ["cxx"]),
    }

def obj_name(tmp, name):
    return os.path.join(tmp, "".join(c if c.isalnum() else "_" for c in name) + ".o")

def compile_once(cc, lang, src, flags, out):
    cmd = [cc] + (["-x", lang] if lang else []) + ["-O2", "-I" + inc, "-c", src, "-o", out]
    cmd += [f for f in flags if f != "cxx"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t = time.perf_counter() - t0
    if r.returncode:
        return None
    return t

def text_size(obj):
    out = subprocess.run(["size", obj], stdout=subprocess.PIPE, text=True).stdout.split("\n")[1]
    return int(out.split()[0])

def main():
    compilers = [("gcc -O2", "gcc", "c"), ("clang -O2", "clang", "c"), ("g++ -O2", "g++", "c++")]
    with tempfile.TemporaryDirectory() as tmp:
        fs = files(tmp)
        res = {}
        for label, cc, lang in compilers:
            names = [n for n, (src, fl) in fs.items() if lang == "c++" or "cxx" not in fl]
            times = {n: [] for n in names}
            for r in range(rounds):
                for n in names:
                    src, fl = fs[n]
                    t = compile_once(cc, lang, src, fl, obj_name(tmp, n))
                    if t is not None:
                        times[n].append(t)
            for n in names:
                if times[n]:
                    res[(label, n)] = (statistics.median(times[n]) * 1e3,
                                       text_size(obj_name(tmp, n)))
        print("compile cost per file, median of %d alternating rounds (ms), text bytes "
              "(size), added against the plain file" % rounds)
        print("| compiler | file | ms | added ms | text | added text |")
        print("|---|---|---:|---:|---:|---:|")
        for label, cc, lang in compilers:
            base = res.get((label, "plain"))
            for n in fs:
                if (label, n) not in res:
                    continue
                ms, tx = res[(label, n)]
                print("| %s | %s | %.0f | %+.0f | %d | %+d |" % (label, n, ms, ms - base[0], tx, tx - base[1]))
        print()
        print("goals, this run (added against the plain file)")
        print("| compiler | goal | figure | |")
        print("|---|---|---|---|")
        for label, cc, lang in compilers:
            base = res.get((label, "plain"))
            for n, ms_goal, tx_goal in (("region/many", 25, 1024), ("whole/many", 60, None)):
                if not base or (label, n) not in res:
                    continue
                ms, tx = res[(label, n)]
                ok = ms - base[0] <= ms_goal and (tx_goal is None or tx - base[1] <= tx_goal)
                goal = "%s: +%d ms%s" % (n, ms_goal, "" if tx_goal is None else ", +%d B" % tx_goal)
                print("| %s | %s | %+.0f ms, %+d B | %s |" % (label, goal, ms - base[0], tx - base[1],
                                                               "held" if ok else "**missed**"))

main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every C and C++ block of README.md and docs/*.md compiles, as written.

Blocks are fenced ```c or ```cpp. An HTML comment on the line just before
a block tells how it is used (the reader does not see it):

  (none)                  a translation unit: compiled (-c)
  <!-- doc: run -->       a program: compiled, linked, run; its output must
                          have the shape of the ```text block that follows
                          (the same lines, the same words and units, any
                          numbers)
  <!-- doc: body; CODE --> a function's body: compiled inside main(), after
                          the includes and CODE (what the snippet takes as
                          given: the reader's own functions and variables)

Also: every version these files show (tsc-info X.Y.Z, tsc_timer X.Y.Z, the
header's top line) is the header's own; every relative link of these files names a file that exists (and,
with #anchor, a heading of it), and every number in the table after
<!-- doc: figures FILE --> appears in FILE, the one source of figures.

Flags: those of tests/vendor/strict_flags.sh (gcc -std=c99 and g++
-std=c++17, -O2), less -Wdeclaration-after-statement for C (the snippets
are C99). Usage: doc_check.py SOURCE_DIR WORK_DIR"""
import os
import re
import subprocess
import sys

C_FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion",
           "-Wstrict-prototypes", "-Wmissing-prototypes", "-Werror"]
CXX_FLAGS = ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion",
             "-Wold-style-cast", "-Werror"]
INCLUDES = "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include \"tsc_timer.h\"\n"


def blocks(path):
    """(line, lang, directive, code, output) for each C/C++ block of path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(c|cpp|c\+\+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, "c" if m.group(1) == "c" else "cpp"
        prev, b = "", i - 1  # the comment just before, over one line or more
        if b >= 0 and lines[b].rstrip().endswith("-->"):
            while b > 0 and not lines[b].lstrip().startswith("<!--"):
                b -= 1
            prev = "\n".join(lines[b:i]).strip()
        d = re.match(r"^<!--\s*doc:\s*(.*?)\s*-->$", prev, re.S)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        code = "\n".join(lines[i + 1:j]) + "\n"
        output = None  # the first ```text block before the next C/C++ one
        k = j + 1
        while k < len(lines):
            if re.match(r"^```(c|cpp|c\+\+)\s*$", lines[k]):
                break
            if lines[k].strip() == "```text":
                e = k + 1
                while e < len(lines) and not lines[e].startswith("```"):
                    e += 1
                output = lines[k + 1:e]
                break
            if lines[k].startswith("```"):  # another block: past its end
                k += 1
                while k < len(lines) and not lines[k].startswith("```"):
                    k += 1
            k += 1
        out.append((start + 1, lang, d.group(1) if d else "", code, output))
        i = j + 1
    return out


def shape(line):
    """A line's words and units, numbers and bars left out."""
    line = re.sub(r"[-+]?\d[\d,.]*", "#", line)
    line = re.sub(r"#+", "#", line)
    return line.split()


def anchor(heading):
    """The anchor a heading gets: lower case, punctuation dropped, spaces
    to hyphens."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")


def check_links(path, src):
    """Relative links to files that do not exist, or to missing headings."""
    bad = []
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        f, _, a = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(path), f)) if f else path
        if not os.path.exists(full):
            bad.append(target)
        elif a and full.endswith(".md"):
            heads = [anchor(h) for h in re.findall(r"^#+ (.*)$", open(full, encoding="utf-8").read(), re.M)]
            if a not in heads:
                bad.append(target)
    return bad


def check_figures(path, src):
    """Numbers of a figures table that its source file does not hold."""
    bad = []
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^<!--\s*doc:\s*figures\s+(\S+)\s*-->$", line.strip())
        if not m:
            continue
        source = open(os.path.join(src, m.group(1)), encoding="utf-8").read()
        for row in lines[i + 1:]:
            if not row.startswith("|"):
                break
            for num in re.findall(r"\d+\.\d+", row):
                if num not in source:
                    bad.append("%s (not in %s)" % (num, m.group(1)))
    return bad


def header_version(src):
    h = open(os.path.join(src, "include", "tsc_timer.h"), encoding="utf-8").read()
    return ".".join(re.search(r"#define TSC_TIMER_VERSION_%s (\d+)" % k, h).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


def check_versions(path, version):
    """Versions of the project named in path that are not the header's."""
    text = open(path, encoding="utf-8").read()
    found = re.findall(r"(?:tsc-info|tsc_timer(?:\.h)?(?:\s+VERSION)?|version:?\s*'?)\s*v?(\d+\.\d+\.\d+)",
                       text)
    return sorted(set(v for v in found if v != version))


def main():
    src, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    docs = [os.path.join(src, "README.md")]
    ddir = os.path.join(src, "docs")
    docs += sorted(os.path.join(ddir, f) for f in os.listdir(ddir) if f.endswith(".md"))
    inc = ["-I" + os.path.join(src, "include")]
    n = failed = ran = 0
    version = header_version(src)
    others = [os.path.join(src, f) for f in ("CMakeLists.txt", "meson.build")]
    for path in docs + [f for f in others if os.path.exists(f)]:
        bad = check_versions(path, version)
        if bad:
            print("doc_check: FAIL: %s names version %s, the header is %s"
                  % (os.path.relpath(path, src), ", ".join(bad), version))
            failed += 1
    for path in docs:
        for what, bad in (("dead links", check_links(path, src)), ("figures", check_figures(path, src))):
            if bad:
                print("doc_check: FAIL: %s: %s: %s" % (os.path.relpath(path, src), what, ", ".join(bad)))
                failed += 1
        for line, lang, directive, code, output in blocks(path):
            n += 1
            where = "%s:%d" % (os.path.relpath(path, src), line)
            base = os.path.join(work, "b%d" % n)
            ext, cc, flags = (".c", "gcc", C_FLAGS) if lang == "c" else (".cpp", "g++", CXX_FLAGS)
            run = directive == "run"
            if directive.startswith("body"):
                given = directive[len("body"):].lstrip(";").strip()
                text = INCLUDES + given + "\nint main(void)\n{\n" + code + "    return 0;\n}\n"
                run = False
                link = True
            elif directive in ("", "run"):
                text, link = code, run
            else:
                print("doc_check: FAIL: %s: unknown directive '%s'" % (where, directive))
                failed += 1
                continue
            with open(base + ext, "w", encoding="utf-8") as f:
                f.write(text)
            cmd = [cc] + flags + inc + [base + ext]
            cmd += ["-o", base, "-lm", "-lpthread"] if link else ["-c", "-o", base + ".o"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("doc_check: FAIL: %s does not compile:\n%s" % (where, r.stderr))
                failed += 1
                continue
            if not run:
                continue
            ran += 1
            r = subprocess.run([base], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                print("doc_check: FAIL: %s exited %d:\n%s%s" % (where, r.returncode, r.stdout, r.stderr))
                failed += 1
                continue
            if output is None:
                print("doc_check: FAIL: %s runs, but no ```text block shows its output" % where)
                failed += 1
                continue
            got = r.stdout.rstrip("\n").split("\n")
            if [shape(x) for x in got] != [shape(x) for x in output]:
                print("doc_check: FAIL: %s prints another shape than shown:\n%s\nshown:\n%s"
                      % (where, "\n".join(got), "\n".join(output)))
                failed += 1
    print("doc_check: %d blocks in %d files, %d run and shaped as shown; %d failures"
          % (n, len(docs), ran, failed))
    if failed == 0:
        print("doc_check: passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

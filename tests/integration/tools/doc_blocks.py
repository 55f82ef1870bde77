#!/usr/bin/env python3
"""The documentation's runnable examples, for tests/integration/test_docs.sh.

  doc_blocks.py extract OUTDIR FILE...  writes OUTDIR/session-N.sh, one
                                        shell script per session, and
                                        OUTDIR/sessions.json
  doc_blocks.py check OUTDIR N RC       prints one "ok - ..." or
                                        "not ok - ..." line per check of
                                        session N, whose script exited RC

A code block of a Markdown file (indented by four spaces, or fenced with
```) runs when an HTML comment marks it (GitHub does not show it), with
only blank lines between the two:

  <!-- doc-test -->                     a new session
  <!-- doc-test: SED -->                 the same, the block rewritten by
                                         the sed script SED first
  <!-- doc-test continue[: SED] -->      the block goes on in the session
                                         of the block before it

SED shrinks what would take minutes (`s/--time=60/--time=1/`) and points
the block at the test's servers: {NAME} in it is the value of the
environment variable DOCTEST_NAME ({MYSQL_PORT}, {PGSQL_PORT}, {WORK}).

A session is one bash process running its blocks in order, so a variable
set in one block is there in the next. A block whose lines start with
"$ " is a transcript: those lines (with the lines that follow one ending
in a backslash) are the commands, the others the output the doc shows
for the command before them. Every command must exit 0, unless the next
command is `echo $?`, whose shown output is then the expected exit code;
the shown lines must appear in the command's output in that order. Lines
are compared with runs of blanks made one and every number replaced by N
(the doc's figures are examples); a shown line `...` stands for any
lines, and `...` inside a line for any text. Any other block is a script
run under `set -e`: it must exit 0.
"""
import json
import os
import re
import subprocess
import sys

MARK = re.compile(r'^<!--\s*doc-test(\s+continue)?\s*(?::\s*(.*?))?\s*-->\s*$')


def blocks(path):
    """Yields (line number, marker match, block lines) of the marked blocks."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() == "":
            j += 1
        if j >= len(lines):
            raise SystemExit(f"{path}:{i + 1}: doc-test marker without a code block")
        if lines[j].startswith("```"):
            k = j + 1
            while k < len(lines) and not lines[k].startswith("```"):
                k += 1
            body = lines[j + 1:k]
            end = k + 1
        elif lines[j].startswith("    "):
            k = j
            body = []
            while k < len(lines) and (lines[k].startswith("    ") or lines[k].strip() == ""):
                body.append(lines[k][4:])
                k += 1
            while body and body[-1].strip() == "":
                body.pop()
            end = k
        else:
            raise SystemExit(f"{path}:{i + 1}: doc-test marker not followed by a code block")
        yield j + 1, m, body
        i = end


def placeholders(sed):
    def value(m):
        name = "DOCTEST_" + m.group(1)
        if name not in os.environ:
            raise SystemExit(f"doc-test: {{{m.group(1)}}} used, but {name} is not set")
        return os.environ[name]
    return re.sub(r'\{([A-Z_]+)\}', value, sed)


def rewrite(body, sed):
    if not sed:
        return body
    out = subprocess.run(["sed", "-e", placeholders(sed)], input="\n".join(body) + "\n",
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"doc-test: sed '{sed}': {out.stderr.strip()}")
    return out.stdout.rstrip("\n").split("\n")


def transcript(body):
    """[(command, [shown lines])] of a block whose lines start with "$ "."""
    cmds = []
    i = 0
    while i < len(body):
        line = body[i]
        if line.startswith("$ "):
            cmd = [line[2:]]
            while cmd[-1].endswith("\\") and i + 1 < len(body):
                i += 1
                cmd.append(body[i])
            cmds.append(["\n".join(cmd), []])
        elif cmds:
            cmds[-1][1].append(line)
        i += 1
    return cmds


def extract(outdir, files):
    sessions = []
    for path in files:
        for lineno, m, body in blocks(path):
            where = f"{path}:{lineno}"
            body = rewrite(body, m.group(2))
            if not m.group(1) or not sessions:
                sessions.append({"where": where, "blocks": []})
            if any(l.startswith("$ ") for l in body):
                sessions[-1]["blocks"].append({"where": where, "commands": transcript(body)})
            else:
                sessions[-1]["blocks"].append({"where": where, "script": body})
    for n, s in enumerate(sessions):
        sh = ["#!/usr/bin/env bash", "__rc=0"]
        k = 0
        for b in s["blocks"]:
            sh.append(f"echo '{b['where']}' >> '{outdir}/progress-{n}'")
            if "script" in b:
                sh.append("set -e")
                sh.extend(b["script"])
                sh.append("set +e")
                continue
            for cmd in b["commands"]:
                cmd.append(k)
                # $? of the command before, for a doc's `echo $?`
                sh.append(f"(exit $__rc); {{ {cmd[0]}\n}} > '{outdir}/out-{n}-{k}' 2>&1; "
                          f"__rc=$?; echo $__rc > '{outdir}/rc-{n}-{k}'")
                k += 1
        with open(f"{outdir}/session-{n}.sh", "w") as f:
            f.write("\n".join(sh) + "\n")
    with open(f"{outdir}/sessions.json", "w") as f:
        json.dump(sessions, f)
    for n, s in enumerate(sessions):
        print(n, s["where"])


def norm(line):
    line = re.sub(r'[+-]?\d+(?:[.,]\d+)*', 'N', line.strip())
    return re.sub(r'\s+', ' ', line)


def shown_pattern(line):
    parts = norm(line).split("...")
    return re.compile("^" + ".*".join(re.escape(p) for p in parts) + "$")


def missing(shown, actual):
    """The first shown line not found in order in actual, or None."""
    got = [norm(l) for l in actual]
    pos = 0
    for line in shown:
        if line.strip() in ("", "..."):
            continue
        pat = shown_pattern(line)
        while pos < len(got) and not pat.match(got[pos]):
            pos += 1
        if pos == len(got):
            return line
        pos += 1
    return None


def short(cmd):
    cmd = " ".join(cmd.split())
    return cmd if len(cmd) <= 90 else cmd[:87] + "..."


def check(outdir, n, rc):
    s = json.load(open(f"{outdir}/sessions.json"))[n]
    cmds = [c for b in s["blocks"] if "commands" in b for c in b["commands"]]
    where_of = {}
    for b in s["blocks"]:
        for c in b.get("commands", []):
            where_of[c[2]] = b["where"]
    bad = 0

    def result(ok, name, detail=""):
        nonlocal bad
        if ok:
            print(f"ok - {name}")
        else:
            bad += 1
            print(f"not ok - {name}")
            for l in detail.rstrip("\n").split("\n")[-40:]:
                if detail:
                    print(f"    | {l}")

    progress = []
    if os.path.exists(f"{outdir}/progress-{n}"):
        progress = open(f"{outdir}/progress-{n}").read().split()
    log = ""
    if os.path.exists(f"{outdir}/session-{n}.log"):
        log = open(f"{outdir}/session-{n}.log", errors="replace").read()
    result(rc == 0, f"doc-test session {s['where']}: the examples run to their end (exit 0)",
           f"exit {rc} in the block of {progress[-1] if progress else '?'}\n{log}")
    for i, (cmd, shown, k) in enumerate(cmds):
        name = f"doc-test {where_of[k]}: $ {short(cmd)}"
        if not os.path.exists(f"{outdir}/rc-{n}-{k}"):
            result(False, name + ": ran", "not reached")
            continue
        crc = int(open(f"{outdir}/rc-{n}-{k}").read())
        out = open(f"{outdir}/out-{n}-{k}", errors="replace").read().split("\n")
        if cmd.strip() == "echo $?":
            want = [l.strip() for l in shown if l.strip()]
            result(want == [l.strip() for l in out if l.strip()],
                   f"{name}: the exit code shown ({' '.join(want)})",
                   "got: " + " ".join(out))
            continue
        echoed = i + 1 < len(cmds) and cmds[i + 1][0].strip() == "echo $?"
        if not echoed:
            result(crc == 0, f"{name}: exit 0", f"exit {crc}\n" + "\n".join(out[-40:]))
        if any(l.strip() for l in shown):
            miss = missing(shown, out)
            result(miss is None, f"{name}: the output shown appears",
                   f"not found (in order, numbers as N): {miss}\noutput:\n" + "\n".join(out[:80]))
    return bad


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

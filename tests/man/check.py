#!/usr/bin/env python3
"""check.py BUILD_DIR -- the manual pages (man/, configured into BUILD_DIR/man).

Each page:
  - groff -ww -man -Tutf8 renders it with no warning at all (every warning
    category on), and man-db's `man --warnings -l` too;
  - man-db's lexgrog reads its NAME section (what whatis and apropos show)
    and finds every command the page names;
Each command built (luaprof, luaprof5.N, luaprofjit; luainstr; luaheap):
  - every option its --help shows, the ones it defines and the ones its
    prose mentions (-joff, --trace=recent...), and every subcommand of its
    usage lines, is in its page as rendered;
  - its page says the version --version says.
Under CI=1 a missing groff or man-db is a failure; else the test is
skipped (77) saying what is missing.
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
build = sys.argv[1] if len(sys.argv) > 1 else sys.exit("usage: check.py BUILD_DIR")
man_dir = os.path.join(build, "man")
bin_dir = os.path.join(build, "bin")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def need(tool, package):
    if shutil.which(tool) is None:
        msg = "%s not installed (Debian's %s: scripts/deps.sh)" % (tool, package)
        if os.environ.get("CI"):
            sys.exit("FAIL: " + msg)
        print("man: " + msg + "; skipped")
        sys.exit(SKIP)


need("groff", "groff-base")
need("man", "man-db")
need("lexgrog", "man-db")

# The page of each command: luaprof.1 documents every luaprof.
programs = {"luainstr": "luainstr.1", "luaheap": "luaheap.1"}
for name in sorted(os.listdir(bin_dir)):
    if re.fullmatch(r"luaprof(5\.[1-4]|jit)?", name):
        programs[name] = "luaprof.1"
pages = sorted(f for f in os.listdir(man_dir) if f.endswith(".1"))
if pages != sorted(set(programs.values())):
    fail("pages %s, but the commands built need %s" % (pages, sorted(set(programs.values()))))
if "luaprof" not in programs:
    fail("no luaprof in %s" % bin_dir)


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# The rendered text, with the dashes groff may draw as U+2010/U+2212 as '-'
# (Debian's man.local maps them to '-' already; other setups do not).
def plain(text):
    return text.replace("\u2010", "-").replace("\u2212", "-").replace("\u00ad", "")


rendered = {}
for page in pages:
    before = len(failures)
    path = os.path.join(man_dir, page)
    rc, out, err = run(["groff", "-ww", "-man", "-Tutf8", "-P-cbou", path])
    if rc != 0 or err.strip():
        fail("%s: groff -ww exited %d: %s" % (page, rc, err.strip()))
    rendered[page] = plain(out)
    env = dict(os.environ, MANWIDTH="80")
    env.pop("MAN_KEEP_FORMATTING", None)
    rc, out, err = run(["man", "--warnings", "-l", path], env)
    if rc != 0 or err.strip() or "NAME" not in out:
        fail("%s: man --warnings -l exited %d: %s" % (page, rc, err.strip()))
    rc, out, err = run(["lexgrog", path])
    names = re.findall(r'"(\S+) - ', out)
    want = sorted(n for n, p in programs.items() if p == page)
    missing = [n for n in want if n not in names]
    if rc != 0 or missing:
        fail("%s: lexgrog reads names %s (exit %d), not %s" % (page, names, rc, missing))
    if len(failures) == before:
        print("ok    %s: groff -ww, man --warnings, lexgrog (%s)" % (page, ", ".join(names)))

# An option as a whole token: "-l" is not in "-lm", "--trace" is in
# "--trace[=N]".
def has_token(text, tok):
    return re.search(r"(?<![\w-])" + re.escape(tok) + r"(?![\w-])", text) is not None


def help_items(help_text, prog):
    """The options a --help defines or mentions, and its subcommands."""
    opts, subs = set(), set()
    for line in help_text.splitlines():
        m = re.match(r"\s+(-{1,2}[A-Za-z][\w-]*|--|-)(?=[\s\[=]|$)", line)
        if m:
            opts.add(m.group(1))
        for m in re.finditer(r"(?:^|[\s(,'])(-{1,2}[A-Za-z][\w-]*)", line):
            opts.add(m.group(1))
        m = re.match(r"(?:usage:)?\s+" + re.escape(prog) + r" ([a-z]+)\b", line)
        if m:
            subs.add(m.group(1))
    return opts, subs


for prog, page in sorted(programs.items()):
    before = len(failures)
    exe = os.path.join(bin_dir, prog)
    rc, out, err = run([exe, "--help"])
    if rc != 0 or "usage:" not in out:
        fail("%s --help exited %d: %s" % (prog, rc, err.strip()))
        continue
    opts, subs = help_items(out, prog)
    text = rendered.get(page, "")
    missing = sorted(o for o in opts | subs if not has_token(text, o))
    if missing:
        fail("%s: %s not in %s" % (prog, " ".join(missing), page))
    if len(opts) < 3:
        fail("%s --help: only %s read as options" % (prog, sorted(opts)))
    rc, out, err = run([exe, "--version"])
    version = out.split("\n")[0].split(" ")[-1] if rc == 0 else None
    if not version or "luainstr " + version not in text:
        fail("%s: --version says '%s', %s does not" % (prog, out.split("\n")[0], page))
    if len(failures) == before:
        print("ok    %s: its %d options and %d subcommands are in %s, version %s"
              % (prog, len(opts), len(subs), page, version))

sys.exit(1 if failures else 0)

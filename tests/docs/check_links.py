#!/usr/bin/python3
"""check_links.py -- every relative link and #anchor of the docs resolves.

    check_links.py ROOT [FILE.md ...]   check FILEs (default: README.md,
                                        docs/*.md, bench/README.md,
                                        web/README.md), paths from ROOT
    check_links.py --self-test          check the checker on a tree it makes

A link resolves when its path (taken from the linking file's folder, or
from ROOT for a leading /) is a file or folder inside ROOT that git does
not ignore (a link to a build product would be broken on GitHub), and its
#anchor, in a Markdown file, is one of the ids GitHub gives that file's
headings (or an explicit <a name>/id).  Links to other sites are not
fetched: tests read no network.  Code (fenced, indented, `spans`) is not
Markdown and its brackets are not links.

Prints FILE:LINE: what for each broken link; exit status 0 when all
resolve, 1 when some do not, 2 for usage or unreadable files.
"""

import os
import re
import subprocess
import sys
import tempfile
import unicodedata
import urllib.parse

DEFAULT_FILES = ["README.md", "docs/*.md", "bench/README.md", "web/README.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)>?")
HTML_ID = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)
HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*\b(?:href|src)\s*=\s*\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def github_slug(text):
    """The id GitHub gives a heading: its rendered text in lower case,
    every character that is not a letter, mark, digit, connector
    (underscore), space or hyphen dropped, spaces made hyphens (no
    collapsing: "a -- b" gives "a----b")."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # links, images
    text = re.sub(r"<[^>]+>", "", text)                        # inline html
    text = text.strip().lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat[0] in "LMN" or cat == "Pc" or ch in " -":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def strip_code_spans(line):
    """The line with each `code span` blanked (same length, so columns
    stay), an unclosed backtick run left as it is."""
    out = []
    i = 0
    while i < len(line):
        if line[i] == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            run = line[i:j]
            end = line.find(run, j)
            while end != -1 and end + len(run) < len(line) and line[end + len(run)] == "`":
                end = line.find(run, end + len(run) + 1)
            if end == -1:
                out.append(run)
                i = j
                continue
            out.append(" " * (end + len(run) - i))
            i = end + len(run)
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def markdown_lines(text):
    """(line number, line) for every line that is Markdown, not code: fenced
    blocks and indented code blocks (four spaces after a blank line, outside
    a list) are left out."""
    fence = None
    prev_blank = True
    in_list = False
    in_indented = False
    for n, line in enumerate(text.split("\n"), 1):
        if fence:
            m = FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            prev_blank = False
            continue
        m = FENCE.match(line)
        if m:
            fence = m.group(1)
            in_indented = False
            continue
        blank = not line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if blank:
            prev_blank = True
            continue
        if in_indented and indent >= 4:
            continue
        in_indented = False
        if indent >= 4 and prev_blank and not in_list:
            in_indented = True
            prev_blank = False
            continue
        if indent == 0 or LIST_ITEM.match(line):
            in_list = bool(LIST_ITEM.match(line))
        prev_blank = False
        yield n, line


def anchors_of(text):
    """The ids a Markdown file's headings get on GitHub (duplicates
    numbered -1, -2, ... in order), and explicit <a name|id>."""
    ids = set()
    seen = {}
    previous = None
    for _, line in markdown_lines(text):
        for m in HTML_ID.finditer(line):
            ids.add(m.group(1))
        m = ATX.match(line)
        heading = m.group(2) or "" if m else None
        if heading is None and previous is not None and SETEXT.match(line) \
                and not LIST_ITEM.match(previous) and not ATX.match(previous):
            heading = previous.strip()
        previous = line if line.strip() else None
        if heading is None:
            continue
        slug = github_slug(heading)
        if slug in seen:
            seen[slug] += 1
            slug = "%s-%d" % (slug, seen[slug])
        else:
            seen[slug] = 0
        ids.add(slug)
    return ids


def inline_targets(line):
    """Targets of [text](target), ![alt](target), reference definitions
    and <a href>/<img src> on one line (code spans already blanked)."""
    targets = []
    m = REF_DEF.match(line)
    if m:
        targets.append(m.group(2))
    i = 0
    while True:
        i = line.find("](", i)
        if i == -1:
            break
        j = i + 2
        depth = 1
        while j < len(line) and depth:
            if line[j] == "(":
                depth += 1
            elif line[j] == ")":
                depth -= 1
            j += 1
        inner = line[i + 2:j - 1].strip() if depth == 0 else None
        if inner:
            if inner.startswith("<"):
                inner = inner[1:inner.find(">")] if ">" in inner else inner[1:]
            else:
                inner = inner.split()[0]
            targets.append(inner)
        i = j
    targets.extend(m.group(1) for m in HTML_LINK.finditer(line))
    return targets


class Checker:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.anchor_cache = {}
        self.git = self._has_git()
        self.links = 0

    def _has_git(self):
        try:
            r = subprocess.run(["git", "-C", self.root, "rev-parse", "--show-toplevel"],
                               capture_output=True, text=True)
        except OSError:
            return False
        return r.returncode == 0

    def ignored(self, path):
        if not self.git:
            return False
        r = subprocess.run(["git", "-C", self.root, "check-ignore", "-q", path],
                           capture_output=True)
        return r.returncode == 0

    def anchors(self, path):
        if path not in self.anchor_cache:
            with open(path, encoding="utf-8") as f:
                self.anchor_cache[path] = anchors_of(f.read())
        return self.anchor_cache[path]

    def check_file(self, rel):
        """Broken links of one file, as 'FILE:LINE: what' strings."""
        path = os.path.join(self.root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        problems = []
        for n, line in markdown_lines(text):
            for target in inline_targets(strip_code_spans(line)):
                self.links += 1
                why = self.check_target(path, target)
                if why:
                    problems.append("%s:%d: link '%s': %s" % (rel, n, target, why))
        return problems

    def check_target(self, path, target):
        if SCHEME.match(target):
            return None
        target_path, _, anchor = target.partition("#")
        target_path = urllib.parse.unquote(target_path)
        anchor = urllib.parse.unquote(anchor)
        if not target_path:
            dest = path
        elif target_path.startswith("/"):
            dest = os.path.join(self.root, target_path.lstrip("/"))
        else:
            dest = os.path.join(os.path.dirname(path), target_path)
        dest = os.path.realpath(dest)
        if dest != self.root and not dest.startswith(self.root + os.sep):
            return "outside the repository"
        if not os.path.exists(dest):
            return "no such file %s" % os.path.relpath(dest, self.root)
        if self.ignored(dest):
            return "%s is ignored by git (a build product?)" % os.path.relpath(dest, self.root)
        if anchor and dest.endswith(".md") and os.path.isfile(dest):
            if anchor not in self.anchors(dest):
                return "no heading with id #%s in %s" % (anchor, os.path.relpath(dest, self.root))
        elif anchor and not target_path:
            return "no heading with id #%s here" % anchor
        return None


def expand(root, patterns):
    files = []
    for p in patterns:
        if "*" in p:
            d, pat = os.path.split(p)
            rx = re.compile("^" + re.escape(pat).replace(r"\*", ".*") + "$")
            full = os.path.join(root, d)
            names = sorted(x for x in os.listdir(full) if rx.match(x)) if os.path.isdir(full) else []
            files.extend(os.path.join(d, x) for x in names)
        else:
            files.append(p)
    return files


def self_test():
    """The checker against a tree with known good and known broken links:
    a checker that found nothing would pass any docs."""
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append("%s: got %r, want %r" % (what, got, want))

    # GitHub's ids for headings of this project's own pages
    expect("slug 1", github_slug("Profiling a script: `luaprof`"), "profiling-a-script-luaprof")
    expect("slug 2", github_slug("Every Lua: 5.1, 5.2, 5.3, 5.4 and LuaJIT"),
           "every-lua-51-52-53-54-and-luajit")
    expect("slug 3", github_slug("The `json` report: schema, version 1"),
           "the-json-report-schema-version-1")
    expect("slug 4", github_slug("Server -> client"), "server---client")
    expect("slug 5", github_slug("`luaheap --json`"), "luaheap---json")
    expect("slug 6", github_slug("Inside a game: frames, zones and memory"),
           "inside-a-game-frames-zones-and-memory")
    expect("slug 7", github_slug("Speed in WebAssembly (node) [µs]"), "speed-in-webassembly-node-µs")

    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "docs", "a.md"), "w", encoding="utf-8") as f:
            f.write("# Title\n\n## Same\n\n## Same\n\nSetext one\n----------\n\n"
                    "<a name=\"explicit\"></a>\n")
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write("# Top\n\n"
                    "[ok](docs/a.md) [ok](docs/a.md#title) [ok](docs/a.md#same-1)\n"
                    "[ok](docs/a.md#setext-one) [ok](docs/a.md#explicit) [ok](#top)\n"
                    "[ok](docs/) ![ok](docs/a.md) [ok](https://example.org/x)\n"
                    "[ref]: docs/a.md#same\n"
                    "`[not a link](nowhere.md)`\n\n"
                    "    t[k](nowhere.md)   -- indented code\n\n"
                    "```\n[not a link](nowhere.md)\n```\n"
                    "[bad1](missing.md) [bad2](docs/a.md#same-2) [bad3](#nothing)\n"
                    "[bad4](../outside.md) <a href=\"docs/b.md\">bad5</a>\n")
        problems = Checker(tmp).check_file("README.md")
        lines = sorted(int(p.split(":")[1]) for p in problems)
        expect("broken links found", len(problems), 5)
        expect("their lines", lines, [14, 14, 14, 15, 15])
    for f in failures:
        print("FAIL " + f)
    print("check_links self-test: %s" % ("FAIL" if failures else "ok"))
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1]
    files = expand(root, argv[2:] or DEFAULT_FILES)
    checker = Checker(root)
    problems = []
    for rel in files:
        try:
            problems.extend(checker.check_file(rel))
        except OSError as e:
            print("check_links: %s: %s" % (rel, e.strerror), file=sys.stderr)
            return 2
    for p in problems:
        print(p)
    print("check_links: %d files, %d links, %d broken" % (len(files), checker.links, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

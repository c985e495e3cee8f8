# SPDX-License-Identifier: GPL-2.0-only
"""No dead end in the documentation a newcomer reads: every link to an
anchor, `](#anchor)`, in README, doc/manual.md and doc/benchmarks.md names a
heading of its file (anchors made as GitHub makes them), every relative
file link `](path)` or `](path#anchor)` names a file of the source tree
(and, into a Markdown file, one of its headings), the manual's table
of contents lists every chapter and section, and every section number
cited, "manual 4.2" (or "manual, 4.2", "the manual's section 4.2", "UST
manual, 4.2", "manual 11") anywhere in the source tree and "(4.2)" or
"see 4.2" inside the manual, names a chapter or section the manual has.

Run directly, `python3 test_doc_links.py --toc doc/manual.md` prints the
table of contents for a file, as the manual's is made."""

import os
import re
import sys

TOP_SRC = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DOCS = ["README", "doc/manual.md", "doc/benchmarks.md"]


def slug(text):
    """GitHub's anchor for a heading: the text without its Markdown marks,
    lowercased, every character but letters, digits, '_', '-' and spaces
    dropped, spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def headings(path):
    """(level, text, anchor, line) of each heading, ATX (#) or setext
    (=== / --- under a line of text), outside fenced code; a repeated
    anchor gets -1, -2, ... as on GitHub."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    seen = {}
    fence = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        m = re.match(r"^(#{1,6}) +(.*?) *#* *$", line)
        level = text = None
        if m:
            level, text = len(m.group(1)), m.group(2)
        elif (i + 1 < len(lines) and re.fullmatch(r"(=+|-{3,})", lines[i + 1])
              and line.strip() and not line.startswith("    ")
              and not re.match(r"^(#|```|\||[-*+] )", line)):
            level, text = (1 if lines[i + 1][0] == "=" else 2), line.strip()
        if text is None:
            continue
        a = slug(text)
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.append((level, text, a if n == 0 else "%s-%d" % (a, n), i + 1))
    return out


def links(path):
    """(target, line) of each inline link, outside code."""
    text = open(path, encoding="utf-8").read()
    out = []
    fence = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence or line.startswith("    "):
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in re.finditer(r"\]\(([^)\s]+)\)", line):
            out.append((m.group(1), n))
    return out


def toc(path):
    """The table of contents of a file: its chapters (level 2) and their
    sections (level 3 and 4), indented, each a link to its anchor."""
    rows = []
    for level, text, anchor, _ in headings(path):
        if level < 2:
            continue
        rows.append("%s- [%s](#%s)" % ("  " * (level - 2), text.replace("`", ""), anchor))
    return "\n".join(rows)


def section_numbers(path):
    """The numbers of the manual's chapters ("N. Title", level 2) and
    sections ("N.M Title")."""
    out = set()
    for level, text, _, _ in headings(path):
        m = re.match(r"^(\d+)\.(\d+)? ", text) if level == 2 else re.match(r"^(\d+\.\d+) ", text)
        if m:
            out.add(m.group(1) if level != 2 else m.group(1))
    return out


# "manual 4.2", "manual, 4.2", "the manual's section 4.2", "manual (4.2)",
# "manual chapter 12", with a line break (and a comment's "*" or "#")
# allowed between: the number, with any letter after it ("3.7a"), so that
# a number the manual lacks is caught.
MANUAL_REF = re.compile(r"\bmanual(?:'s)?[\s,(*#]*(?:(?:section|chapter)\s+)?(\d+(?:\.\d+)?[a-z]?)\b")
# Inside the manual: "(4.2)", "(4.2, ...", "(4.2; ...", "..., 4.2)", "see 4.2",
# "3.7a" as well. Not a version ("protocol (2.10)", "LTTng 2.13"), a
# load average ("(load 2.7)") or a measurement ("0.5", "1.77x").
INNER_REF = re.compile(r"(?:\(|[,;] |\bsee |\bin |\bof )([1-9]\d?\.\d{1,2}[a-d]?)(?![\w.])(?=[),;:]| \"| says| gives| has)")
NOT_A_SECTION = re.compile(r"(load(?:ed)?|average|protocol|version|chunks|speaks|LTTng|lttng|relayd)[^.()]{0,25}[(,;]?\s*$")


def tree_files(top):
    """The text files of the source tree, but build directories, hidden
    ones and the manual's pictures."""
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "autom4te")))
        for f in sorted(files):
            p = os.path.join(root, f)
            if f.endswith((".png", ".o", ".so", ".a", ".gz")) or os.path.getsize(p) > 4 << 20:
                continue
            try:
                with open(p, encoding="utf-8") as fh:
                    yield os.path.relpath(p, top), fh.read()
            except (UnicodeDecodeError, OSError):
                continue


def dead_section_refs(top, manual):
    """How many section numbers are cited, and each one the manual does
    not have, as "file:line: ..."."""
    have = section_numbers(manual)
    dead = []
    count = 0
    for rel, text in tree_files(top):
        refs = [(m.start(), m.group(1)) for m in MANUAL_REF.finditer(text)]
        if os.path.normpath(rel) == os.path.normpath("doc/manual.md"):
            refs += [(m.start(), m.group(1)) for m in INNER_REF.finditer(text)
                     if not NOT_A_SECTION.search(text[max(0, m.start() - 40):m.start() + 1])]
        count += len(refs)
        for at, num in refs:
            if num not in have:
                line = text.count("\n", 0, at) + 1
                dead.append("%s:%d: section %s: the manual has none" % (rel, line, num))
    return count, sorted(set(dead))


def main():
    n = 0
    failed = 0

    def ok(cond, desc, diag=None):
        nonlocal n, failed
        n += 1
        if not cond:
            failed += 1
        print("%sok %d - %s" % ("" if cond else "not ", n, desc), flush=True)
        if not cond and diag:
            for d in diag:
                print("# " + d, flush=True)

    anchors = {}
    for doc in DOCS:
        p = os.path.join(TOP_SRC, doc)
        ok(os.path.exists(p), "%s exists" % doc)
        if os.path.exists(p):
            anchors[doc] = {a for _, _, a, _ in headings(p)}

    for doc in DOCS:
        if doc not in anchors:
            continue
        p = os.path.join(TOP_SRC, doc)
        dead = []
        count = 0
        for target, line in links(p):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            count += 1
            file, _, anchor = target.partition("#")
            if not file:
                if anchor not in anchors[doc]:
                    dead.append("%s:%d: #%s: no such heading" % (doc, line, anchor))
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), file))
            full = os.path.join(TOP_SRC, dest)
            if not os.path.exists(full):
                dead.append("%s:%d: %s: no such file" % (doc, line, file))
            elif anchor:
                have = anchors.get(dest)
                if have is None and dest.endswith(".md"):
                    have = {a for _, _, a, _ in headings(full)}
                if have is not None and anchor not in have:
                    dead.append("%s:%d: %s: no heading #%s there" % (doc, line, file, anchor))
        ok(not dead, "%s: its %d links lead somewhere" % (doc, count), dead)

    # The manual's contents list every chapter and section, and nothing
    # more, in order.
    manual = os.path.join(TOP_SRC, "doc/manual.md")
    if os.path.exists(manual):
        text = open(manual, encoding="utf-8").read()
        want = toc(manual)
        ok(want in text, "doc/manual.md: its table of contents lists every chapter and section",
           ["regenerate it with: python3 tests/e2e/test_doc_links.py --toc doc/manual.md"])
        count, dead = dead_section_refs(TOP_SRC, manual)
        ok(count and not dead, "the %d section numbers cited in the tree and in the manual are the manual's" % count,
           dead + ["the sections are: " + " ".join(sorted(section_numbers(manual), key=lambda n: [int(x) for x in re.findall(r"\d+", n)]))] if dead else None)
    print("1..%d" % n, flush=True)
    sys.exit(1 if failed or not n else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--toc":
        print(toc(sys.argv[2]))
    else:
        main()

# SPDX-License-Identifier: GPL-2.0-only
"""The layering of the source folders, checked (manual 12.1).

Each source folder declares, in one of its headers or its README, one line
    Layer: FOLDER; may call: F1, F2, ...     (or "may call: nothing")
with folders named from the top of the tree. This script builds the
file-to-file dependency graph and fails, naming the files, on
  (a) a cycle among the files of a folder that declares its layer,
  (b) a dependency from such a folder to a folder it may not call.
A folder that declares no layer is listed as a warning, its findings
printed but not counted as failures.

A file is a pair X.c/X.h (or a lone header). X depends on Y when
  - X.c or X.h includes Y.h ('#include "..."', read from the sources), or
  - X.c uses a global function or variable that Y.c defines: read with nm
    from the built objects (a defined global symbol, U in X's object).
So the script runs after the build: `make check` runs it as a TAP test;
by hand: /usr/bin/python3 tests/check_layers.py [BUILDDIR] (default
$top_builddir, else build/). Public headers (include/ust) and system
headers are no folder: everything may include them.

Prints, per folder, its files, its dependencies inside and towards each
other folder, and its cycles: the numbers the manual quotes.

And the path of a rotation request (REACH): from each entry function,
the files of its tree whose functions a call can reach, function by
function, read with objdump from the same objects (calls, tail calls,
functions whose address is taken); fails when more than REACH allows.
"""

import os
import re
import subprocess
import sys

FOLDERS = ["libustcomm", "libust", "libust-func", "libust-plt", "libustctl", "ustctl", "usttrace",
           "bt2plugin"]
# Every folder under ustd/, however deep, is a folder of its own.
TREES = ["ustd"]
# A rotation request, from the session down to the files written: the
# files of its tree (ustd/) a call from each entry can reach, at most so
# many: a program's issue 31's 10 and the files closed without waiting
# for the device (stream_closing.c: their writes in flight end later, on
# the stream's wake-ups, instead of in the loop); the session's adds its
# own files, the chunk's directory, the chunk published once its files
# are whole (chunk_publish.c) and --on-rotate's command (manual 12.6);
# both move each stream's write mark to its new file (write_mark.c).
REACH = [("ustd_session_rotate", 17), ("ustd_app_rotate", 12)]

LAYER_RE = re.compile(r"^[\s/*#]*Layer:\s*(\S+?)\s*;\s*may call:\s*(.*?)\s*(\*/)?\s*$")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_EXTS = (".c", ".h")


class Unit:
    """X.c and X.h of one folder: one node of the graph."""

    def __init__(self, folder, stem):
        self.folder = folder
        self.stem = stem
        self.paths = []
        # dependency -> why: the headers included, the symbols used
        self.deps = {}

    def depend(self, dep, why):
        if dep is not self:
            self.deps.setdefault(dep, set()).add(why)

    def lone(self):
        return not any(p.endswith(".c") for p in self.paths)

    def name(self):
        return self.stem + (".h" if self.lone() else ".c")

    def qualified(self):
        return self.folder + "/" + self.name()


def source_folders(srcdir):
    folders = list(FOLDERS)
    for tree in TREES:
        for root, dirs, files in os.walk(os.path.join(srcdir, tree)):
            dirs.sort()
            if any(f.endswith(SOURCE_EXTS) for f in files):
                folders.append(os.path.relpath(root, srcdir))
    return folders


def read_units(srcdir, folders):
    units = {}
    for folder in folders:
        path = os.path.join(srcdir, folder)
        for name in sorted(os.listdir(path)):
            stem, ext = os.path.splitext(name)
            if ext not in SOURCE_EXTS:
                continue
            unit = units.setdefault((folder, stem), Unit(folder, stem))
            unit.paths.append(os.path.join(folder, name))
    return units


def read_layers(srcdir, folders):
    """folder -> set of folders it may call; problems found on the way."""
    layers, problems = {}, []
    for folder in folders:
        path = os.path.join(srcdir, folder)
        for name in sorted(os.listdir(path)):
            if not (name.endswith(".h") or name.startswith("README")):
                continue
            with open(os.path.join(path, name), errors="replace") as f:
                for line in f:
                    m = LAYER_RE.match(line)
                    if not m:
                        continue
                    where = "%s/%s" % (folder, name)
                    if m.group(1) != folder:
                        problems.append("%s declares the layer of %s" % (where, m.group(1)))
                    elif folder in layers:
                        problems.append("%s declares %s's layer a second time" % (where, folder))
                    else:
                        calls = m.group(2).strip()
                        layers[folder] = (set() if calls == "nothing" else
                                          {c.strip() for c in calls.split(",") if c.strip()})
    return layers, problems


def unit_of_path(units, srcdir, path):
    rel = os.path.relpath(os.path.normpath(path), srcdir)
    folder, name = os.path.split(rel)
    return units.get((folder, os.path.splitext(name)[0]))


def included(units, srcdir, path, seen):
    """The units path's includes name. A lone header (no .c beside it)
    is no file of the graph: who includes it includes what it includes."""
    with open(os.path.join(srcdir, path), errors="replace") as f:
        text = f.read()
    found = {}
    for inc in INCLUDE_RE.findall(text):
        # As the compiler looks: beside the file, then -I$(top_srcdir).
        for base in (os.path.dirname(os.path.join(srcdir, path)), srcdir):
            target = os.path.normpath(os.path.join(base, inc))
            if not os.path.exists(target):
                continue
            dep = unit_of_path(units, srcdir, target)
            if dep is not None and dep.lone() and target not in seen:
                seen.add(target)
                for d, why in included(units, srcdir, os.path.relpath(target, srcdir),
                                       seen).items():
                    found.setdefault(d, "#include %s (%s)" % (inc, why))
            elif dep is not None:
                found.setdefault(dep, "#include " + inc)
            break
    return found


def add_includes(units, srcdir):
    for unit in units.values():
        if unit.lone():
            continue
        for path in unit.paths:
            for dep, why in included(units, srcdir, path, set()).items():
                unit.depend(dep, why)


def objects_of(builddir, folder, stem):
    """The objects built from folder/stem.c: automake names them
    TARGET-stem.o (libtool's PIC ones in .libs/), or stem.o."""
    found = []
    for sub in (folder, os.path.join(folder, ".libs")):
        d = os.path.join(builddir, sub)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if name == stem + ".o" or name.endswith("-" + stem + ".o"):
                found.append(os.path.join(d, name))
    # A unit test's own build of a file compiles the same code.
    own = [p for p in found if not os.path.basename(p).startswith("tests_")]
    return own or found


def read_symbols(obj, nm):
    defined, used = set(), set()
    out = subprocess.run([nm, "--format=posix", obj], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        sym, kind = fields[0], fields[1]
        if kind == "U":
            used.add(sym)
        elif kind in "TDBRGS":
            defined.add(sym)
    return defined, used


def add_calls(units, builddir, nm, warnings):
    definers, uses = {}, {}
    for unit in units.values():
        if unit.lone():
            continue
        objs = objects_of(builddir, unit.folder, unit.stem)
        if not objs:
            warnings.append("%s: no object in %s: its calls are not seen"
                            % (unit.qualified(), builddir))
            continue
        used = set()
        for obj in objs:
            d, u = read_symbols(obj, nm)
            for sym in d:
                definers.setdefault(sym, set()).add(unit)
            used |= u
        uses[unit] = used
    for unit, used in uses.items():
        for sym in used:
            cands = definers.get(sym, set()) - {unit}
            # The same name in two programs: the caller's folder links its own.
            same = {c for c in cands if c.folder == unit.folder}
            for dep in same or cands:
                unit.depend(dep, sym + "()")


SYMTAB_RE = re.compile(r"^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) (.+)$")
LABEL_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSN_RE = re.compile(r"^\s+[0-9a-f]+:\t.*\s[0-9a-f]+ <([^>+]+)>$")
RELOC_RE = re.compile(r"^\s*[0-9a-f]+:?\s+(R_\S+)\s+(\S+)$")
RELOC_AT_RE = re.compile(r"^([0-9a-f]+)\s+(R_\S+)\s+(\S+)$")
TARGET_RE = re.compile(r"^(.+?)([+-]0x[0-9a-f]+)?$")
# Sections whose relocations are no reference of the code's.
NOT_CODE = (".debug", ".eh_frame", ".note", ".comment", ".rela")


class ObjectCode:
    """One object's symbols and what each refers to: the function-level
    graph, read with objdump from the same objects as the calls above."""

    def __init__(self, unit, obj, objdump):
        self.unit = unit
        self.symbols = []       # (section, start, end, name, is_global)
        self.sections = set()
        self.refs = {}          # source name -> set of (target name, local?)
        run = lambda *a: subprocess.run([objdump] + list(a) + [obj], capture_output=True,
                                        text=True, check=True).stdout
        for line in run("-t").splitlines():
            m = SYMTAB_RE.match(line)
            if not m:
                continue
            value, flags, section, size, name = m.groups()
            if flags[6] == "d":
                self.sections.add(name)
            elif section not in ("*UND*", "*ABS*", "*COM*") and flags[6] != "f":
                self.symbols.append((section, int(value, 16), int(value, 16) + int(size, 16),
                                     name, flags[0] in "gu" or flags[1] == "w"))
        self.local = {s[3] for s in self.symbols if not s[4]}
        code = self.read_code(run("-dr", "--no-show-raw-insn"))
        self.read_data(run("-r"), code)

    def containing(self, section, at):
        for sec, start, end, name, _ in self.symbols:
            if sec == section and start <= at < max(end, start + 1):
                return name
        return None

    def target(self, kind, text):
        """A relocation's target: a symbol's name, or a section's with an
        addend (a static function or variable), the symbol there."""
        m = TARGET_RE.match(text)
        name, addend = m.group(1), int(m.group(2) or "0", 16)
        if name in self.sections:
            # A PC-relative field ends its instruction: the addend is the
            # target less the 4 bytes of the field.
            pc = 4 if kind in ("R_X86_64_PC32", "R_X86_64_PLT32") else 0
            return self.containing(name, addend + pc) or self.containing(name, addend)
        return name

    def refer(self, source, kind, text):
        target = self.target(kind, text)
        if source and target and target != source:
            self.refs.setdefault(source, set()).add(target)

    def read_code(self, text):
        section, source, pending, code = None, None, None, set()
        for line in text.splitlines():
            if line.startswith("Disassembly of section "):
                section = line[len("Disassembly of section "):].rstrip(":")
                code.add(section)
                continue
            m = LABEL_RE.match(line)
            if m:
                source = m.group(2)
                continue
            m = RELOC_RE.match(line)
            if m:
                # The instruction's own target is only its field's
                # placeholder: the relocation names the real one.
                pending = None
                self.refer(source, m.group(1), m.group(2))
                continue
            if pending:
                self.refer(source, "", pending)
            m = INSN_RE.match(line)
            # A call, a jump or an address taken of a function in the
            # same section needs no relocation: objdump names the target.
            pending = m.group(1) if m else None
        if pending:
            self.refer(source, "", pending)
        return code

    def read_data(self, text, code):
        """Tables of functions (a callback table, a static struct)."""
        section = None
        for line in text.splitlines():
            if line.startswith("RELOCATION RECORDS FOR ["):
                section = line[len("RELOCATION RECORDS FOR ["):].rstrip("]:")
                if section in code or section.startswith(NOT_CODE):
                    section = None
                continue
            m = RELOC_AT_RE.match(line)
            if section and m:
                self.refer(self.containing(section, int(m.group(1), 16)) or section,
                           m.group(2), m.group(3))


def reachable_files(units, builddir, objdump, entry):
    """The files whose functions a call from entry can reach, each with
    one chain of calls that reaches it: through calls, tail calls and
    functions taken by address (passed as callbacks or kept in tables).
    Calls through a pointer set elsewhere (a higher layer's callback) are
    not seen: that is what a callback is for. None when no object defines
    entry."""
    objects = [ObjectCode(u, o, objdump) for u in sorted(units.values(), key=Unit.qualified)
               if not u.lone() for o in objects_of(builddir, u.folder, u.stem)]
    definers = {}
    for oc in objects:
        for sym in oc.symbols:
            if sym[4]:
                definers.setdefault(sym[3], []).append(oc)
    if entry not in definers:
        return None
    # Breadth first: each file's chain is a shortest one.
    prev = {(oc.unit, entry): None for oc in definers[entry]}
    todo = [(oc, entry) for oc in definers[entry]]
    while todo:
        nxt = []
        for oc, name in todo:
            for target in sorted(oc.refs.get(name, ())):
                if target in oc.local:
                    cands = [oc]
                else:
                    cands = definers.get(target, [])
                    # The same name in two programs: the caller's folder
                    # links its own.
                    cands = [c for c in cands if c.unit.folder == oc.unit.folder] or cands
                for c in cands:
                    if (c.unit, target) not in prev:
                        prev[(c.unit, target)] = (oc.unit, name)
                        nxt.append((c, target))
        todo = nxt
    chains = {}
    for node in prev:
        if node[0] in chains:
            continue
        chain = [node]
        while prev[chain[-1]] is not None:
            chain.append(prev[chain[-1]])
        chains[node[0]] = list(reversed(chain))
    return chains


def find_cycles(nodes):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(v.deps, key=Unit.name):
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w is v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc, key=Unit.name))

    for v in sorted(nodes, key=Unit.name):
        if v not in index:
            visit(v)
    return sccs


def one_loop(scc):
    """A shortest way from the first file of scc back to it, to name."""
    members = set(scc)
    start = scc[0]
    prev, todo = {start: None}, [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(v.deps, key=Unit.name):
                if w is start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return []


class Report:
    """TAP: a line per folder, the numbers as comments."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def note(self, text):
        print("# " + text)

    def result(self, ok, text):
        self.n += 1
        self.failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, text))


def why(a, b, most=3):
    reasons = sorted(a.deps[b])
    more = len(reasons) - most
    return ", ".join(reasons[:most]) + (" and %d more" % more if more > 0 else "")


def check_reach(rep, units, builddir, objdump):
    for entry, most in REACH:
        chains = reachable_files(units, builddir, objdump, entry)
        if chains is None:
            rep.result(False, "%s: no object defines it" % entry)
            continue
        tree = next(u for u, c in chains.items() if len(c) == 1).folder.split("/")[0]
        mine = [u for u in chains if u.folder.split("/")[0] == tree]
        # In the order a call reaches them: down the pipeline.
        mine.sort(key=lambda u: (len(chains[u]), u.qualified()))
        others = sorted({u.folder for u in chains} - {u.folder for u in mine})
        rep.note("%s reaches %d files of %s/ (and %d of %s):"
                 % (entry, len(mine), tree, len(chains) - len(mine), ", ".join(others)))
        for u in mine:
            rep.note("  %s: %s" % (u.qualified(), " -> ".join(n for _, n in chains[u])))
        rep.result(len(mine) <= most, "%s reaches %d files of %s/, at most %d"
                   % (entry, len(mine), tree, most))


def check(srcdir, builddir, nm, objdump, edges_of):
    rep = Report()
    folders = source_folders(srcdir)
    units = read_units(srcdir, folders)
    layers, problems = read_layers(srcdir, folders)
    warnings = []
    add_includes(units, srcdir)
    add_calls(units, builddir, nm, warnings)
    for w in warnings:
        rep.note("warning: " + w)
    print("1..%d" % (len(folders) + 1 + len(REACH)))
    rep.result(not problems, "every Layer: line names its own folder, once")
    for p in problems:
        rep.note("  " + p)

    total_inside = total_cross = total_cycles = 0
    for folder in folders:
        mine = {u for u in units.values() if u.folder == folder and not u.lone()}
        inside = sum(1 for u in mine for d in u.deps if d.folder == folder)
        cross = {}
        for u in mine:
            for d in u.deps:
                if d.folder != folder:
                    cross.setdefault(d.folder, []).append((u, d))
        sccs = find_cycles(mine)
        declared = folder in layers
        may = layers.get(folder, set())
        upward = sorted(((u, d) for f, pairs in cross.items() if f not in may
                         for u, d in pairs), key=lambda p: (p[0].name(), p[1].qualified()))
        if edges_of in (folder, "all"):
            for u in sorted(mine, key=Unit.name):
                for d in sorted(u.deps, key=Unit.qualified):
                    rep.note("  %s -> %s: %s" % (u.name(), d.qualified(), why(u, d, 99)))
        total_inside += inside
        total_cross += sum(len(p) for p in cross.values())
        total_cycles += len(sccs)
        towards = ", ".join("%s %d" % (f, len(cross[f])) for f in sorted(cross)) or "none"
        rep.note("%s: %d files, %d dependencies inside, to other folders: %s; %d cycle(s)"
                 % (folder, len(mine), inside, towards, len(sccs)))
        for scc in sccs:
            loop = one_loop(scc)
            rep.note("  cycle of %d files: %s" % (len(scc), " -> ".join(u.name() for u in loop)))
            for a, b in zip(loop, loop[1:]):
                rep.note("    %s -> %s: %s" % (a.name(), b.name(), why(a, b)))
            rep.note("    all of them: %s" % ", ".join(u.name() for u in scc))
        if not declared:
            rep.note("  warning: %s declares no layer ('Layer: %s; may call: ...'): "
                     "not checked" % (folder, folder))
            for f in sorted(cross):
                rep.note("  would need: may call %s" % f)
            rep.result(True, "%s # SKIP declares no layer" % folder)
            continue
        for src, dst in upward:
            rep.note("  %s -> %s: %s may not call %s (%s)"
                     % (src.qualified(), dst.qualified(), folder, dst.folder, why(src, dst)))
        rep.result(not sccs and not upward, "%s: no cycle, %s" % (
            folder, "calls only " + ", ".join(sorted(may)) if may else "calls no other folder"))
    rep.note("all folders: %d files, %d dependencies inside folders, %d across, %d cycle(s)"
             % (sum(not u.lone() for u in units.values()), total_inside, total_cross, total_cycles))
    check_reach(rep, units, builddir, objdump)
    return rep.failed == 0


def main():
    args = sys.argv[1:]
    # --edges FOLDER (or all): every dependency of the folder's files, and why.
    edges_of = None
    if args[:1] == ["--edges"] and len(args) > 1:
        edges_of, args = args[1], args[2:]
    srcdir = os.environ.get("top_srcdir") or os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    builddir = (args[0] if args else
                os.environ.get("top_builddir") or os.path.join(srcdir, "build"))
    return 0 if check(srcdir, builddir, os.environ.get("NM", "nm"),
                      os.environ.get("OBJDUMP", "objdump"), edges_of) else 1


if __name__ == "__main__":
    sys.exit(main())

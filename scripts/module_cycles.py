#!/usr/bin/env python3
"""No import cycle between the files of a crate.

For each crate (`tool-*/src`), builds a graph of its module files: an
edge from file A to file B when A names an item that B defines, through
`use crate::...`, `use super::...`, `use self::...`, a path in code such
as `crate::x::f()` or `super::T`, a child module's path (`child::f()`), or
a module imported by name (`use crate::spec; spec::X`). A name imported
through a re-export counts for the file that defines the item, not the one
that re-exports it, so a `mod.rs` that re-exports its children is not a
cycle with them; a re-export counts as a use only when the file names the
item itself too. A folder's `mod.rs` (the file beside the folder, or
`lib.rs` for the crate's top files) is the folder's front: it may use the
folder's files while they use what it defines, so edges between a module
and its own child modules are not counted; between sibling files, and
between folders, imports run one way. Test code (`#[cfg(test)]` items and `tests` modules) is
left out.

Prints each cycle (a strongly connected set of files) with the imports
that close it, and exits 1 if there is one.

    scripts/module_cycles.py              # every crate
    scripts/module_cycles.py tool-mcp     # some crates
    scripts/module_cycles.py --edges tool-macros   # the whole graph too
    scripts/module_cycles.py --known 'tool-mcp:a.rs,b.rs'

`--known CRATE:FILE,FILE...` names a cycle that is known and being taken
apart: it is still printed, but does not fail the check (a new cycle, or
the known one grown, does); a known cycle that is gone is reported, so
that its `--known` can be dropped.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fn_sizes import blank  # noqa: E402

ID = r"[A-Za-z_][A-Za-z0-9_]*"
ITEM = re.compile(
    rf"\b(?:struct|enum|trait|fn|type|const|static|union|mod)\s+({ID})|\bmacro_rules!\s*({ID})"
)
USE = re.compile(r"(?<![A-Za-z0-9_])(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);")


def matching_brace(text: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def without_tests(text: str):
    """The text with `#[cfg(test)]` items blanked, and the names of the
    modules declared only for tests (`#[cfg(test)] mod x;`)."""
    test_mods = set(re.findall(rf"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+({ID})\s*;", text))
    chars = list(text)
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        k = m.end()
        # The item: to its `;` or its brace-matched body, whichever first.
        semi = text.find(";", k)
        brace = text.find("{", k)
        if brace != -1 and (semi == -1 or brace < semi):
            end = matching_brace(text, brace)
        else:
            end = semi if semi != -1 else len(text) - 1
        for i in range(m.start(), end + 1):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars), test_mods


def parse_use_tree(tree: str):
    """`a::{b, c::{self, d as e}, f::*}` -> [(segments, alias, glob)]."""
    tree = re.sub(r"\s+as\s+", "@", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        if "{" in s:
            head, _, rest = s.partition("{")
            body = rest[:-1]  # drop the closing brace
            base = prefix + [p for p in head.split("::") if p]
            for part in split_top(body):
                if part:
                    walk(base, part)
            return
        if s.endswith("*"):
            out.append((prefix + [p for p in s[:-1].split("::") if p], None, True))
            return
        m = re.fullmatch(rf"((?:{ID}::)*{ID})(?:@({ID}))?", s)
        if not m:
            return
        segs = prefix + m.group(1).split("::")
        if segs[-1] == "self":
            segs = segs[:-1]
        alias = m.group(2) or (segs[-1] if segs else None)
        out.append((segs, alias, False))

    walk([], tree)
    return out


def split_top(body: str):
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


class Crate:
    def __init__(self, src: Path):
        self.src = src
        self.modules = {}  # module path tuple -> file
        self.files = {}  # file -> info
        test_only = set()
        for path in sorted(src.rglob("*.rs")):
            rel = path.relative_to(src)
            parts = list(rel.with_suffix("").parts)
            if parts[-1] in ("lib", "main") and len(parts) == 1:
                parts = []
            elif parts[-1] == "mod":
                parts = parts[:-1]
            module = tuple(parts)
            text, test_mods = without_tests(blank(path.read_text(encoding="utf-8")))
            for name in test_mods:
                test_only.add(module + (name,))
            self.modules[module] = path
            self.files[path] = {"module": module, "text": text}
        for module in list(self.modules):
            if any(module[: len(t)] == t for t in test_only) or "tests" in module:
                del self.files[self.modules.pop(module)]
        for path, info in self.files.items():
            text = info["text"]
            info["defs"] = {a or b for a, b in ITEM.findall(text)}
            info["uses"] = []  # (segments, alias, glob, is_pub, line, span)
            for m in USE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                for segs, alias, glob in parse_use_tree(m.group(2)):
                    info["uses"].append((segs, alias, glob, bool(m.group(1)), line, m.span()))
            masked = list(text)
            for m in USE.finditer(text):
                for i in range(*m.span()):
                    if masked[i] != "\n":
                        masked[i] = " "
            info["body"] = "".join(masked)
            info["idents"] = set(re.findall(ID, info["body"]))

    def absolute(self, module, segs):
        """Segments of a path written in `module`, from the crate root, or
        None for a path into another crate."""
        if not segs:
            return None
        head = segs[0]
        if head == "crate":
            return list(segs[1:])
        if head in ("super", "self"):
            base = list(module)
            rest = list(segs)
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    if not base:
                        return None
                    base.pop()
                rest.pop(0)
            return base + rest
        if module + (head,) in self.modules or head in self.files[self.modules[module]]["defs"]:
            return list(module) + list(segs)
        return None

    def resolve(self, segs, depth=0):
        """(file, item) for an absolute path, following re-exports."""
        if depth > 8:
            return None
        for cut in range(len(segs), -1, -1):
            module = tuple(segs[:cut])
            if module in self.modules:
                break
        else:
            return None
        path = self.modules[module]
        rest = segs[cut:]
        if not rest:
            return path, None
        info = self.files[path]
        name = rest[0]
        if name in info["defs"]:
            return path, name
        for useg, alias, glob, _pub, _line, _span in info["uses"]:
            if not glob and alias == name:
                target = self.absolute(module, useg)
                if target is not None:
                    return self.resolve(target + rest[1:], depth + 1)
                return None
        for useg, alias, glob, _pub, _line, _span in info["uses"]:
            if glob:
                target = self.absolute(module, useg)
                if target is not None:
                    found = self.resolve(target + rest, depth + 1)
                    if found and found[1] is not None:
                        return found
        return path, None

    def front(self, a, b):
        """Whether one of the files is the other's parent module: a
        folder's `mod.rs` (or the file beside the folder, or `lib.rs`) is
        the folder's front, which may use the folder's files while they
        use what it defines."""
        ma, mb = self.files[a]["module"], self.files[b]["module"]
        return ma == mb[:-1] or mb == ma[:-1]

    def exported_names(self, module, depth=0):
        """Names a glob import of `module` brings in."""
        path = self.modules.get(module)
        if path is None or depth > 4:
            return set()
        info = self.files[path]
        names = set(info["defs"])
        for useg, alias, glob, _pub, _line, _span in info["uses"]:
            if glob:
                target = self.absolute(module, useg)
                if target is not None and tuple(target) in self.modules:
                    names |= self.exported_names(tuple(target), depth + 1)
            elif alias:
                names.add(alias)
        return names

    def edges(self):
        """{(a, b): [evidence]} for files a != b."""
        found = defaultdict(list)
        for path, info in self.files.items():
            module, body = info["module"], info["body"]

            def add(segs, line, what):
                target = self.absolute(module, segs)
                if target is None:
                    return
                hit = self.resolve(target)
                if hit and hit[0] != path and not self.front(path, hit[0]):
                    found[(path, hit[0])].append(f"line {line}: {what}")

            for segs, alias, glob, is_pub, line, _span in info["uses"]:
                shown = "::".join(segs) + ("::*" if glob else "")
                if glob:
                    target = self.absolute(module, segs)
                    if target is None:
                        continue
                    for name in sorted(self.exported_names(tuple(target)) & info["idents"]):
                        add(segs + [name], line, f"use {shown} ({name})")
                    continue
                if is_pub and alias not in info["idents"]:
                    continue  # a re-export the file does not use itself
                target = self.absolute(module, segs)
                if target is not None and tuple(target) in self.modules and alias:
                    # A module imported by name: what the file reaches through it.
                    reached = set(re.findall(rf"(?<![A-Za-z0-9_:]){alias}::({ID})", body))
                    for name in sorted(reached):
                        add(segs + [name], line, f"use {shown}; {alias}::{name}")
                    if reached:
                        continue
                add(segs, line, f"use {shown}")
            for m in re.finditer(rf"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::{ID})+)", body):
                segs = m.group(1).split("::")
                line = body.count("\n", 0, m.start()) + 1
                add(segs, line, m.group(1))
            children = {mod[-1] for mod in self.modules if mod[:-1] == module and len(mod) == len(module) + 1}
            for child in children:
                for m in re.finditer(rf"(?<![A-Za-z0-9_:]){child}::({ID})", body):
                    line = body.count("\n", 0, m.start()) + 1
                    add([child, m.group(1)], line, f"{child}::{m.group(1)}")
        return found


def cycles(nodes, edges):
    """Strongly connected sets of more than one node (Tarjan)."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    args = sys.argv[1:]
    show_edges = "--edges" in args
    known = set()
    names = []
    while args:
        arg = args.pop(0)
        if arg == "--edges":
            continue
        if arg == "--known":
            crate, _, files = args.pop(0).partition(":")
            known.add((crate, tuple(sorted(files.split(",")))))
            continue
        names.append(arg)
    names = names or sorted(p.name for p in root.glob("tool-*"))
    total, seen = 0, set()
    for name in names:
        src = root / name / "src"
        if not src.is_dir():
            continue
        crate = Crate(src)
        edges = crate.edges()
        if show_edges:
            for (a, b), why in sorted(edges.items()):
                print(f"{a.relative_to(root)} -> {b.relative_to(root)}: {why[0]}")
        for group in cycles(crate.files, edges):
            files = tuple(sorted(str(p.relative_to(src)) for p in group))
            if (name, files) in known:
                seen.add((name, files))
                print(f"{name}: a known cycle between {', '.join(files)}")
            else:
                total += 1
                print(f"{name}: a cycle between {', '.join(files)}")
            members = set(group)
            for (a, b), why in sorted(edges.items()):
                if a in members and b in members:
                    more = f" (and {len(why) - 1} more)" if len(why) > 1 else ""
                    print(f"  {a.relative_to(src)} -> {b.relative_to(src)}: {why[0]}{more}")
    for name, files in sorted(known - seen):
        if name in names:
            print(f"{name}: the known cycle between {', '.join(files)} is gone: drop its --known")
    sys.stdout.flush()
    if total:
        print(f"{total} import cycle(s) between a crate's files: move the shared item to "
              "the module it belongs to", file=sys.stderr)
        return 1
    print("no new import cycle between a crate's files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Library functions stay readable: none over MAX lines (default 150).

A longer function usually does two things; split it by concept (see
docs/architecture.md), not by line count. Reads every `tool-*/src/**/*.rs`
except files under a `tests/` folder, finds each `fn` item with a body and
counts the lines from the `fn` keyword to the closing brace (attributes and
doc comments above it are not counted). Comments, strings and character
literals are blanked first, so braces inside them do not count.

    scripts/fn_sizes.py            # every library file
    scripts/fn_sizes.py FILE...    # only these files
    MAX=120 scripts/fn_sizes.py

Prints each function over the limit as `file:line: fn name: N lines` and
exits 1 if there is one.
"""

import os
import re
import sys
from pathlib import Path

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def blank(src: str) -> str:
    """The source with comments, strings and char literals replaced by
    spaces (newlines kept, so line numbers stay right)."""
    out = []
    i, n = 0, len(src)

    def keep_newlines(text: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in text)

    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = src.find("\n", i)
            end = n if end == -1 else end
            out.append(" " * (end - i))
            i = end
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(keep_newlines(src[i:j]))
            i = j
        elif c in "rbc" and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            # Raw strings (r"", r#""#, br"", cr"") and prefixed strings (b"", c"").
            m = re.compile(r'(?:br|cr|r)(#*)"|[bc]"').match(src, i)
            if m is None:
                out.append(c)
                i += 1
                continue
            if m.group(0).endswith('"') and m.group(1) is not None:
                close = '"' + m.group(1)
                end = src.find(close, m.end())
                end = n if end == -1 else end + len(close)
            else:
                end = string_end(src, m.end())
            out.append(keep_newlines(src[i:end]))
            i = end
        elif c == '"':
            end = string_end(src, i + 1)
            out.append(keep_newlines(src[i:end]))
            i = end
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if nxt == "\\":
                end = src.find("'", i + 3)
                end = n if end == -1 else end + 1
                out.append(" " * (end - i))
                i = end
            elif i + 2 < n and src[i + 2] == "'":
                out.append("   ")
                i += 3
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def string_end(src: str, j: int) -> int:
    """The index just past the closing quote of a string whose body starts
    at `j`."""
    n = len(src)
    while j < n:
        if src[j] == "\\":
            j += 2
        elif src[j] == '"':
            return j + 1
        else:
            j += 1
    return n


def functions(text: str):
    """Yields (name, first line, line count) for every `fn` with a body."""
    line_starts = [0]
    for k, ch in enumerate(text):
        if ch == "\n":
            line_starts.append(k + 1)

    def line_of(pos: int) -> int:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", text):
        # The body opens at the first `{` outside parentheses and brackets;
        # a `;` first means a declaration without a body.
        j, depth, n = m.end(), 0, len(text)
        while j < n:
            ch = text[j]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch in "{;":
                break
            j += 1
        if j >= n or text[j] == ";":
            continue
        braces, k = 0, j
        while k < n:
            if text[k] == "{":
                braces += 1
            elif text[k] == "}":
                braces -= 1
                if braces == 0:
                    break
            k += 1
        first, last = line_of(m.start()), line_of(k)
        yield m.group(1), first, last - first + 1


def library_files(root: Path):
    for crate in sorted(root.glob("tool-*")):
        for path in sorted((crate / "src").rglob("*.rs")):
            if "tests" not in path.relative_to(crate / "src").parts[:-1]:
                yield path


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    limit = int(os.environ.get("MAX", "150"))
    files = [Path(a) for a in sys.argv[1:]] or list(library_files(root))
    offenders = 0
    for path in files:
        text = blank(path.read_text(encoding="utf-8"))
        for name, line, count in functions(text):
            if count > limit:
                shown = path.relative_to(root) if path.is_absolute() else path
                print(f"{shown}:{line}: fn {name}: {count} lines, more than {limit}")
                offenders += 1
    if offenders:
        print(f"{offenders} library function(s) over {limit} lines: split each by concept",
              file=sys.stderr)
        return 1
    print(f"every library function is at most {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())

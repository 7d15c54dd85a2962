#!/usr/bin/env python3
"""Files over 500 lines and functions over 100 lines in the product's rooms (app/, views/,
model/, importers/), measured with Universal Ctags' end lines. Lambdas count as part of the
function that holds them. Prints what is over, longest first; exits 1 when anything is.

  scripts/sizes.py            the report
  scripts/sizes.py --summary  one line: how many files and functions are over
"""
import subprocess
import sys
from pathlib import Path

ROOMS = ("app", "views", "model", "importers")
MAX_FILE, MAX_FUNCTION = 500, 100


def sources(root):
    for room in ROOMS:
        for path in sorted((root / room).rglob("*")):
            if path.suffix in (".cpp", ".h"):
                yield path


def functions(path):
    out = subprocess.run(["ctags", "--c++-kinds=f", "--fields=+ne", "-o", "-", str(path)],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        name, _, rest = line.partition("\t")
        if name.startswith("__anon"):
            continue
        fields = dict(f.split(":", 1) for f in rest.split("\t") if ":" in f)
        if "line" in fields and "end" in fields:
            scope = fields.get("class", fields.get("struct", fields.get("namespace", "")))
            scope = scope.rsplit("::", 1)[-1]
            yield (f"{scope}::{name}" if scope else name), int(fields["line"]), int(fields["end"])


def main():
    root = Path(__file__).resolve().parent.parent
    files, funcs = [], []
    for path in sources(root):
        rel = path.relative_to(root)
        lines = sum(1 for _ in path.open(encoding="utf-8"))
        if lines > MAX_FILE:
            files.append((lines, str(rel)))
        for name, start, end in functions(path):
            if end - start + 1 > MAX_FUNCTION:
                funcs.append((end - start + 1, f"{rel}:{start}", name))
    if "--summary" in sys.argv:
        print(f"{len(files)} files over {MAX_FILE} lines, "
              f"{len(funcs)} functions over {MAX_FUNCTION} lines")
    else:
        for n, rel in sorted(files, reverse=True):
            print(f"file     {n:5d}  {rel}")
        for n, where, name in sorted(funcs, reverse=True):
            print(f"function {n:5d}  {where}  {name}")
    return 1 if files or funcs else 0


if __name__ == "__main__":
    sys.exit(main())

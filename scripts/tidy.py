#!/usr/bin/env python3
"""clang-tidy over the project's sources, in parallel, each file's verdict cached by what it reads.

`make tidy` runs this after the Release build. A file is checked again only when something it
compiles from changed: the key of a file is a hash of clang-tidy's version, .clang-tidy, the
file's compile command (with the checkout's path taken out, so a fresh clone in another folder
hits what the developer's own runs left), and every header the compiler read for it (the build's
depfile): the project's by content, the system's by size and modification time. Only a clean
verdict is cached (an empty file named by the key under ~/.cache/floortwin/tidy); findings are
printed every time until they are fixed. A file the build has not compiled has no depfile and is
always checked.

Usage: scripts/tidy.py BUILD_DIR TIDY JOBS [extra clang-tidy arguments...]
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATTERNS = ["model/*.cpp", "importers/*.cpp", "views/*.cpp", "app/*.cpp", "tests/*.cpp",
            ":!tests/fuzz/*"]


def depfile_inputs(path):
    """The files a make-style depfile lists after the target."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    _, _, rest = text.partition(": ")
    names, word, i = [], "", 0
    while i < len(rest):
        c = rest[i]
        if c == "\\" and i + 1 < len(rest) and rest[i + 1] == " ":
            word += " "
            i += 2
            continue
        if c.isspace():
            if word:
                names.append(word)
            word = ""
        else:
            word += c
        i += 1
    if word:
        names.append(word)
    return names


def key_of(entry, build, fixed):
    """The cache key of one compile-database entry, or None when it cannot be known."""
    output = entry.get("output")
    command = entry.get("command") or " ".join(entry.get("arguments", []))
    if not output:  # the Makefile generators leave it out: the object after -o
        words = shlex.split(command)
        output = words[words.index("-o") + 1] if "-o" in words[:-1] else None
    if not output:
        return None
    dep = os.path.join(entry["directory"], output + ".d")
    if not os.path.exists(dep):
        return None
    h = hashlib.sha256(fixed)
    h.update(command.replace(ROOT, "<root>").encode())
    for name in [entry["file"]] + depfile_inputs(dep):
        full = os.path.normpath(os.path.join(entry["directory"], name))
        h.update(b"\0" + full.replace(ROOT, "<root>").encode())
        try:
            if full.startswith(ROOT + os.sep):
                with open(full, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            else:
                st = os.stat(full)
                h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            return None
    return h.hexdigest()


def main():
    build, tidy, jobs, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    os.chdir(ROOT)
    files = subprocess.run(["git", "ls-files", *PATTERNS], check=True, capture_output=True,
                           text=True).stdout.split()
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        database = {os.path.normpath(e["file"]): e for e in json.load(f)}
    version = subprocess.run([tidy, "--version"], check=True, capture_output=True).stdout
    with open(".clang-tidy", "rb") as f:
        fixed = version + f.read() + " ".join(extra).encode()
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "floortwin", "tidy")
    os.makedirs(cache, exist_ok=True)

    todo, hits = [], 0
    for name in files:
        entry = database.get(os.path.normpath(os.path.join(ROOT, name)))
        key = key_of(entry, build, fixed) if entry else None
        if key and os.path.exists(os.path.join(cache, key)):
            hits += 1
        else:
            todo.append((name, key))

    def check(item):
        name, key = item
        start = time.monotonic()
        run = subprocess.run([tidy, "-p", build, "--quiet", *extra, name], capture_output=True,
                             text=True)
        clean = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
        if clean and key:
            open(os.path.join(cache, key), "w").close()
        return name, clean, run.stdout + run.stderr, time.monotonic() - start

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, clean, out, seconds in pool.map(check, todo):
            if not clean:
                failed.append(name)
                sys.stdout.write(out)
    print(f"tidy: {len(files)} files, {hits} unchanged since a clean check (cached), "
          f"{len(todo)} checked, {len(failed)} with findings")
    if failed:
        print("tidy: findings in " + " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

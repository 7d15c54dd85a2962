#!/usr/bin/env python3
"""Writes the performance page (docs/performance.md) from one run of floortwin-bench.

    bench_page.py FIGURES STDERR TARGETS OUT

FIGURES holds the bench's `name value unit` lines, STDERR what it said besides (the GL renderer
it drew with), TARGETS the targets file (tests/bench/targets.txt). The page says where and when
the run was made, checks each figure against its target and lists every figure; the page's
history is git's. Run by `make bench` (scripts/bench.sh)."""
import datetime
import os
import re
import subprocess
import sys


def read_figures(path):
    figures = {}
    for line in open(path, encoding="utf-8"):
        parts = line.split()
        if len(parts) != 3:
            continue
        try:
            figures[parts[0]] = (float(parts[1]), parts[2])
        except ValueError:
            continue
    return figures


def read_targets(path):
    """[(name_or_prefix*, op or None, value or None, what)] in the file's order."""
    targets = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head, sep, what = line.partition("|")
        fields = head.split()
        if not sep or len(fields) not in (2, 3) or (len(fields) == 2 and fields[1] != "-"):
            sys.exit(f"{path}:{number}: expected 'NAME <=|>= VALUE | what' or 'NAME - | what'")
        if len(fields) == 3:
            if fields[1] not in ("<=", ">="):
                sys.exit(f"{path}:{number}: expected <= or >=, got '{fields[1]}'")
            try:
                value = float(fields[2])
            except ValueError:
                sys.exit(f"{path}:{number}: expected a number, got '{fields[2]}'")
            targets.append((fields[0], fields[1], value, what.strip()))
        else:
            targets.append((fields[0], None, None, what.strip()))
    return targets


def describe(name, targets):
    """The target line for a figure: its own, else the longest prefix* that holds it."""
    best = None
    for entry in targets:
        key = entry[0]
        if key == name:
            return entry
        if key.endswith("*") and name.startswith(key[:-1]):
            if best is None or len(key) > len(best[0]):
                best = entry
    return best


def number(value):
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1e6:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}" if abs(value) >= 0.01 else f"{value:.2g}"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def renderer(stderr_path):
    try:
        text = open(stderr_path, encoding="utf-8", errors="replace").read()
    except OSError:
        return "not reported"
    found = re.findall(r"GL renderer: (.*)", text)
    return found[-1].strip() if found else "not reported (no render figures in this run)"


def commit():
    # The build that ran (scripts/bench.sh notes it before the run: the tree may change during it).
    if os.environ.get("FT_BENCH_COMMIT"):
        return os.environ["FT_BENCH_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    figures_path, stderr_path, targets_path, out_path = sys.argv[1:]
    figures = read_figures(figures_path)
    if not figures:
        sys.exit(f"{figures_path}: no figures (did floortwin-bench run?)")
    targets = read_targets(targets_path)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Performance",
        "",
        "<!-- Written by `make bench` (scripts/bench_page.py): edit tests/bench/targets.txt, "
        "not this page. -->",
        "",
        "The figures of one full run of `make bench` (`floortwin-bench`: medians over repeated "
        "runs; ratios against a baseline measured in turn in the same run). Earlier runs are "
        "in git: `git log -p docs/performance.md`. Figures of different machines compare only "
        "through their ratios.",
        "",
        "| run | |",
        "| --- | --- |",
        f"| date | {now} |",
        f"| CPU | {machine()} |",
        f"| GL renderer | {renderer(stderr_path)} |",
        f"| commit | {commit()} |",
        "",
        "## Targets",
        "",
        "| figure | what | value | target | |",
        "| --- | --- | --- | --- | --- |",
    ]
    met = missed = absent = 0
    for name, op, target, what in targets:
        if op is None or name.endswith("*"):
            continue
        sign = "≤" if op == "<=" else "≥"
        if name not in figures:
            lines.append(f"| `{name}` | {what} | not measured in this run | {sign} {number(target)} | — |")
            absent += 1
            continue
        value, unit = figures[name]
        ok = value <= target if op == "<=" else value >= target
        met, missed = met + ok, missed + (not ok)
        lines.append(f"| `{name}` | {what} | {number(value)} {unit} | {sign} {number(target)} {unit} | "
                     f"{'met' if ok else '**not met**'} |")
    lines[lines.index("## Targets") + 1:lines.index("## Targets") + 1] = [
        "", f"{met} met, {missed} not met" + (f", {absent} not measured" if absent else "") + "."]
    lines += ["", "## Every figure", ""]
    group = None
    for name in sorted(figures):
        prefix = name.split(".", 1)[0]
        if prefix != group:
            group = prefix
            lines += ["", f"### {prefix}", "", "| figure | value | what |", "| --- | --- | --- |"]
        value, unit = figures[name]
        entry = describe(name, targets)
        lines.append(f"| `{name}` | {number(value)} {unit} | {entry[3] if entry else ''} |")
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines).replace("\n\n\n", "\n\n") + "\n")
    print(f"bench_page: {out_path}: {len(figures)} figures, {met} targets met, {missed} not met")


if __name__ == "__main__":
    main()

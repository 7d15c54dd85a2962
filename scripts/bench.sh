#!/usr/bin/env bash
# `make bench`: floortwin-bench with its figures on the terminal and in BUILD/bench.txt; a full run
# (no --filter) then rewrites docs/performance.md from them (scripts/bench_page.py), a filtered
# one writes BUILD/performance.md instead, so the page always holds one whole run.
# Usage: scripts/bench.sh BUILD [floortwin-bench arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
# The build that runs: noted now, for the page (the tree may change while the bench runs).
FT_BENCH_COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' with uncommitted changes')"
export FT_BENCH_COMMIT
"$build/bin/floortwin-bench" "$@" 2> >(tee "$build/bench.err" >&2) | tee "$build/bench.txt"
wait
page=docs/performance.md
[ $# -gt 0 ] && page=$build/performance.md
python3 scripts/bench_page.py "$build/bench.txt" "$build/bench.err" tests/bench/targets.txt "$page"

#!/usr/bin/env bash
# Issue 42's commits-against-the-floor figure for builds side by side: each build's run of
# `ubiquity-load --mode commits --writers 64 --stores 8 --commits 45000 --floor --rounds 5`
# alternated with the others', RUNS times, then each build's run medians and the median of all
# its rounds. The machine's state moves the ratio as much as a change does, so builds are only
# compared when alternated, and over many rounds.
#
#   bash Benchmarks/Scripts/floor_ab.sh [--runs N] [--sqlite] DIR [DIR ...]
#
# Each DIR holds a release `ubiquity`, and `ubiquity-load` and `http-floor` beside it (built in
# Benchmarks/: swift build -c release --product ubiquity-load, --product http-floor, --product
# ubiquity). PostgreSQL unless --sqlite: a throw-away server (throwaway-postgres.sh), a new
# database a run.
set -euo pipefail
runs=5
postgres=1
dirs=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --sqlite) postgres=0; shift ;;
    -*) echo "usage: floor_ab.sh [--runs N] [--sqlite] DIR [DIR ...]" >&2; exit 64 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -ge 1 ] || { echo "usage: floor_ab.sh [--runs N] [--sqlite] DIR [DIR ...]" >&2; exit 64; }
for d in "${dirs[@]}"; do
  for p in ubiquity ubiquity-load http-floor; do
    [ -x "$d/$p" ] || { echo "floor_ab.sh: $d/$p is missing (a release build of each, side by side)" >&2; exit 66; }
  done
done
[ "$postgres" = 1 ] && source "$(dirname "$0")/../throwaway-postgres.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq 1 "$runs"); do
  for d in "${dirs[@]}"; do
    args=(--mode commits --writers 64 --stores 8 --commits 45000 --floor --rounds 5)
    [ "$postgres" = 1 ] && args+=(--postgres "$(db)")
    line=$("$d/ubiquity-load" "${args[@]}" 2>&1 | grep -E "^commits / floor" || true)
    [ -n "$line" ] || { echo "floor_ab.sh: $d gave no ratio in run $r" >&2; exit 70; }
    echo "$d run $r: $line"
    echo "$d	$line" >> "$out"
  done
done
python3 - "$out" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, text = line.rstrip("\n").split("\t", 1)
    rounds = re.search(r"\(([0-9., ]+)\)", text)
    if not rounds:
        sys.exit(f"floor_ab.sh: no rounds in: {text}")
    runs.setdefault(build, []).append([float(x) for x in rounds.group(1).split(",")])
for build, rs in runs.items():
    every = [x for r in rs for x in r]
    medians = sorted(statistics.median(r) for r in rs)
    print(f"{build}: {len(rs)} runs, run medians {medians[0]:.3f}-{medians[-1]:.3f} (median {statistics.median(medians):.3f}); "
          f"median of all {len(every)} rounds {statistics.median(every):.3f}; rounds >= 1/3: {sum(x >= 1/3 for x in every)}")
PY

#!/usr/bin/env bash
# Commit throughput of two builds of the sync server, interleaved in one run (issue 37's
# before/after): each folder holds a release `ubiquity` and `ubiquity-load` beside it.
#
#   git worktree add /tmp/before <commit> && (cd /tmp/before && swift build -c release --product ubiquity)
#   cd Benchmarks && swift build -c release --product ubiquity-load && swift build -c release --product ubiquity
#   mkdir -p /tmp/a /tmp/b && cp /tmp/before/.build/release/ubiquity .build/release/ubiquity-load /tmp/a/
#   cp .build/release/ubiquity .build/release/ubiquity-load /tmp/b/
#   bash ubiquity-compare.sh /tmp/a /tmp/b [ROUNDS]
#
# Prints per round: SQLite, one store, 32 writers, 3,000 commits; PostgreSQL (a throw-away
# server of Debian's postgresql, durable settings), 8 stores, 64 writers, 20,000 commits.
set -euo pipefail
a=${1:?usage: ubiquity-compare.sh FIRST SECOND [ROUNDS]}; b=${2:?usage: ubiquity-compare.sh FIRST SECOND [ROUNDS]}; rounds=${3:-5}
source "$(dirname "$0")/throwaway-postgres.sh"
for round in $(seq 1 "$rounds"); do
  for build in "$a" "$b"; do
    echo "round $round $build sqlite 1 store 32 writers: $("$build/ubiquity-load" --mode commits --writers 32 --stores 1 --commits 3000 2>/dev/null | grep -E '^commits:')"
    echo "round $round $build postgres 8 stores 64 writers: $("$build/ubiquity-load" --mode commits --writers 64 --stores 8 --commits 20000 --postgres "$(db)" 2>/dev/null | grep -E '^commits:')"
  done
done

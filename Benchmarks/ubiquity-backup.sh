#!/usr/bin/env bash
# Issue 29's backup figure: commit latency on a 1 GB SQLite database while
# `ubiquity backup` copies it, against the same with no backup, interleaved.
#
#   cd Benchmarks && swift build -c release --product ubiquity-load && swift build -c release --product ubiquity
#   bash ubiquity-backup.sh [GIGABYTES]
set -euo pipefail
cd "$(dirname "$0")"
gb=${1:-1}
load=.build/release/ubiquity-load
tool=.build/release/ubiquity
[ -x "$load" ] && [ -x "$tool" ] || { echo "build first (see the head of this script)"; exit 1; }
dir=$(mktemp -d /tmp/ubiquity-backup-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$tool" account add filler --create --data "$dir/data" >/dev/null
# The bulk: 100 KB values in one store of another account (the load's own account writes beside it).
python3 - "$dir/data/ubiquity.sqlite" "$gb" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = int(float(sys.argv[2]) * 10240)
blob = os.urandom(100 * 1024)
with db:
    db.executemany("INSERT INTO entries(account, store, key, revision, value, size) VALUES ('filler', 'com.fill', ?, ?, ?, ?)",
                   (("k%d" % i, i + 1, blob, len(blob)) for i in range(rows)))
db.close()
PY
echo "database: $(du -sh "$dir/data/ubiquity.sqlite" | cut -f1)"
export UBIQUITY_LOG_LEVEL=error
for round in 1 2 3; do
  echo "-- idle"
  $load --mode commits --data "$dir/data" --writers 8 --stores 1 --commits 12000 | grep -E "^commits:"
  echo "-- during a backup"
  rm -f "$dir/backup.sqlite"
  $load --mode commits --data "$dir/data" --writers 8 --stores 1 --commits 12000 --backup-to "$dir/backup.sqlite" | grep -E "^commits:|^backup:"
done

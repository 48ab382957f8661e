#!/usr/bin/env bash
# Issue 15's figures: the sync server on PostgreSQL against the same server on
# SQLite, in the same run, with ubiquity-load (Sources/ubiquity-load).
#
#   cd Benchmarks && swift build -c release --product ubiquity-load && swift build -c release --product ubiquity
#   bash ubiquity-postgres.sh [--fill N [--latency-only]] [--down]
# --fill N: also commit latency in a database of N stores of 100 keys against one of 1,000;
# --latency-only: only that.
# --down: only how fast a commit is refused (503) while PostgreSQL is down
# (proposal 0012 promises 0.3 s; the test only checks the 503, issue 31).
# --observability: only the 8-store run with logs (info) and Prometheus metrics on, against
# both off (log level critical, no metrics listener), interleaved, five of each, with the medians (issue 29).
# --floor: only single-key commits from 64 writers over 8 stores on SQLite and on PostgreSQL,
# in nine interleaved rounds of commits and of the same writers against http-floor (a Hummingbird
# route that reads the body and answers 200; build it too: swift build -c release --product http-floor),
# each round's ratio and their median (issue 42: goal >= 1/3).
#
# Starts a throw-away PostgreSQL (Debian's postgresql; initdb/pg_ctl as the
# postgres user when run as root) on a Unix socket in a temporary folder,
# with durable settings (fsync, synchronous_commit on), and removes it at the end.
set -euo pipefail
cd "$(dirname "$0")"
fill=0
latency_only=0
down=0
observability=0
floor=0
while [ $# -gt 0 ]; do
  case $1 in
    --fill) fill=${2:?--fill needs a number of stores}; shift 2 ;;
    --latency-only) latency_only=1; shift ;;
    --down) down=1; latency_only=1; shift ;;
    --observability) observability=1; latency_only=1; shift ;;
    --floor) floor=1; latency_only=1; shift ;;
    *) echo "usage: ubiquity-postgres.sh [--fill N [--latency-only]] [--down] [--observability] [--floor]"; exit 64 ;;
  esac
done
load=.build/release/ubiquity-load
[ -x "$load" ] && [ -x .build/release/ubiquity ] || { echo "build first: swift build -c release --product ubiquity-load && swift build -c release --product ubiquity"; exit 1; }
source ./throwaway-postgres.sh

if [ "$floor" = 1 ]; then
  [ -x .build/release/http-floor ] || { echo "build first: swift build -c release --product http-floor"; exit 1; }
  # Nine interleaved rounds each (commits, then the floor, back to back): the median ratio.
  echo "== SQLite and the floor, interleaved"
  $load --mode commits --writers 64 --stores 8 --commits 90000 --floor --rounds 9
  echo "== PostgreSQL and the floor, interleaved"
  $load --mode commits --writers 64 --stores 8 --commits 90000 --floor --rounds 9 --postgres "$(db)"
  exit 0
fi

if [ "$latency_only" = 0 ]; then
echo "== one store, 32 writers"
$load --mode commits --writers 32 --stores 1 --commits 3000
$load --mode commits --writers 32 --stores 1 --commits 3000 --postgres "$(db)"
echo "== 8 stores, 64 writers"
$load --mode commits --writers 64 --stores 8 --commits 20000
$load --mode commits --writers 64 --stores 8 --commits 20000 --postgres "$(db)"
$load --mode commits --writers 64 --stores 8 --commits 8000 --postgres "$(db)" --instances 3
echo "== the same, 8 stores, one instance, clients through the library's transport (AsyncHTTPClient, JSONEncoder)"
$load --mode commits --writers 64 --stores 8 --commits 8000 --postgres "$(db)" --client library
echo "== propagation: 100 watchers on instances 2 and 3, commits through instance 1"
$load --mode watch --watchers 100 --commits 50 --postgres "$(db)" --instances 3 --remote-watchers
echo "== 10,000 watchers over three instances"
$load --mode watch --watchers 10000 --commits 20 --postgres "$(db)" --instances 3
fi
if [ "$observability" = 1 ]; then
  echo "== 8 stores, 64 writers, PostgreSQL: logs and metrics off, then on (interleaved, five rounds of 60,000 commits)"
  out="$dir/observability.txt"
  for round in 1 2 3 4 5; do
    echo "-- off" | tee -a "$out"; UBIQUITY_LOG_LEVEL=critical $load --mode commits --writers 64 --stores 8 --commits 60000 --postgres "$(db)" | grep -E "^commits:|^CPU per" | tee -a "$out"
    echo "-- on" | tee -a "$out";  UBIQUITY_LOG_LEVEL=info UBIQUITY_METRICS=127.0.0.1:$((19470 + round)) $load --mode commits --writers 64 --stores 8 --commits 60000 --postgres "$(db)" | grep -E "^commits:|^CPU per" | tee -a "$out"
  done
  # Medians of each side, and on/off (the machine's own spread between two runs of one side is printed too).
  awk '/^-- / { side = $2 } /writes\/s/ { for (i = 1; i <= NF; i++) if ($i == "writes/s") w[side] = w[side] " " $(i-1) }
       /^CPU per/ { for (i = 1; i <= NF; i++) if ($i == "server(s)") c[side] = c[side] " " $(i+1) }
       function median(list,   n, a, i, j, t) { n = split(list, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
                                                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
       END { printf "median writes/s: off %d, on %d (on/off %.3f); server CPU per write: off %d µs, on %d µs; off runs:%s\n",
                    median(w["off"]), median(w["on"]), median(w["on"]) / median(w["off"]), median(c["off"]), median(c["on"]), w["off"] }' "$out"
fi
if [ "$fill" -gt 0 ]; then
  size() { local name=${1#postgres:///}; name=${name%%\?*}; as_pg "$bin/psql" -h "$dir" -U "$user" -X -A -t -c "SELECT pg_size_pretty(pg_database_size('$name'))" postgres; }
  echo "== commit latency, one store and 8 writers, in a database of 1,000 stores of 100 keys"
  small=$(db)
  $load --mode commits --writers 8 --stores 1 --commits 2000 --postgres "$small" --fill 1000
  echo "database size: $(size "$small")"
  echo "== the same in a database of $fill stores of 100 keys"
  url=$(db)
  $load --mode commits --writers 8 --stores 1 --commits 2000 --postgres "$url" --fill "$fill"
  echo "database size: $(size "$url")"
  # The fill leaves gigabytes of dirty pages: written out first, then both databases measured
  # in turns (the same machine state for each).
  as_pg "$bin/psql" -h "$dir" -U "$user" -X -q -c "CHECKPOINT" postgres
  for round in 1 2; do
    echo "== round $round: 1,000 stores, then $fill stores"
    $load --mode commits --writers 8 --stores 1 --commits 2000 --postgres "$small"
    $load --mode commits --writers 8 --stores 1 --commits 2000 --postgres "$url"
  done
fi
if [ "$down" = 1 ]; then
  echo "== commits while PostgreSQL is down: time to the 503 (20 commits, after the server noticed)"
  url=$(db)
  token=$(.build/release/ubiquity account add bench --postgres "$url" | tail -n 1)
  .build/release/ubiquity serve --port 0 --postgres "$url" > "$dir/serve.out" 2>/dev/null &
  serve=$!
  for _ in $(seq 100); do [ -s "$dir/serve.out" ] && break; sleep 0.1; done
  base=$(head -n 1 "$dir/serve.out")
  body='{"changes":[{"key":"k","base":0,"value":"YnBsaXN0MDAJCAAAAAAAAAEBAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAJ"}]}'
  commit() { curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -X POST -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' --data "$body" "$base/v1/stores/s$RANDOM/commit"; }
  commit >/dev/null
  as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
  sleep 1  # the listener notices within its reconnection backoff
  for _ in $(seq 20); do commit; done | sort -k2 -n | awk '{ codes[$1]++; t[NR] = $2 } END {
    for (c in codes) printf "status %s: %d\n", c, codes[c]; printf "median %.3f s, max %.3f s\n", t[int((NR + 1) / 2)], t[NR] }'
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-k $dir -c listen_addresses=''" start >/dev/null
  kill "$serve"; wait "$serve" 2>/dev/null || true
fi

#!/usr/bin/env bash
# Fuzzes a running `ubiquity serve` against its OpenAPI document
# (OpenAPI/ubiquity.yaml) with schemathesis: no 5xx, every answer as
# documented, malformed input refused; then `ubiquity check` proves that no
# accepted write broke a rule (revisions without gaps, counts and sizes as
# recorded, limits held by the database's constraints).
# Usage: Fuzz/schemathesis.sh [seconds] (the built .build/debug/ubiquity).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bin=${UBIQUITY:-.build/debug/ubiquity}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" serve --data "$work/data" --port 0 > "$work/url" 2> "$work/serve.err" &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n 1 "$work/url")
[ -n "$url" ] || { cat "$work/serve.err"; exit 1; }
token=$("$bin" account add fuzzer --data "$work/data" | tail -n 1)
status=0
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection,ignored_auth
# One worker each: several workers generating cases at once trip a thread race in Python 3.11's
# `ast` inside hypothesis ("AST constructor recursion depth mismatch": seen on the event stream,
# then on commit), an error of the tool, not of the server, that fails the run. The workers share
# Python's one interpreter lock, so a single one generates about as many cases.
# The event streams (each answer held open for `wait` seconds, fixed short by
# Fuzz/schemathesis-events.toml) run on their own.
schemathesis run OpenAPI/ubiquity.yaml --url "$url" --exclude-operation-id events --exclude-operation-id storesEvents \
  -H "Authorization: Bearer $token" --checks "$checks" \
  --max-time "$seconds" --request-timeout 40 --workers 1 --seed 7 \
  --suppress-health-check all --report junit --report-dir "$work/report" || status=$?
schemathesis --config-file Fuzz/schemathesis-events.toml run OpenAPI/ubiquity.yaml --url "$url" --include-operation-id events --include-operation-id storesEvents \
  -H "Authorization: Bearer $token" --checks "$checks" \
  --max-time "$seconds" --request-timeout 40 --workers 1 --seed 7 \
  --suppress-health-check all --report junit --report-dir "$work/report-events" || status=$?
kill "$server"; wait "$server" 2>/dev/null || true
"$bin" check --data "$work/data" || status=1
if grep -q "Fatal error\|Segmentation" "$work/serve.err"; then cat "$work/serve.err"; status=1; fi
exit $status

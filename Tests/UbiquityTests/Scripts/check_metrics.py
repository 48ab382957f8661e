#!/usr/bin/env python3
"""Reads Prometheus text on standard input; checks it with promtool when present and with
prometheus_client's parser; prints {"family": {"labels as k=v,...": value}} as JSON.
Exit 1 (with the reason on standard error) when the text is not valid exposition format."""
import json, shutil, subprocess, sys

text = sys.stdin.read()
if shutil.which("promtool"):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    # promtool also lints names (exit 3 for style only); 1 is a parse error.
    if r.returncode == 1:
        sys.stderr.write("promtool: " + r.stdout + r.stderr)
        sys.exit(1)
from prometheus_client.parser import text_string_to_metric_families
out = {}
try:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = ",".join("%s=%s" % kv for kv in sorted(sample.labels.items()))
            out.setdefault(sample.name, {})[key] = sample.value
except Exception as e:
    sys.stderr.write("not Prometheus text: %s\n" % e)
    sys.exit(1)
print(json.dumps(out))

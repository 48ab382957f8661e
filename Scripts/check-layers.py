#!/usr/bin/env python3
"""The package's layers point one way (issue 27): checked from `swift package describe`.

- The sync server (UbiquityServer, UbiquityPostgres) reaches neither the defaults engine
  (OpenDefaults) nor the client library (OpenDefaultsUbiquity): both sides share only
  UbiquityProtocol.
- The libraries an app links need the toolchain alone: no package product below them.

usage: swift package describe --type json | Scripts/check-layers.py
"""
import json, sys

package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}


def closure(name):
    seen, todo = set(), [name]
    while todo:
        for dep in targets[todo.pop()].get("target_dependencies", []):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


problems = []
for server in ("UbiquityServer", "UbiquityPostgres"):
    reached = closure(server) & {"OpenDefaults", "OpenDefaultsUbiquity", "OpenDefaultsFoundation"}
    if reached:
        problems.append("%s depends on %s" % (server, ", ".join(sorted(reached))))
for library in ("PropertyList", "PlatformIO", "OpenDefaults", "UbiquityProtocol", "OpenDefaultsUbiquity", "ConfigurationProfiles"):
    for name in {library} | closure(library):
        products = targets[name].get("product_dependencies", [])
        if products:
            problems.append("%s (under %s) needs packages: %s" % (name, library, ", ".join(products)))
for p in problems:
    print("check-layers:", p)
if problems:
    sys.exit(1)
print("check-layers: the server reaches no defaults engine; the libraries need the toolchain alone")

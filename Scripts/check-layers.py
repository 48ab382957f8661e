#!/usr/bin/env python3
"""The package's layers point one way (issue 27): checked from `swift package describe`.

- The sync server (UbiquityServer, UbiquityPostgres) reaches neither the defaults engine
  (OpenDefaults) nor the client library (OpenDefaultsUbiquity): both sides share only
  UbiquityProtocol.
- The libraries an app links need the toolchain alone: no package product below them.
- The server knows no database (UbiquityServer links neither SQLiteNIO nor PostgresNIO), and the
  backends know no server (UbiquitySQLite, UbiquityPostgres link no Hummingbird): they meet at
  UbiquityBackend (issue 39).

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
# The server knows no database; each database backend knows no server (issue 39): they meet at
# UbiquityBackend, the seam, which links neither a database nor a server framework.
def products(name):
    found = set(targets[name].get("product_dependencies", []))
    for dep in closure(name):
        found |= set(targets[dep].get("product_dependencies", []))
    return found

databases = {"SQLiteNIO", "PostgresNIO"}
frameworks = {"Hummingbird", "HummingbirdCore", "HummingbirdTLS"}
rules = [
    ("UbiquityServer", {"UbiquitySQLite", "UbiquityPostgres"}, databases),
    ("UbiquitySQLite", {"UbiquityServer", "UbiquityPostgres"}, frameworks | {"PostgresNIO"}),
    ("UbiquityPostgres", {"UbiquityServer", "UbiquitySQLite"}, frameworks | {"SQLiteNIO"}),
    ("UbiquityBackend", {"UbiquityServer", "UbiquitySQLite", "UbiquityPostgres"}, frameworks | databases),
]
for name, forbidden_targets, forbidden_products in rules:
    reached = closure(name) & forbidden_targets
    if reached:
        problems.append("%s depends on %s" % (name, ", ".join(sorted(reached))))
    linked = products(name) & forbidden_products
    if linked:
        problems.append("%s links %s" % (name, ", ".join(sorted(linked))))

for library in ("PropertyList", "PlatformIO", "OpenDefaults", "UbiquityProtocol", "OpenDefaultsUbiquity", "ConfigurationProfiles"):
    for name in {library} | closure(library):
        products = targets[name].get("product_dependencies", [])
        if products:
            problems.append("%s (under %s) needs packages: %s" % (name, library, ", ".join(products)))
for p in problems:
    print("check-layers:", p)
if problems:
    sys.exit(1)
print("check-layers: the server reaches no defaults engine and no database, the backends no server; the libraries need the toolchain alone")

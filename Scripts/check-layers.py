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

for library in ("PropertyList", "PlatformIO", "SharedTables", "OpenDefaults", "UbiquityProtocol", "OpenDefaultsUbiquity", "ConfigurationProfiles"):
    for name in {library} | closure(library):
        products = targets[name].get("product_dependencies", [])
        if products:
            problems.append("%s (under %s) needs packages: %s" % (name, library, ", ".join(products)))
# A target declares exactly the package's modules it imports: a declared one that no file imports
# is a stale arrow, an imported one left undeclared works only through another's dependencies.
import glob, os, re
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for name, t in targets.items():
    if t.get("type") == "snippet":
        continue
    text = ""
    for f in glob.glob(os.path.join(t["path"] if os.path.isabs(t["path"]) else os.path.join(root, t["path"]), "**", "*.swift"), recursive=True):
        text += open(f, encoding="utf-8").read()
    imported = set(re.findall(r"^\s*(?:@[\w()]+\s+)*(?:public |package |internal |private |fileprivate )?import (\w+)", text, re.M)) & set(targets)
    declared = set(t.get("target_dependencies", []))
    for dep in sorted(declared - imported):
        problems.append("%s declares %s and imports it nowhere" % (name, dep))
    for dep in sorted(imported - declared - {name}):
        problems.append("%s imports %s without declaring it" % (name, dep))

for p in problems:
    print("check-layers:", p)
if problems:
    sys.exit(1)
print("check-layers: the server reaches no defaults engine and no database, the backends no server; the libraries need the toolchain alone; every target declares exactly the modules it imports")

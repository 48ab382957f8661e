#!/usr/bin/env bash
# Builds the DocC catalogs (the public API) into .build/docs/<Module>.doccarchive with
# the toolchain's docc (no plugin): each module's symbol graph (built in .build-docs, apart from
# the usual build), then `docc convert`.
# Open one with `docc preview`, or serve the archive's folder with any static server.
#
# usage: Scripts/build-docs.sh [Module ...]     (default: every module with a catalog)
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  for catalog in Sources/*/*.docc; do modules+=("$(basename "$(dirname "$catalog")")"); done
fi
graphs=.build-docs/symbol-graphs
mkdir -p "$graphs" .build/docs
for module in "${modules[@]}"; do
  catalog=$(ls -d "Sources/$module/"*.docc)
  rm -rf "${graphs:?}/$module" && mkdir -p "$graphs/$module"
  swift build --scratch-path .build-docs --target "$module" -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs/$module" >/dev/null
  docc convert "$catalog" --fallback-display-name "$module" --fallback-bundle-identifier "org.opendefaults.$module" \
    --additional-symbol-graph-dir "$graphs/$module" --output-path ".build/docs/$module.doccarchive" >/dev/null
  echo ".build/docs/$module.doccarchive"
done

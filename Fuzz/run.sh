#!/usr/bin/env bash
# Builds a libFuzzer harness for each property-list reader and runs each for
# a bounded time (seconds per reader: first argument, default 60).
# Seeds: Fuzz/seeds/<reader>/ plus ../shared/corpora/plist when present.
# A crash leaves its input in Fuzz/out/<reader>/ and makes this script fail;
# copy it to Tests/PropertyListTests/FuzzRegressions/ and add a test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=Fuzz/out
mkdir -p "$out"
sources=$(find Sources/PropertyList -name '*.swift' | sort)
# PropertyList imports PlatformIO (its system calls): built first as its own
# module and static library (address sanitizer; no coverage: it parses
# nothing), with the package name both share.
modules="$out/modules"
mkdir -p "$modules"
swiftc -O -sanitize=address -parse-as-library \
  -module-name PlatformIO -package-name opendefaults -emit-module -emit-module-path "$modules/PlatformIO.swiftmodule" \
  -emit-library -static -o "$modules/libPlatformIO.a" $(find Sources/PlatformIO -name '*.swift' | sort)
shared=../shared/corpora/plist/files
status=0
# One harness for the four readers (FUZZ_READER chooses at run time): the sources are compiled once.
bin="$out/fuzz-readers"
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name FuzzPropertyList -package-name opendefaults \
  -I "$modules" -L "$modules" -lPlatformIO $sources Fuzz/Harness.swift -o "$bin"
for name in xml binary openstep json; do
  corpus="$out/corpus-$name"
  mkdir -p "$corpus" "$out/$name"
  [ -d "Fuzz/seeds/$name" ] && cp -n Fuzz/seeds/$name/* "$corpus"/ 2>/dev/null || true
  if [ -d "$shared" ]; then
    case $name in
      xml) find "$shared" -name '*.plist' -size -64k -exec cp -n {} "$corpus"/ \; ;;
      binary) find "$shared" -name '*.bplist' -size -64k -exec cp -n {} "$corpus"/ \; ;;
      openstep) find "$shared" \( -name '*.strings' -o -name '*.pbxproj' -o -name '*.openstep' \) -size -64k -exec cp -n {} "$corpus"/ \; ;;
      json) find "$shared" -name '*.expected.json' -size -16k -exec cp -n {} "$corpus"/ \; ;;
    esac
  fi
  echo "fuzzing the $name reader for ${seconds}s"
  if ! FUZZ_READER=$name "$bin" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$out/$name/" -print_final_stats=1 "$corpus" 2>"$out/$name.log"; then
    echo "the $name reader crashed; input and log in $out/$name/ and $out/$name.log"
    tail -40 "$out/$name.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$out/$name.log" | tail -2
  fi
done
exit $status

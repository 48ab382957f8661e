#!/usr/bin/env python3
"""The frame size of every async function in a Swift binary, largest first.

A caller allocates its callee's frame (its "initial context") from the task's allocator, whose
slabs hold 984 bytes and stay with the task until it ends; a connection's task keeps the slabs
of the deepest path it ever ran. Each async function has an "async function pointer" record
(its mangled name ends in `Tu`): a 32-bit relative offset to the function, then the 32-bit size
of that context. This reads the records with `nm` and `readelf` and prints sizes and demangled
names.

    python3 Benchmarks/Scripts/async_frame_sizes.py Benchmarks/.build/release/ubiquity | grep UbiquityService
"""
import struct
import subprocess
import sys

if len(sys.argv) != 2:
    sys.exit("usage: async_frame_sizes.py BINARY")
binary = sys.argv[1]
sections = []
for line in subprocess.check_output(["readelf", "-SW", binary], text=True).splitlines():
    parts = line.replace("[ ", "[").split()
    if len(parts) > 5 and parts[0].startswith("["):
        try:
            sections.append((parts[1], int(parts[3], 16), int(parts[4], 16), int(parts[5], 16)))
        except ValueError:
            pass
data = open(binary, "rb").read()


def file_offset(address):
    for name, start, offset, size in sections:
        if start <= address < start + size and name not in (".bss", ".tbss"):
            return offset + (address - start)
    return None


records = []
for line in subprocess.check_output(["nm", binary], text=True).splitlines():
    fields = line.split()
    if len(fields) == 3 and fields[2].endswith("Tu"):
        offset = file_offset(int(fields[0], 16))
        if offset is not None and offset + 8 <= len(data):
            _, size = struct.unpack_from("<iI", data, offset)
            records.append((size, fields[2]))
records.sort(reverse=True)
names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(n for _, n in records),
                       capture_output=True, text=True, check=True).stdout.splitlines()
for (size, _), name in zip(records, names):
    print(size, name.removeprefix("async function pointer to "))

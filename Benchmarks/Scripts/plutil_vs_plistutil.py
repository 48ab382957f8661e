#!/usr/bin/env python3
"""plutil against libplist's plistutil, whole processes, on the benchmarks' mixed file.

Issue 42's property-list figures: `plutil -convert` XML -> binary and binary -> XML
as whole processes (start, read, decode, encode, write, exit) on the ~10 MB
mixed property list that `plist-mixed` writes, against Debian's
`plistutil` (libplist-utils) converting the same file in the same run; plus
plutil's JSON and OpenStep conversions of the JSON-compatible variant.
Rounds are interleaved (ours, theirs, ours, ...) and medians are printed, with
MB/s of XML (or text) read or written, the ratio to plistutil, and each
program's peak resident memory against its input's size.

    cd Benchmarks && swift build -c release --product plist-mixed    # (libplist-utils is installed if missing, as root)
    # in the repository root, plutil as Packaging/install.sh (and so the Debian package) builds it:
    swift build -c release --static-swift-stdlib --product plutil --scratch-path .build-tools \
      -Xswiftc -use-ld=lld -Xswiftc -Xclang-linker -Xswiftc -no-pie \
      -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
    python3 Benchmarks/Scripts/plutil_vs_plistutil.py [ROUNDS]

The plutil measured is the one users run: the installed tool, linked statically (its calls into
the Swift runtime are direct, and it starts in 3 ms rather than 5). PLUTIL=path picks another
(`.build/release/plutil`, the default build, is 3-10% slower); PLUTIL_BEFORE=path adds the same
conversions by another build (an earlier commit) to the same interleaved run. The path measured
is printed.

Every output is checked: converting it back gives the input's bytes.
"""
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLUTIL = os.environ.get("PLUTIL", os.path.join(ROOT, ".build-tools/release/plutil"))
BEFORE = os.environ.get("PLUTIL_BEFORE")
MIXED = os.environ.get("PLIST_MIXED", os.path.join(ROOT, "Benchmarks/.build/release/plist-mixed"))
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 9


def run(argv):
    """Runs argv; returns (seconds, peak resident bytes, CPU seconds)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited with {child.returncode}")
    return elapsed, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def same(a, b):
    # In blocks: a child's peak resident memory (ru_maxrss) starts from this process's, which
    # the child shares until it runs its program, so this script must stay small. Reading two
    # 10 MB files whole made every program measured after it peak at 35 MB at least.
    return filecmp.cmp(a, b, shallow=False)


def main():
    for tool in (PLUTIL, MIXED):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} is not built (see this script's header)")
    print(f"plutil measured: {PLUTIL}" + (f", before: {BEFORE}" if BEFORE else ""))
    plistutil = shutil.which("plistutil")
    if plistutil is None and os.geteuid() == 0 and shutil.which("apt-get"):
        # The peer is Debian's libplist-utils: installed here when the script may.
        subprocess.run(["apt-get", "install", "-y", "libplist-utils"], stdout=subprocess.DEVNULL, check=False)
        plistutil = shutil.which("plistutil")
    if plistutil is None:
        sys.exit("plistutil is not installed (apt-get install -y libplist-utils)")
    work = tempfile.mkdtemp(prefix="plutil-bench.")
    try:
        files = {}
        for fmt, name in (("xml", "mixed.xml"), ("binary", "mixed.bplist"), ("json", "mixed.json"), ("openstep", "mixed.openstep")):
            files[fmt] = os.path.join(work, name)
            print(f"{name}: " + subprocess.check_output([MIXED, fmt, files[fmt]], text=True).strip())
        out = os.path.join(work, "out")
        back = os.path.join(work, "back")
        # name: (argv, input, bytes that count for MB/s, the check's argv or None)
        cases = {
            "ours xml->binary": ([PLUTIL, "-convert", "binary1", "-o", out, files["xml"]], files["xml"],
                                 [PLUTIL, "-convert", "xml1", "-o", back, out], files["xml"]),
            "plistutil xml->binary": ([plistutil, "-i", files["xml"], "-o", out, "-f", "bin"], files["xml"], None, None),
            "ours binary->xml": ([PLUTIL, "-convert", "xml1", "-o", out, files["binary"]], files["xml"],
                                 [PLUTIL, "-convert", "binary1", "-o", back, out], files["binary"]),
            "plistutil binary->xml": ([plistutil, "-i", files["binary"], "-o", out, "-f", "xml"], files["xml"], None, None),
            "ours json->binary": ([PLUTIL, "-convert", "binary1", "-o", out, files["json"]], files["json"],
                                  [PLUTIL, "-convert", "json", "-o", back, out], files["json"]),
            "ours binary->json": ([PLUTIL, "-convert", "json", "-o", out + ".b", files["json"]], files["json"], None, None),
            "ours openstep->binary": ([PLUTIL, "-convert", "binary1", "-o", out, files["openstep"]], files["openstep"], None, None),
        }
        if BEFORE:
            for name in [k for k in cases if k.startswith("ours ")]:
                argv, counted, _, _ = cases[name]
                cases[name.replace("ours", "before")] = ([BEFORE] + argv[1:], counted, None, None)
        # The JSON writer's input is binary: convert once, then time binary -> JSON.
        subprocess.check_call([PLUTIL, "-convert", "binary1", "-o", files["json"] + ".bplist", files["json"]])
        cases["ours binary->json"] = ([PLUTIL, "-convert", "json", "-o", out, files["json"] + ".bplist"], files["json"],
                                      None, None)
        if BEFORE:
            cases["before binary->json"] = ([BEFORE] + cases["ours binary->json"][0][1:], files["json"], None, None)
        times = {k: [] for k in cases}
        peaks = {k: [] for k in cases}
        cpus = {k: [] for k in cases}
        for r in range(ROUNDS):
            for name, (argv, _, check, expected) in cases.items():
                t, peak, cpu = run(argv)
                times[name].append(t)
                peaks[name].append(peak)
                cpus[name].append(cpu)
                if r == 0 and check is not None:
                    run(check)
                    if not same(back, expected):
                        sys.exit(f"{name}: converting the output back does not give the input's bytes")
        print(f"\n{ROUNDS} interleaved rounds, medians (MB = 10^6 bytes of XML or text read or written)")
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(f"(this script's own peak, a floor under every peak below: {own / 1e6:.1f} MB)")
        print(f"{'conversion':26} {'median s':>9} {'min s':>7} {'cpu s':>7} {'MB/s':>7} {'peak MB':>8} {'peak/input':>10}")
        med = {}
        for name, (argv, counted, _, _) in cases.items():
            m = statistics.median(times[name])
            med[name] = m
            size = os.path.getsize(counted)
            inp = os.path.getsize(argv[-1] if "plistutil" not in name else argv[2])
            peak = statistics.median(peaks[name])
            cpu = statistics.median(cpus[name])
            print(f"{name:26} {m:9.4f} {min(times[name]):7.4f} {cpu:7.4f} {size / m / 1e6:7.1f} {peak / 1e6:8.1f} {peak / inp:10.2f}")
        x2b = med["plistutil xml->binary"] / med["ours xml->binary"]
        b2x = med["plistutil binary->xml"] / med["ours binary->xml"]
        print(f"\nratio to plistutil: xml->binary {x2b:.1f}x (goal >= 10x), binary->xml {b2x:.2f}x (goal >= 2.5x)")
        if BEFORE:
            for name in [k for k in cases if k.startswith("ours ")]:
                print(f"{name[5:]:16} before/after: {med[name.replace('ours', 'before')] / med[name]:.2f}x")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cold `defaults read D K` against a static empty Swift program and `dconf read`.

Spawns each program N times, interleaved (so the machine's drift hits all
alike), and prints medians and ratios. Needs the staged tools, the static
empty program and dconf-cli (see the "installed · …" benchmarks):

    Packaging/install.sh --prefix /usr --destdir .build/staged
    (cd Benchmarks && swift build -c release --static-swift-stdlib \
        --product empty-program --scratch-path .build-static)
    python3 Benchmarks/Scripts/cold_reads.py [N]
"""
import os, plistlib, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
defaults = os.path.join(root, ".build/staged/usr/bin/defaults")
empty = os.path.join(root, "Benchmarks/.build-static/release/empty-program")
dconf = "/usr/bin/dconf"
runs_each = int(sys.argv[1]) if len(sys.argv) > 1 else 400

work = tempfile.mkdtemp(prefix="cold-reads-")
env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=work + "/config")
runs = {}
for n in (1000, 100_000):
    source = f"{work}/src{n}.plist"
    with open(source, "wb") as f:
        plistlib.dump({f"key{i}": i for i in range(n)}, f, fmt=plistlib.FMT_BINARY)
    # Imported by the tool, so the file is written by OpenDefaults' own writer.
    subprocess.run([defaults, "import", f"com.bench.cold{n}", source], env=env, check=True)
    runs[f"defaults {n}"] = ([defaults, "read", f"com.bench.cold{n}", "key7"], env)
    if os.access(dconf, os.X_OK):
        folder = f"{work}/dconf{n}"
        os.makedirs(folder + "/keyfiles")
        with open(folder + "/keyfiles/keys", "w") as f:
            f.write("[bench]\n" + "".join(f"key{i}={i}\n" for i in range(n)))
        subprocess.run([dconf, "compile", folder + "/db", folder + "/keyfiles"], check=True)
        with open(folder + "/profile", "w") as f:
            f.write(f"file-db:{folder}/db\n")
        runs[f"dconf {n}"] = ([dconf, "read", "/bench/key7"], dict(env, DCONF_PROFILE=folder + "/profile"))
runs["empty"] = ([empty], env)

devnull = os.open(os.devnull, os.O_WRONLY)
times = {k: [] for k in runs}
for _ in range(runs_each):
    for k, (argv, e) in runs.items():
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, e, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        os.waitpid(pid, 0)
        times[k].append(time.perf_counter() - start)
m = {k: statistics.median(v) for k, v in times.items()}
for k in runs:
    print(f"{k:16s} {m[k] * 1000:7.3f} ms   {m[k] / m['empty']:.2f}× the empty program")
for n in (1000, 100_000):
    if f"dconf {n}" in m:
        print(f"defaults / dconf at {n} keys: {m[f'defaults {n}'] / m[f'dconf {n}']:.2f}×")

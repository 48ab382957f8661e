#!/usr/bin/env python3
"""The floor of issue 41's fleet figure on this machine: `fleet_publish.py` without OpenDefaults.

Runs `fleet-floor serve` (a Hummingbird server) and `fleet-floor machines` (N machines in one
process, each with its own AsyncHTTPClient, event stream and folder), publishes ROUNDS events of
a declaration's size and measures, per machine, the time from the server's receipt of the
publish until the server holds the machine's report. Each machine, between the two, does the
file work of a durable apply (the agent's system calls, without its checks or formats) and
posts a report of the agent's size on a connection that closes 2 s after it. What remains of
`fleet_publish.py`'s figure above this floor is OpenDefaults' own (its agent, server and
`policy publish`, which this floor leaves out).

    python3 Benchmarks/Scripts/fleet_floor.py [MACHINES] [ROUNDS] [--per-process K] [--no-files]

Build first: `cd Benchmarks && swift build -c release --product fleet-floor`. The machines'
folders are on a tmpfs (/dev/shm), as `fleet_publish.py --tmpfs` has them.
"""
import os, resource, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

argv = sys.argv[1:]
per_process = None
if "--per-process" in argv:
    # --per-process K: K machines a process, as `fleet_publish.py --per-process` has them.
    at = argv.index("--per-process")
    per_process = int(argv[at + 1])
    del argv[at:at + 2]
# --no-files: the network alone (the machines do no file work).
no_files = ["--no-files"] if "--no-files" in argv else []
args = [a for a in argv if not a.startswith("--")]
machines = int(args[0]) if len(args) > 0 else 1000
rounds = int(args[1]) if len(args) > 1 else 3
here = os.path.dirname(os.path.abspath(__file__))
tool = os.environ.get("FLEET_FLOOR", os.path.join(here, "..", ".build", "release", "fleet-floor"))
if not os.path.exists(tool):
    sys.exit(f"fleet_floor: {tool} is missing: cd Benchmarks && swift build -c release --product fleet-floor")
# Every process started here may open as many files as the system lets it (a stream and, for
# 2 s after each report, a report's connection a machine, on both sides).
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
if machines * 2 + 256 > hard:
    print(f"fleet_floor: the hard limit of open files is {hard}; the server's reports beyond it wait to be accepted")
ports_file = "/proc/sys/net/ipv4/ip_local_port_range"
ports_before = open(ports_file).read().split()
if machines * 3 > int(ports_before[1]) - int(ports_before[0]) - 1000 and os.geteuid() == 0:
    with open(ports_file, "w") as f:
        f.write("1024 65535\n")
else:
    ports_before = None

work = tempfile.mkdtemp(prefix="fleet-floor-", dir="/dev/shm")
procs = []


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get(url, data=None):
    return urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=60).read().decode()


try:
    server = subprocess.Popen([tool, "serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    procs.append(server)
    url = server.stdout.readline().strip()
    if not url.startswith("http://"):
        sys.exit("fleet_floor: the server did not start")
    # The machines' complaints (each says its stream ended when it is stopped) go to a log,
    # shown when a round fails.
    agents_log = open(os.path.join(work, "machines.log"), "w+")
    step = per_process or machines
    groups = []
    for first in range(0, machines, step):
        folder = os.path.join(work, f"p{first}")
        os.mkdir(folder)
        groups.append(subprocess.Popen([tool, "machines", url, folder, str(min(step, machines - first)), *no_files],
                                       stdout=agents_log, stderr=subprocess.STDOUT))
    procs.extend(groups)
    deadline = time.time() + 120
    while int(get(url + "/results").split("\n")[0]) < machines:
        if time.time() > deadline or any(a.poll() is not None for a in groups):
            sys.exit("fleet_floor: the machines' streams did not all open")
        time.sleep(0.1)
    time.sleep(2)
    # The event as the agent receives it: a changes answer carrying the signed declaration in base64.
    event = b'{"store":"fleet.policy.bench","changes":{"revision":1,"entries":[{"key":"declaration","value":"' + b"A" * 2560 + b'"}]}}'
    before = (cpu_seconds(server.pid), sum(cpu_seconds(a.pid) for a in groups))
    for r in range(1, rounds + 1):
        started = time.time()
        get(url + "/publish", data=event)
        while True:
            lines = get(url + "/results").split("\n")[1:]
            if len([l for l in lines if l]) >= machines:
                break
            if time.time() - started > 120:
                agents_log.seek(0)
                print(agents_log.read()[-3000:])
                sys.exit(f"round {r}: only {len(lines)} of {machines} machines reported within 120 s")
            time.sleep(0.02)
        latencies = sorted(float(l) for l in lines if l)
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        print(f"round {r}: {machines} machines: reported p50 {p50:.0f} ms, p99 {p99:.0f} ms, last {latencies[-1]:.0f} ms")
        time.sleep(0.5)
    server_cpu = cpu_seconds(server.pid) - before[0]
    agents_cpu = sum(cpu_seconds(a.pid) for a in groups) - before[1]
    print(f"CPU over the rounds, per machine and revision: machines {agents_cpu / (machines * rounds) * 1000:.2f} ms, "
          f"server {server_cpu / (machines * rounds) * 1000:.2f} ms")
finally:
    for p in procs:
        p.kill()
        p.wait()
    shutil.rmtree(work, ignore_errors=True)
    if ports_before:
        with open(ports_file, "w") as f:
            f.write(f"{ports_before[0]} {ports_before[1]}\n")

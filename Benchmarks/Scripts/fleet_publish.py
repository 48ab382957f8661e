#!/usr/bin/env python3
"""Issue 41's figure: a declaration published until applied and reported by N machines.

Starts `ubiquity serve` (SQLite) in a temporary folder, creates an organisation under a CA made
by openssl, enrols N machines (each its own system root and machine id, as root) and starts an
agent for each (real processes), then publishes revisions and measures, per machine, the time
from the publish command's start until the server holds that machine's report of the revision
(the report's `Applied` date, and the wall clock until `org machines` shows all of them).

    sudo python3 Benchmarks/Scripts/fleet_publish.py [MACHINES] [ROUNDS] [--per-process K] [--tmpfs] [--perf FILE]

Uses the debug build's `ubiquity` unless UBIQUITY points at another. Prints p50, p99 and the
last machine's time per round, and the server's resident memory per idle machine.

--per-process K: K machines per agent process (`ubiquity agent --root … --root …`), each with its
own root, credential and connection; the default, 1, is a process per machine.
--perf FILE: `perf record -a -g` over the rounds alone, into FILE.
--tmpfs: the machines' roots (and the server's data) on a tmpfs (/dev/shm). Real machines each
fsync their own disk; machines simulated on one disk queue behind each other's fsyncs, which the
tmpfs takes out of the figure (the fsyncs are still made).
"""
import concurrent.futures, json, os, urllib.request, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, uuid
from datetime import datetime

argv = sys.argv[1:]
per_process = 1
if "--per-process" in argv:
    at = argv.index("--per-process")
    per_process = int(argv[at + 1])
    del argv[at:at + 2]
perf_file = None
if "--perf" in argv:
    # --perf FILE: `perf record -a -g` over the rounds only (not enrolment or start-up).
    at = argv.index("--perf")
    perf_file = os.path.abspath(argv[at + 1])
    del argv[at:at + 2]
args = [a for a in argv if not a.startswith("--")]
machines = int(args[0]) if len(args) > 0 else 50
rounds = int(args[1]) if len(args) > 1 else 5
tool = os.environ.get("UBIQUITY", os.path.abspath(".build/debug/ubiquity"))
if os.geteuid() != 0:
    sys.exit("fleet_publish: run as root (agents install profiles)")
# Thousands of machines: each holds one event stream (its organisation's store and its group's)
# and, for 2 s after each report, a connection for its reports, on the server's side and the
# agents'. The processes started here inherit a limit that fits.
import resource
need = max(4096, machines * 2 + 1024)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if need > hard >= machines + 2048:
    # The streams fit; report connections beyond the limit wait in the listen queue (the
    # server stops accepting at --max-connections), which can only make the figures slower.
    print(f"fleet_publish: the hard limit of open files is {hard}, below the {need} a report from every "
          f"machine at once would take; the server is held to {hard - 256} connections")
    need = hard
if hard < need:
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, need))
    except (ValueError, OSError):
        sys.exit(f"fleet_publish: {machines} machines need {need} open files in the server, and this system's "
                 f"hard limit is {hard}, which this process may not raise")
elif soft < need:
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
# Up to two loopback connections a machine to one server port (and ports in TIME_WAIT from
# reports): more than Linux's default range of local ports (32768-60999) past about 9,000
# machines. Widened for the run, then put back.
ports_file = "/proc/sys/net/ipv4/ip_local_port_range"
ports_before = open(ports_file).read().split()
if machines * 3 > int(ports_before[1]) - int(ports_before[0]) - 1000:
    with open(ports_file, "w") as f:
        f.write("1024 65535\n")
else:
    ports_before = None
work = tempfile.mkdtemp(prefix="fleet-bench-", dir="/dev/shm" if "--tmpfs" in sys.argv else "/var/tmp")
os.chmod(work, 0o755)
procs = []


def run(args, env=None, input=None, check=True):
    r = subprocess.run(args, env=env, input=input, capture_output=True, text=True)
    if check and r.returncode != 0:
        log = os.path.join(work, "serve.log")
        tail = open(log).read()[-3000:] if os.path.exists(log) else ""
        sys.exit(f"{' '.join(args[:3])}…: {r.stderr}\n--- the server's log:\n{tail}")
    return r


def openssl(*args):
    run(["openssl", *args])


try:
    keys = os.path.join(work, "keys")
    os.mkdir(keys)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=bench CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            "-keyout", f"{keys}/ca.key", "-out", f"{keys}/ca.pem")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=admin",
            "-keyout", f"{keys}/signer.key", "-out", f"{keys}/signer.csr")
    with open(f"{keys}/signer.ext", "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n")
    openssl("x509", "-req", "-in", f"{keys}/signer.csr", "-CA", f"{keys}/ca.pem", "-CAkey", f"{keys}/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", f"{keys}/signer.ext", "-out", f"{keys}/signer.pem")

    data = os.path.join(work, "data")
    base = dict(os.environ, HOME=work)
    org = run([tool, "org", "create", "acme", "--signing-cert", f"{keys}/ca.pem", "--create", "--data", data], env=base).stdout.splitlines()
    admin = org[org.index(next(l for l in org if l.startswith("Administrator"))) + 1]
    secret = org[org.index(next(l for l in org if l.startswith("Enrolment"))) + 1]
    def free_port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    port, metrics_port = free_port(), free_port()
    # Its log goes to a file: a pipe nobody reads would fill and stop the server.
    log = open(os.path.join(work, "serve.log"), "w+")
    server = subprocess.Popen([tool, "serve", "--port", str(port), "--data", data, "--metrics", f"127.0.0.1:{metrics_port}",
                               "--max-connections", str(max(10_240, min(machines * 2 + 256, need - 256)))], env=base,
                              stdout=log, stderr=subprocess.DEVNULL, text=True)
    procs.append(server)
    url = ""
    deadline = time.time() + 30
    while not url.endswith("\n") and time.time() < deadline:
        time.sleep(0.02)
        with open(log.name) as f:
            url = f.readline()
    url = url.strip()

    def rss_kb(pid):
        with open(f"/proc/{pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

    def cpu_seconds(pid):
        # utime + stime of the whole process, in clock ticks (fields 14 and 15 of /proc/PID/stat).
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    rss_before = rss_kb(server.pid)
    files_before = len(os.listdir(f"/proc/{server.pid}/fd"))
    roots = []
    for i in range(machines):
        root = os.path.join(work, f"m{i}")
        os.makedirs(root + "/etc")
        os.chmod(root, 0o755)
        os.chmod(root + "/etc", 0o755)
        with open(root + "/etc/machine-id", "w") as f:
            f.write(uuid.uuid4().hex + "\n")
        roots.append((root, dict(os.environ, HOME=root, OPENDEFAULTS_SYSTEM_ROOT=root)))
    # Enrolments, a process each, two at a time.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda r: run([tool, "enroll", url, "--group", "bench"], env=r[1], input=secret + "\n"), roots))
    if per_process == 1:
        for root, env in roots:
            procs.append(subprocess.Popen([tool, "agent"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    else:
        for first in range(0, machines, per_process):
            flags = [f for root, _ in roots[first:first + per_process] for f in ("--root", root)]
            procs.append(subprocess.Popen([tool, "agent", *flags], env=dict(os.environ, HOME=work),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    office = dict(os.environ, HOME=os.path.join(work, "office"))
    os.mkdir(office["HOME"])
    run([tool, "login", url], env=office, input=admin + "\n")

    def reports():
        out = run([tool, "org", "machines", "acme", "--output", "json", "--data", data], env=base).stdout
        return json.loads(out)

    def metric(name, *labels):
        # A server busy with thousands of machines may take its time to answer.
        for attempt in range(10):
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=30).read().decode()
                break
            except (TimeoutError, OSError):
                if attempt == 9:
                    raise
        line = next((l for l in text.splitlines() if l.startswith(name) and all(x in l for x in labels)), None)
        return int(float(line.rsplit(" ", 1)[1])) if line else 0

    # Wait until every agent reported once (they report at start), by the server's count.
    deadline = time.time() + 120 + machines / 20
    while time.time() < deadline and metric("ubiquity_fleet_reports_total") < machines:
        time.sleep(0.2)
    if metric("ubiquity_fleet_reports_total") < machines:
        sys.exit(f"only {metric('ubiquity_fleet_reports_total')} of {machines} machines reported at start")
    # Idle: what the machines keep open once their first reports are done (an agent closes its
    # report connection 2 s after a report).
    time.sleep(5)
    # A machine whose stream was refused in the first wave (the server at its connection cap)
    # comes back after its backoff: the idle figure waits, up to 60 s, for a stream a machine.
    streams_deadline = time.time() + 60
    while time.time() < streams_deadline and len(os.listdir(f"/proc/{server.pid}/fd")) < files_before + machines:
        time.sleep(1)
    time.sleep(2)
    rss_idle = rss_kb(server.pid)
    files_idle = len(os.listdir(f"/proc/{server.pid}/fd"))

    cpu_before = (cpu_seconds(server.pid), sum(cpu_seconds(p.pid) for p in procs[1:]))
    perf = None
    if perf_file:
        if os.path.exists(perf_file):
            os.remove(perf_file)
        perf = subprocess.Popen(["perf", "record", "-a", "-g", "-F", "999", "-o", perf_file],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The rounds start once perf has written its file's header (it is recording then).
        perf_deadline = time.time() + 30
        while not (os.path.exists(perf_file) and os.path.getsize(perf_file) > 0):
            if perf.poll() is not None or time.time() > perf_deadline:
                sys.exit(f"fleet_publish: perf record did not start (exit status {perf.poll()})")
            time.sleep(0.05)
    for r in range(1, rounds + 1):
        profile = os.path.join(work, f"p{r}.mobileconfig")
        with open(profile, "w") as f:
            f.write(f"""<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
<key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>com.example.bench</string>
<key>PayloadUUID</key><string>{uuid.uuid4()}</string><key>PayloadVersion</key><integer>1</integer>
<key>PayloadScope</key><string>System</string><key>PayloadContent</key><array><dict>
<key>PayloadType</key><string>com.apple.ManagedClient.preferences</string><key>PayloadIdentifier</key><string>com.example.bench.p</string>
<key>PayloadUUID</key><string>{uuid.uuid4()}</string><key>PayloadVersion</key><integer>1</integer>
<key>PayloadContent</key><dict><key>com.example.bench</key><dict><key>Forced</key><array><dict>
<key>mcx_preference_settings</key><dict><key>Round</key><integer>{r}</integer></dict></dict></array></dict></dict>
</dict></array></dict></plist>""")
        started = time.time()
        run([tool, "policy", "publish", "--group", "bench", "--signing-cert", f"{keys}/signer.pem",
             "--signing-key", f"{keys}/signer.key", profile], env=office)
        published = time.time() - started
        # Until the server counts every machine current, by its metrics (a GET; `org machines`, a
        # process reading every machine's store, polled this often would take a core from the agents).
        current = 0
        while current < machines:
            if time.time() - started > 300:
                sys.exit(f"round {r}: only {current} of {machines} machines reported within 300 s")
            time.sleep(0.02)
            current = metric("ubiquity_fleet_machines{", 'group="bench"', 'state="current"')
        last = time.time() - started
        got = reports()
        done = [m for m in got for g in m["groups"] if g["name"] == "bench" and g.get("revision") == r]
        if len(done) != machines:
            sys.exit(f"round {r}: the metrics count {machines} current, org machines {len(done)}")
        applied = sorted(datetime.fromisoformat(g["applied"].replace("Z", "+00:00")).timestamp() - started
                         for m in got for g in m["groups"] if g["name"] == "bench")
        p50 = statistics.median(applied)
        p99 = applied[min(len(applied) - 1, int(len(applied) * 0.99))]
        print(f"round {r}: {machines} machines: applied p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; "
              f"all reported (counted by the server's metrics) after {last * 1000:.0f} ms; "
              f"the publish command took {published * 1000:.0f} ms")
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    # CPU over the rounds. The server's includes answering this script's metrics polls (one GET
    # every 20 ms); `org machines` reads the database in a process of its own, not counted.
    server_cpu = cpu_seconds(server.pid) - cpu_before[0]
    agents_cpu = sum(cpu_seconds(p.pid) for p in procs[1:]) - cpu_before[1]
    print(f"CPU over the rounds, per machine and revision: agents {agents_cpu / (machines * rounds) * 1000:.2f} ms, "
          f"server {server_cpu / (machines * rounds) * 1000:.2f} ms")
    agents_kb = sum(rss_kb(p.pid) for p in procs[1:])
    print(f"agents: {len(procs) - 1} processes, {agents_kb // 1024} MB resident in all ({agents_kb / machines:.0f} kB a machine)")
    print(f"server open files with the machines idle: {files_idle} ({files_before} before the agents)")
    print(f"server resident memory: {rss_before} kB before the agents, {rss_idle} kB with {machines} idle agents "
          f"connected: {(rss_idle - rss_before) / machines:.1f} kB per idle machine")
finally:
    if ports_before:
        with open(ports_file, "w") as f:
            f.write(" ".join(ports_before) + "\n")
    for p in procs[1:]:
        p.send_signal(signal.SIGKILL)
    # The server is stopped as systemd would (a profiler wrapped around it then writes its data).
    if procs:
        procs[0].send_signal(signal.SIGTERM)
        try:
            procs[0].wait(timeout=20)
        except subprocess.TimeoutExpired:
            procs[0].send_signal(signal.SIGKILL)
    shutil.rmtree(work, ignore_errors=True)

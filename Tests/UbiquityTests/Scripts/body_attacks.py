"""Attacks on the sync server's request bodies and connections, for
HostileInputTests. Prints one JSON object with what was observed.

  body_attacks.py PORT PID TOKEN unauthenticated N BYTES
      N connections post a commit declaring 4,000,000 bytes without a token,
      send BYTES of it and stop; how many were answered 401 (within 5 s),
      how many were then closed by the server, the server's resident memory
      with all of them open, and how long a normal request took meanwhile.
  body_attacks.py PORT PID TOKEN slow SECONDS
      An authenticated commit declaring 1,000 bytes sends 10, then one byte
      every 0.5 s for at most SECONDS: the status and when it came.
  body_attacks.py PORT PID TOKEN idle N
      N connections that send nothing; then a normal request: its status and
      time, and how many of the idle connections the server closed.
  body_attacks.py PORT PID TOKEN combined BOMB
      All at once for 5 s: 400 idle connections, 300 unauthenticated 1 MB
      bodies, 2 threads committing the expanding value in file BOMB again and
      again; the server's peak resident memory (sampled every 20 ms) and 20
      normal requests' statuses and times.
"""
import base64, json, socket, sys, threading, time

port, pid, token, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]

def rss_mb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return -1

def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s

def normal_request():
    start = time.monotonic()
    try:
        s = connect()
        s.settimeout(10)
        s.sendall(f"GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    except OSError as e:
        status = -1
    return status, (time.monotonic() - start) * 1000

def status_and_close(s, wait):
    """The status of the answer on s (0: none in `wait` s) and whether s was then closed."""
    s.settimeout(wait)
    data = b""
    deadline = time.monotonic() + wait
    closed = False
    while time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, closed

def unauthenticated_bodies(n, size):
    head = (b"POST /v1/stores/com.example.attack/commit HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 4000000\r\n\r\n")
    body = b"x" * size
    sockets = []
    for _ in range(n):
        try:
            s = connect()
        except OSError:
            continue
        s.setblocking(False)
        try:
            s.send(head)
            sent = 0
            while sent < len(body):
                try:
                    sent += s.send(body[sent:sent + 65536])
                except BlockingIOError:
                    time.sleep(0.001)
                    if sent == 0:
                        continue
                    break
                except OSError:
                    break
        except OSError:
            pass
        sockets.append(s)
    return sockets

if mode == "combined":
    bomb = base64.b64encode(open(sys.argv[5], "rb").read()).decode()
    commit = ('{"changes":[{"key":"bomb","base":0,"value":"%s"}]}' % bomb).encode()
    stop = threading.Event()
    peak = [0.0]
    bomb_statuses = []
    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.02)
    def bombs():
        while not stop.is_set():
            try:
                s = connect()
                s.sendall((f"POST /v1/stores/com.example.bomb/commit HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: {len(commit)}\r\nConnection: close\r\n\r\n").encode() + commit)
                status, _ = status_and_close(s, 10)
                bomb_statuses.append(status)
                s.close()
            except OSError:
                bomb_statuses.append(-1)
    threads = [threading.Thread(target=sample)] + [threading.Thread(target=bombs) for _ in range(2)]
    for t in threads:
        t.start()
    idle = []
    for _ in range(400):
        try:
            idle.append(connect())
        except OSError:
            break
    bodies = unauthenticated_bodies(300, 1 << 20)
    normals = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline or len(normals) < 20:
        normals.append(normal_request())
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join()
    for s in idle + bodies:
        s.close()
    times = sorted(ms for _, ms in normals)
    print(json.dumps({"peak_rss_mb": peak[0], "normal_ok": sum(1 for st, _ in normals if st == 200), "normals": len(normals),
                      "normal_median_ms": times[len(times) // 2], "normal_max_ms": times[-1],
                      "bombs": len(bomb_statuses), "bombs_refused": sum(1 for st in bomb_statuses if st == 413)}))
elif mode == "unauthenticated":
    n, size = int(sys.argv[5]), int(sys.argv[6])
    sockets = unauthenticated_bodies(n, size)
    rss = rss_mb()
    normal, ms = normal_request()
    answered = closed = 0
    for s in sockets:
        s.setblocking(True)
        status, was_closed = status_and_close(s, 5 if answered == 0 else 1)
        answered += status == 401
        closed += was_closed
        s.close()
    print(json.dumps({"answered401": answered, "closed": closed, "rss_mb": rss, "normal": normal, "normal_ms": ms}))
elif mode == "slow":
    seconds = float(sys.argv[5])
    s = connect()
    s.sendall((f"POST /v1/stores/com.example.slow/commit HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
               "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n").encode() + b"{" * 10)
    start = time.monotonic()
    s.settimeout(0.5)
    data = b""
    while time.monotonic() - start < seconds:
        try:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                break
        except socket.timeout:
            try:
                s.send(b" ")
            except OSError:
                break
        except OSError:
            break
    elapsed = time.monotonic() - start
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    print(json.dumps({"status": status, "seconds": elapsed}))
elif mode == "idle":
    n = int(sys.argv[5])
    sockets = []
    for _ in range(n):
        try:
            sockets.append(connect())
        except OSError:
            break
    time.sleep(0.5)
    normal, ms = normal_request()
    closed = 0
    for s in sockets:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    print(json.dumps({"opened": len(sockets), "closed": closed, "normal": normal, "normal_ms": ms}))

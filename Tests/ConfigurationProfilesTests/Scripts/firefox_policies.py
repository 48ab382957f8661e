#!/usr/bin/env python3
"""Starts headless Firefox (Debian's firefox-esr) with a new profile and asks it, through its
built-in Marionette protocol (no geckodriver), which enterprise policies are active and what page
it opened first. Prints one JSON object:
  {"status": <Services.policies.status: 1 active, 0 inactive, 2 failed>,
   "policies": {name: value}, "startup_url": <the first tab's URL once loaded>}
Usage: firefox_policies.py WORK_FOLDER [EXPECTED_START_URL]
Run it inside a mount namespace whose /etc holds the policies to check."""
import json, os, socket, subprocess, sys, time

work = sys.argv[1]
expected_start = sys.argv[2] if len(sys.argv) > 2 else None
profile = os.path.join(work, "profile")
os.makedirs(profile, exist_ok=True)
with open(os.path.join(profile, "user.js"), "w") as f:
    f.write('user_pref("marionette.port", 0);\n')
env = dict(os.environ, HOME=work, TMPDIR=work, XDG_CACHE_HOME=work + "/cache", XDG_CONFIG_HOME=work + "/config",
           MOZ_CRASHREPORTER_DISABLE="1")
firefox = next(p for p in ("/usr/bin/firefox-esr", "/usr/bin/firefox") if os.path.exists(p))
proc = subprocess.Popen([firefox, "--headless", "--marionette", "--remote-allow-system-access", "--no-remote", "--profile", profile],
                        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    port_file = os.path.join(profile, "MarionetteActivePort")
    deadline = time.time() + 90
    port = None
    while time.time() < deadline and port is None:
        if proc.poll() is not None:
            sys.exit("firefox exited with status %d before Marionette listened" % proc.returncode)
        try:
            text = open(port_file).read().strip()
            port = int(text) if text else None
        except (OSError, ValueError):
            pass
        if port is None:
            time.sleep(0.1)
    if port is None:
        sys.exit("Marionette did not listen within 90 s")
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    buffer = b""

    def receive():
        global buffer
        while b":" not in buffer:
            chunk = sock.recv(65536)
            if not chunk:
                sys.exit("Marionette closed the connection")
            buffer += chunk
        length, _, rest = buffer.partition(b":")
        length = int(length)
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                sys.exit("Marionette closed the connection")
            rest += chunk
        buffer = rest[length:]
        return json.loads(rest[:length])

    receive()  # the greeting: {"applicationType": "gecko", "marionetteProtocol": 3}
    counter = [0]

    def command(name, params):
        counter[0] += 1
        body = json.dumps([0, counter[0], name, params]).encode()
        sock.sendall(str(len(body)).encode() + b":" + body)
        reply = receive()
        if reply[2] is not None:
            sys.exit("%s failed: %s" % (name, reply[2]))
        return reply[3]

    command("WebDriver:NewSession", {"capabilities": {}})
    command("Marionette:SetContext", {"value": "chrome"})
    policies = command("WebDriver:ExecuteScript", {"script": """
        return {status: Services.policies.status, policies: Services.policies.getActivePolicies() || {}};""", "args": []})["value"]
    command("Marionette:SetContext", {"value": "content"})
    url = command("WebDriver:GetCurrentURL", {})["value"]
    # The first tab loads as the browser starts: wait for it to leave about:blank (when a page is expected).
    deadline = time.time() + 30
    while expected_start and url != expected_start and time.time() < deadline:
        time.sleep(0.1)
        url = command("WebDriver:GetCurrentURL", {})["value"]
    print(json.dumps({"status": policies["status"], "policies": policies["policies"], "startup_url": url}))
    try:
        command("Marionette:Quit", {"flags": ["eForceQuit"]})
    except SystemExit:
        pass
finally:
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()

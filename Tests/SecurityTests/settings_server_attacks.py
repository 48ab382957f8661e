#!/usr/bin/env python3
"""Attacks on a real `settings serve`, over real sockets.

usage: settings_server_attacks.py PRODUCTS_DIR BUNDLE

Each check is an attack from issue 12 that worked before the fix: a forged
cross-site form, DNS rebinding, framing, a NUL in an image name, a symlink
in a bundle, a flood of idle connections, a connection that never finishes
its header, and a server beyond loopback without its token. Exit 0 and
"N checks passed" when every attack is refused; nothing may be written.
"""
import os, re, shutil, socket, subprocess, sys, time
sys.dont_write_bytecode = True  # nothing left in the source tree (no __pycache__)
from settings_harness import DOMAIN, Harness

BIN, BUNDLE = sys.argv[1], sys.argv[2]
harness = Harness(BIN, "settings-attacks-")
check, serve, request, stored, home, env = harness.check, harness.serve, harness.request, harness.stored, harness.home, harness.env


# A bundle copy with a planted symlink to /etc/passwd, served without installing.
bundle = home + "/Planted.bundle"
shutil.copytree(BUNDLE, bundle)
os.symlink("/etc/passwd", bundle + "/passwd.png")
base, _, main = serve("--bundle", bundle, "--domain", DOMAIN, "--idle-timeout", "2", "--max-connections", "64")
page = "/apps/" + DOMAIN

status, headers, body = request(base, "GET", page)
check(status == 200, "the app's own page is served")
token = re.search(r'name="token" value="([0-9a-f]+)"', body)
check(token is not None, "the pane's form carries a token")
token = token.group(1) if token else ""
check("frame-ancestors 'none'" in headers.get("content-security-policy", ""), "CSP forbids framing")
check(headers.get("x-frame-options") == "DENY", "X-Frame-Options: DENY")

# Cross-site request forgery: every variant is refused with 403 and writes nothing.
forgeries = [
    ({"Origin": "http://evil.example"}, "action=apply&value:username=evil1"),
    ({"Origin": "http://evil.example"}, "token=%s&action=apply&value:username=evil2" % token),
    ({"Origin": "null"}, "token=%s&action=apply&value:username=evil3" % token),
    ({"Sec-Fetch-Site": "cross-site"}, "token=%s&action=apply&value:username=evil4" % token),
    ({"Sec-Fetch-Site": "same-site"}, "token=%s&action=apply&value:username=evil5" % token),
    ({}, "action=apply&value:username=evil6"),
    ({}, "token=%s%s&action=apply&value:username=evil7" % (token[:-1], "1" if token[-1:] == "0" else "0")),
    ({"Origin": "http://evil.example"}, "action=reset"),
]
for headers_, form in forgeries:
    status, _, body = request(base, "POST", page, headers_, form)
    check(status == 403 and "Nothing was changed" in body, "forged post %r %r refused with 403 (got %d)" % (headers_, form[:30], status))
check(stored("username") is None, "no forged post wrote anything")

# The app's own form (same origin, token) still works.
status, headers, _ = request(base, "POST", page, {"Origin": base, "Sec-Fetch-Site": "same-origin"},
                             "token=%s&action=apply&value:username=ada" % token)
check(status == 303, "the app's own form is accepted (got %d)" % status)
check(stored("username") == "ada", "and written")

# DNS rebinding: a foreign Host is answered 421 without the page, and its posts write nothing.
status, _, body = request(base, "GET", page, host="evil.example")
check(status == 421 and "ada" not in body, "foreign Host refused (got %d)" % status)
status, _, _ = request(base, "POST", page, {"Origin": "http://evil.example"}, "token=%s&action=apply&value:username=rebound" % token, host="evil.example")
check(status == 421 and stored("username") == "ada", "foreign Host post refused and nothing written")
status, _, _ = request(base, "GET", page, host="localhost:1")
check(status == 200, "localhost is an allowed name")

# Bundle files: NUL in the name, and a link out of the bundle.
status, _, body = request(base, "GET", page + "/image?name=Root.plist%00.png")
check(status == 404 and "PreferenceSpecifiers" not in body, "image name with NUL refused (got %d)" % status)
status, _, body = request(base, "GET", page + "/image?name=passwd.png")
check(status == 404 and "root:" not in body, "symlink to /etc/passwd not served (got %d)" % status)
status, _, _ = request(base, "GET", page + "/image?name=..%2FRoot.plist.png")
check(status == 404, "image name with .. refused")

# `settings install` refuses a bundle whose link leads outside it.
r = subprocess.run([BIN + "/settings", "install", bundle, "--domain", "org.example.Planted"], env=env, capture_output=True, text=True)
check(r.returncode != 0 and "outside the bundle" in r.stderr, "install refuses a link out of the bundle: %s" % r.stderr.strip())
check(not os.path.exists(home + "/data/settings-bundles/org.example.Planted/Settings.bundle"), "and installs nothing")

# A connection that never finishes its header is closed by the idle timeout.
hostport = base.split("//")[1]
h, port = hostport.rsplit(":", 1)
s = socket.create_connection((h, int(port)))
s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
s.settimeout(8)
start = time.time()
try:
    closed = s.recv(1) == b""
except (socket.timeout, ConnectionResetError):
    closed = False if time.time() - start >= 8 else True
check(closed and time.time() - start < 7, "a partial header is closed after the idle timeout (%.1fs)" % (time.time() - start))
s.close()

# A flood of idle connections does not starve a real request.
flood = []
for _ in range(400):
    try:
        c = socket.create_connection((h, int(port)), timeout=2)
        c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        flood.append(c)
    except OSError:
        break
start = time.time()
try:
    status, _, _ = request(base, "GET", page)
except Exception as e:
    status = str(e)
check(status == 200 and time.time() - start < 3, "a real request is served during a flood of %d idle connections (%s in %.2fs)" % (len(flood), status, time.time() - start))
for c in flood:
    c.close()

# The defaults, not the fast settings above: at most 256 connections (the
# longest idle is closed to make room) and 10 s of idleness.
dbase, _, _ = serve("--bundle", bundle, "--domain", DOMAIN)
dh, dport = dbase.split("//")[1].rsplit(":", 1)


def is_closed(c, wait=0.5):
    c.settimeout(wait)
    try:
        return c.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


oldest = socket.create_connection((dh, int(dport)), timeout=5)
oldest.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
time.sleep(0.2)
idle = []
for _ in range(255):  # with `oldest`: 256, the cap
    c = socket.create_connection((dh, int(dport)), timeout=5)
    c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    idle.append(c)
time.sleep(0.5)
check(not is_closed(oldest, 0.2), "256 idle connections are kept (the default cap)")
status, _, _ = request(dbase, "GET", page)
check(status == 200, "a request beyond the 256th is served (%s)" % status)
check(is_closed(oldest, 2), "the longest idle connection was closed to make room")
check(not any(is_closed(c, 0.01) for c in idle[-10:]), "the most recently opened idle connections were not")
for c in idle:
    c.close()
lazy = socket.create_connection((dh, int(dport)), timeout=5)
lazy.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
start = time.time()
check(not is_closed(lazy, 8), "a partial header is not closed before the default 10 s idle timeout")
check(is_closed(lazy, 10), "it is closed after it (%.1f s)" % (time.time() - start))
lazy.close()

# Beyond loopback, in plain HTTP asked for by name (HTTPS, and the refusal without --insecure, are
# settings_server_tls.py's): a token is required; the printed address grants it through a cookie.
wide, url, p = serve("--host", "0.0.0.0", "--insecure", "--bundle", bundle, "--domain", DOMAIN)
local = "http://127.0.0.1:" + wide.rsplit(":", 1)[1]
check(url is not None and "?token=" in url, "beyond loopback the printed address carries a token")
status, _, body = request(local, "GET", page)
check(status == 401, "without the token: 401 (got %d)" % status)
status, headers, _ = request(local, "GET", "/?token=" + url.split("token=")[1])
cookie = headers.get("set-cookie", "")
check(status == 303 and "HttpOnly" in cookie and "SameSite=Strict" in cookie, "the token sets an HttpOnly SameSite cookie")
status, _, body = request(local, "GET", page, {"Cookie": cookie.split(";")[0]})
check(status == 200, "with the cookie: 200 (got %d)" % status)
status, _, _ = request(local, "GET", page, {"Cookie": "settings_access=wrong"})
check(status == 401, "a wrong cookie: 401")
with open(home + "/token", "w") as f:
    f.write("my-own-token-1234567890\n")
wide2, url2, _ = serve("--host", "0.0.0.0", "--insecure", "--token-file", home + "/token")
check(url2 is not None and url2.endswith("token=my-own-token-1234567890"), "--token-file sets the token")

harness.finish()

#!/usr/bin/env python3
"""`settings serve` over HTTPS, beyond loopback, over real sockets.

usage: settings_server_tls.py PRODUCTS_DIR BUNDLE OPENSSL

The brief's rule for anything that listens: beyond loopback, authentication
and TLS. Before this script's checks, `settings serve --host 0.0.0.0` served
plain HTTP (the access token and every setting readable on the network) and
had no way to serve HTTPS. Checked here, with certificates openssl makes:
plain HTTP beyond loopback refused at start unless --insecure; HTTPS with a
certificate that a client verifies; the access cookie `Secure`; a form posted
with an `http://` Origin to the HTTPS server refused; plain HTTP to the HTTPS
port answered with nothing; certificate and key files that cannot be used
refused at start, naming the file, without a prompt or a hang. Exit 0 and
"N checks passed" when every check holds.
"""
import http.client, re, socket, ssl, subprocess, sys
sys.dont_write_bytecode = True  # nothing left in the source tree (no __pycache__)
from settings_harness import DOMAIN, Harness

BIN, BUNDLE, OPENSSL = sys.argv[1], sys.argv[2], sys.argv[3]
harness = Harness(BIN, "settings-tls-")
check, serve, request, stored, home, settings = harness.check, harness.serve, harness.request, harness.stored, harness.home, harness.refused_start


def openssl(*args):
    r = subprocess.run([OPENSSL, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    if r.returncode != 0:
        raise SystemExit("openssl %s failed: %s" % (args[0], r.stderr))


cert, key = home + "/cert.pem", home + "/key.pem"
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert)
other_cert, other_key = home + "/other-cert.pem", home + "/other-key.pem"
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=other",
        "-keyout", other_key, "-out", other_cert)
encrypted = home + "/encrypted-key.pem"
openssl("genpkey", "-algorithm", "RSA", "-aes256", "-pass", "pass:secret", "-out", encrypted)
# Requests verify the server's certificate against the one made here.
harness.tls_context = ssl.create_default_context(cafile=cert)


# Beyond loopback, plain HTTP is refused at start unless asked for by name.
r = settings("--host", "0.0.0.0")
check(r.returncode == 64 and "--tls-cert" in r.stderr and "--insecure" in r.stderr,
      "plain HTTP beyond loopback refused at start (%d: %s)" % (r.returncode, r.stderr.strip()))
r = settings("--host", "0.0.0.0", "--no-auth")
check(r.returncode == 64 and "--insecure" in r.stderr, "--no-auth does not stand for --insecure (%d)" % r.returncode)
r = settings("--host", "0.0.0.0", "--tls-cert", cert)
check(r.returncode == 64 and "--tls-key" in r.stderr, "--tls-cert without --tls-key refused (%d)" % r.returncode)

# Files that cannot be used: refused at start, the file named, exit 1, no prompt for a passphrase.
bad = [
    (("--tls-cert", home + "/missing.pem", "--tls-key", key), home + "/missing.pem", "cannot be read"),
    (("--tls-cert", key, "--tls-key", key), key, "no PEM certificate"),
    (("--tls-cert", cert, "--tls-key", cert), cert, "no unencrypted PEM private key"),
    (("--tls-cert", cert, "--tls-key", encrypted), encrypted, "no unencrypted PEM private key"),
    (("--tls-cert", cert, "--tls-key", other_key), other_key, "is not the private key of the certificate"),
]
for args, named, why in bad:
    r = settings("--host", "0.0.0.0", *args)
    check(r.returncode == 1 and named in r.stderr and why in r.stderr,
          "unusable TLS files %r refused naming %s (%d: %s)" % (args, named, r.returncode, r.stderr.strip()))

# HTTPS beyond loopback: the printed address is https and carries the access token.
base, url, main = serve("--host", "0.0.0.0", "--tls-cert", cert, "--tls-key", key,
                        "--bundle", BUNDLE, "--domain", DOMAIN)
port = base.rsplit(":", 1)[1]
local = "https://127.0.0.1:" + port
check(base.startswith("https://") and url is not None and "?token=" in url,
      "beyond loopback with a certificate the address is https with a token (%s)" % url)
url = url or ""
access = url.split("token=")[1] if "token=" in url else ""

# The certificate is verified by a client that trusts it, and the token sets a Secure cookie.
status, headers, _ = request(local, "GET", "/?token=" + access)
cookie = headers.get("set-cookie", "")
check(status == 303 and "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" in cookie,
      "the token sets an HttpOnly SameSite Secure cookie (%d %r)" % (status, cookie))
jar = {"Cookie": cookie.split(";")[0]}
page = "/apps/" + DOMAIN
status, _, _ = request(local, "GET", page)
check(status == 401, "without the cookie: 401 (got %d)" % status)
status, _, body = request(local, "GET", page, jar)
check(status == 200, "with the cookie: 200 (got %d)" % status)
form = re.search(r'name="token" value="([0-9a-f]+)"', body)
form = form.group(1) if form else ""
check(form != "", "the pane's form carries a token")

# Bound to every address without --allow-host: this machine's own names, and no other (421).
machine = socket.gethostname().lower()
status, _, _ = request(local, "GET", page, jar, host="%s:%s" % (machine, port))
check(status == 200, "this machine's host name is answered (%s: %d)" % (machine, status))
status, _, body = request(local, "GET", page, jar, host="evil.example:" + port)
check(status == 421 and "ada" not in body, "another Host is refused with 421 (got %d)" % status)

# A form posted with an http:// Origin to the HTTPS server is refused; https:// is the app's own.
status, _, body = request(local, "POST", page, dict(jar, Origin="http://127.0.0.1:" + port),
                          "token=%s&action=apply&value:username=downgraded" % form)
check(status == 403 and stored("username") is None, "an http:// Origin refused by the HTTPS server (got %d)" % status)
status, _, _ = request(local, "POST", page, dict(jar, Origin=local, **{"Sec-Fetch-Site": "same-origin"}),
                       "token=%s&action=apply&value:username=ada" % form)
check(status == 303 and stored("username") == "ada", "the app's own form over HTTPS is accepted and written (got %d)" % status)

# Plain HTTP to the HTTPS port gets no HTTP answer (the token never crosses in the clear).
s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
s.sendall(("GET /?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n" % (access, port)).encode())
answer = b""
try:
    while len(answer) < 65536:
        chunk = s.recv(4096)
        if not chunk:
            break
        answer += chunk
except (socket.timeout, ConnectionResetError):
    pass
s.close()
check(not answer.startswith(b"HTTP/") and b"Set-Cookie" not in answer, "plain HTTP to the HTTPS port is not answered in HTTP (%r)" % answer[:40])

# A client that does not trust the certificate fails its handshake.
untrusted = ssl.create_default_context()
try:
    c = http.client.HTTPSConnection("127.0.0.1", int(port), timeout=10, context=untrusted)
    c.request("GET", "/")
    c.getresponse()
    check(False, "a client that does not trust the certificate is not served")
except ssl.SSLError:
    check(True, "a client that does not trust the certificate fails its handshake")

# Plain HTTP beyond loopback, asked for by name: served, with a warning on standard error.
base2, url2, p2 = serve("--host", "0.0.0.0", "--insecure")
check(base2.startswith("http://") and url2 is not None and "?token=" in url2, "--insecure serves plain HTTP with a token (%s)" % url2)

harness.stop()
warning = p2.stderr.read()
check("--insecure" in warning and "readable" in warning, "--insecure warns on standard error (%r)" % warning[-200:])
harness.finish()

"""What the scripts that attack a real `settings serve` share: a throw-away home, the servers
they start (killed at the end), requests with a Host of their choosing over HTTP or HTTPS,
what `defaults` then reads, and the checks' tally.

    h = Harness(products_dir, "settings-attacks-")
    base, url, process = h.serve("--bundle", bundle, "--domain", DOMAIN)
    status, headers, body = h.request(base, "GET", "/")
    h.check(status == 200, "the first page is served")
    h.finish()   # kills the servers, removes the home, exits 1 naming each failed check
"""
import http.client, os, re, shutil, subprocess, sys, tempfile

DOMAIN = "com.example.AppSettings"


class Harness:
    def __init__(self, products, prefix):
        self.bin = products
        self.home = tempfile.mkdtemp(prefix=prefix)
        self.env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=self.home + "/config",
                        XDG_DATA_HOME=self.home + "/data")
        self.servers = []
        self.passed = 0
        self.failures = []
        self.tls_context = None  # an ssl.SSLContext for https:// bases

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what, flush=True)

    def serve(self, *extra):
        """Starts `settings serve --port 0 EXTRA...`: (scheme://host:port, the printed address
        when it carries more than the origin, else None, the process)."""
        p = subprocess.Popen([self.bin + "/settings", "serve", "--port", "0", *extra], env=self.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.servers.append(p)
        line = p.stdout.readline()
        m = re.search(r"(https?://[^/\s]+)(/\S*)?", line)
        if not m:
            raise SystemExit("server did not print its address: %r %s" % (line, p.stderr.read()))
        return m.group(1), (m.group(0) if m.group(2) else None), p

    def refused_start(self, *args):
        """A `settings serve` expected to refuse to start (one still serving after 30 s did not)."""
        try:
            return subprocess.run([self.bin + "/settings", "serve", "--port", "0", *args], env=self.env,
                                  capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, -1, "", "still serving after 30 s")

    def request(self, base, method, path, headers=None, body=None, host=None):
        """(status, headers by lowercased name, body) of one request to BASE, whose Host is
        HOST (the base's own by default); a body is sent as a form."""
        scheme, hostport = base.split("://")
        h, port = hostport.rsplit(":", 1)
        if scheme == "https":
            c = http.client.HTTPSConnection(h, int(port), timeout=10, context=self.tls_context)
        else:
            c = http.client.HTTPConnection(h, int(port), timeout=10)
        c.putrequest(method, path, skip_host=True)
        c.putheader("Host", host or hostport)
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        data = body.encode() if body is not None else None
        if data is not None:
            c.putheader("Content-Type", "application/x-www-form-urlencoded")
            c.putheader("Content-Length", str(len(data)))
        c.endheaders(data)
        r = c.getresponse()
        out = (r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read().decode("utf-8", "replace"))
        c.close()
        return out

    def stored(self, key, domain=DOMAIN):
        """What `defaults read DOMAIN KEY` prints, or None when it has no value."""
        r = subprocess.run([self.bin + "/defaults", "read", domain, key], env=self.env, capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None

    def stop(self):
        for p in self.servers:
            p.kill()
            p.wait()

    def finish(self):
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)
        if self.failures:
            print("%d checks passed, %d failed" % (self.passed, len(self.failures)))
            sys.exit(1)
        print("%d checks passed" % self.passed)

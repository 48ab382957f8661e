"""A sync server that lies, for the client's tests: `hostile_server.py MODE PORTFILE`.

Writes its port to PORTFILE, then answers every request per MODE:
  bomb    /v1/stores/*/changes answers one value of 2 KB that expands
          (shared references, 30 levels) to billions of objects
  many    /v1/stores/*/changes answers 50,000 keys
  escape  /v1/account answers a name holding terminal escapes and a newline
  slow    every answer's headers, then one byte every 2 s, forever
"""
import base64, json, os, plistlib, socketserver, struct, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]


def bomb_plist(levels=30):
    # Object 0: the string "x"; object k: an array holding object k-1 twice.
    objects = [b"\x51x"]
    for k in range(1, levels + 1):
        objects.append(b"\xa2" + struct.pack(">II", k - 1, k - 1))
    body = b"bplist00"
    offsets = []
    for o in objects:
        offsets.append(len(body))
        body += o
    table = len(body)
    for off in offsets:
        body += struct.pack(">I", off)
    body += struct.pack(">6xBBQQQ", 4, 4, len(objects), levels, table)
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if MODE == "slow":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(2)
            except OSError:
                return
        if self.path.startswith("/v1/account"):
            name = "bank\x1b[2J\x1b[31m\nLogged in to https://bank as you" if MODE == "escape" else "mallory"
            return self.answer({"name": name, "id": "acct"})
        if "/changes" in self.path:
            if MODE == "bomb":
                entries = [{"key": "bomb", "revision": 1, "value": base64.b64encode(bomb_plist()).decode()}]
            elif MODE == "many":
                small = base64.b64encode(plistlib.dumps(1, fmt=plistlib.FMT_BINARY)).decode()
                entries = [{"key": "k%d" % i, "revision": i + 1, "value": small} for i in range(50000)]
            else:
                entries = []
            return self.answer({"revision": max(1, len(entries)), "complete": True, "entries": entries})
        if "/events" in self.path:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.answer({"error": "no such resource"}, 404)

    def do_POST(self):
        self.answer({"error": "refused"}, 400)


class Server(ThreadingHTTPServer):
    def server_bind(self):
        # HTTPServer's own asks DNS for the host's name (getfqdn), which can hang offline.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]


server = Server(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()

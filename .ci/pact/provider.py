"""The "real" provider of the contract tests in Tests/DoppelTestingTests/PactContractTests.swift:
the breeds API that BreedsApp's stubs stand in for, on a loopback port.

`serve(broken=True)` answers differently (a breed list in another order and a field renamed in an
order), so the verification of the same contracts against it must fail.
"""

import json
import re
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

BREEDS = [{"id": "abys", "name": "Abyssinian"}, {"id": "beng", "name": "Bengal"}]


def make_handler(broken):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body, content_type="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urlsplit(self.path)
            if url.path == "/breeds":
                page = parse_qs(url.query).get("page", ["1"])[0]
                breeds = list(reversed(BREEDS)) if broken else BREEDS
                return self.send(200, breeds if page == "1" else [])
            match = re.fullmatch(r"/breeds/([^/]+)", url.path)
            if match:
                now = datetime.now(timezone.utc).isoformat()
                return self.send(200, {"id": match.group(1), "lastSeen": now})
            if re.fullmatch(r"/images/.*/[^/]*\.png", url.path):
                return self.send(200, b"PNG", "text/plain; charset=utf-8")
            self.send(404, {"error": "not found"})

        def do_POST(self):
            if urlsplit(self.path).path != "/orders":
                return self.send(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length", "0"))
            order = json.loads(self.rfile.read(length) or b"{}")
            if not re.fullmatch(r"[0-9a-f]{8}", self.headers.get("X-Request-ID", "")):
                return self.send(400, {"error": "X-Request-ID must be 8 hexadecimal digits"})
            if not isinstance(order.get("sku"), str) or not isinstance(order.get("quantity"), int):
                return self.send(400, {"error": "an order needs a sku and a quantity"})
            placed = "accepted" if broken else "placed"
            self.send(201, {"id": "o-1", "status": placed, "receipt_token": "rt-live-9f8e7d6c5b4a"})

    return Handler


def serve(broken=False):
    """Starts the provider on a free loopback port; returns the server (its base URL is
    `url(server)`), to be shut down with `server.shutdown()`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(broken))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def url(server):
    return f"http://127.0.0.1:{server.server_address[1]}"

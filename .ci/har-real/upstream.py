#!/usr/bin/env python3
"""A small upstream for .ci/har-real: answers of the shapes real APIs give (JSON, two cookies, a
redirect, binary, gzip, a 404, a POST echoed), on 127.0.0.1 at the port given."""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/api/breeds":
            self.send(200, json.dumps([{"id": 1, "name": "Abyssinian"}, {"id": 2, "name": "Bengal"}]).encode(),
                      "application/json")
        elif url.path == "/api/search":
            query = parse_qs(url.query)
            self.send(200, json.dumps({"q": query.get("q", [""])[0], "results": []}).encode(), "application/json")
        elif url.path == "/old":
            self.send(302, b"", "text/plain", [("Location", "/api/breeds")])
        elif url.path == "/logo.png":
            self.send(200, bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(256)), "image/png")
        elif url.path == "/compressed":
            self.send(200, gzip.compress(json.dumps({"packed": True, "items": list(range(50))}).encode()),
                      "application/json", [("Content-Encoding", "gzip")])
        elif url.path == "/greeting":
            self.send(200, "héllo, wörld".encode("utf-8"), "text/plain; charset=utf-8")
        else:
            self.send(404, json.dumps({"error": "not found"}).encode(), "application/json")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/api/login":
            self.send(200, json.dumps({"welcome": json.loads(body or b"{}").get("user", "")}).encode(),
                      "application/json",
                      [("Set-Cookie", "session=Zq81kLmN4pRt7vWxQ2; Path=/; HttpOnly"), ("Set-Cookie", "theme=dark; Path=/")])
        else:
            self.send(201, body, self.headers.get("Content-Type", "application/octet-stream"))


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.serve_forever()

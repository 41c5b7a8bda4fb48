#!/usr/bin/env python3
"""HAR files others wrote, served two ways by doppel: the cassette itself (`doppel serve x.har`)
and the manifest `doppel convert` makes of it. Every entry's request is sent, in the HAR's order,
to both servers (as an absolute-form request target, so each reaches the stubs of its recorded
origin), and the two answers must agree: status, Content-Type and body (the manifest's body may
differ only where its conversion redacted a secret, as recording does; the cassette is served as
written). Exits non-zero on any
difference, on a file that does not convert, or on a server that does not start.

    .ci/har-roundtrip.py path/to/doppel file.har [file.har ...]
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def start(doppel, path):
    """Starts `doppel serve path` on a free port; returns the process and its port."""
    process = subprocess.Popen(
        [doppel, "serve", path, "--port", "0", "--no-watch", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        found = re.search(r"at http://127\.0\.0\.1:(\d+)", line)
        if found:
            return process, int(found.group(1))
    process.kill()
    raise RuntimeError(f"doppel serve {path} did not say where it listens")


def send(port, method, url, body, content_type):
    """One request with `url` as its absolute-form target; returns (status, content type, body,
    whether no stub matched)."""
    host = re.match(r"[a-zA-Z]+://([^/?#]+)", url).group(1)
    head = f"{method} {url} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(head.encode("latin-1") + body)
        data = b""
        while True:
            chunk = connection.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    header, _, rest = data.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        # The first of a name, as clients read it.
        fields.setdefault(name.strip().lower(), value.strip())
    if "chunked" in fields.get("transfer-encoding", ""):
        body, rest = b"", rest
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            body += rest[:size]
            rest = rest[size + 2:]
        rest = body
    return status, fields.get("content-type", "-"), rest, "x-doppel-unmatched" in fields


def only_redacted(cassette, manifest):
    """Whether `manifest` is `cassette` with parts replaced by REDACTED (and nothing else)."""
    if b"REDACTED" not in manifest:
        return False
    pattern = b".*?".join(re.escape(part) for part in manifest.split(b"REDACTED"))
    return re.fullmatch(pattern, cassette, re.S) is not None


def roundtrip(doppel, har):
    """Converts and serves `har`; returns (requests sent, differences)."""
    entries = json.load(open(har, encoding="utf-8-sig"))["log"]["entries"]
    folder = tempfile.mkdtemp(prefix="doppel-har-roundtrip-")
    servers = []
    try:
        manifest = os.path.join(folder, "doppel.json")
        converted = subprocess.run(
            [doppel, "convert", har, "--to-manifest", manifest], capture_output=True, text=True, timeout=600)
        if converted.returncode != 0:
            return 0, 0, [f"doppel convert failed: {converted.stdout}{converted.stderr}".strip()]
        servers = [start(doppel, har), start(doppel, manifest)]
        differences = []
        sent = 0
        redacted = 0
        for index, entry in enumerate(entries):
            request = entry["request"]
            url = request["url"]
            if not re.match(r"https?://", url):
                continue
            post = request.get("postData") or {}
            body = (post.get("text") or "").encode("utf-8")
            answers = [send(port, request["method"], url, body, post.get("mimeType")) for _, port in servers]
            sent += 1
            if answers[0][3]:
                differences.append(f"entries[{index}] {request['method']} {url[:100]}: the cassette has no stub for it")
            elif answers[0][:2] == answers[1][:2] and only_redacted(answers[0][2], answers[1][2]):
                redacted += 1
            elif answers[0] != answers[1]:
                (s1, t1, b1, _), (s2, t2, b2, _) = answers
                differences.append(
                    f"entries[{index}] {request['method']} {url[:100]}: cassette {s1} {t1} {len(b1)} bytes, "
                    f"manifest {s2} {t2} {len(b2)} bytes")
        return sent, redacted, differences
    finally:
        for process, _ in servers:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    doppel, hars = sys.argv[1], sys.argv[2:]
    failed = 0
    total = 0
    for har in hars:
        began = time.monotonic()
        sent, redacted, differences = roundtrip(doppel, har)
        total += sent
        name = os.path.basename(har)
        if differences:
            failed += 1
            print(f"{name}: {len(differences)} of {sent} answers differ")
            for difference in differences[:10]:
                print(f"  {difference}")
        else:
            alike = f" ({redacted} but for secrets the manifest redacts)" if redacted else ""
            print(f"{name}: {sent} requests, the cassette and its manifest answer alike{alike} "
                  f"({time.monotonic() - began:.1f} s)")
    print(f"{len(hars) - failed} of {len(hars)} HAR files round-trip ({total} requests).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The stub server beside a browser: what a web page can and cannot do to `doppel serve`.

Run by `.ci/browser/run` with the path of a built `doppel-cli`. Headless Chromium maps every
`*.example` name to 127.0.0.1, so that pages come from "other sites" without leaving loopback:

- http://evil.example:P and http://friend.example:P, a small server of this script's own, stand
  for any web site the developer has open (P is its port);
- http://rebind.example:D, where D is doppel's port, stands for DNS rebinding: a site whose name
  first pointed at the attacker and now points at 127.0.0.1, so that its page is same-origin with
  the stub server.

Each check prints one line; the script exits 1 at the first failure, after printing the server's
output. Every wait is bounded (script timeouts, socket timeouts).
"""

import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from serving import Served, make_check
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

DOPPEL = sys.argv[1]
SECRET = "Bearer victim-s3cr3t-token-4711"
WAIT = 15  # seconds any one step may take

work = tempfile.mkdtemp(prefix="doppel-browser-")
failures = []


check = make_check(failures, 400)


PRIVATE = "private-service-password-8812"


# The friendly and the evil sites: one server, told apart by the Host header.
class Sites(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        # /secret stands for a private service only this computer reaches, behind a proxying stub.
        secret = self.path.endswith("/secret")
        body = PRIVATE.encode() if secret else b"<!doctype html><title>a web site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain" if secret else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


sites = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sites)
threading.Thread(target=sites.serve_forever, daemon=True).start()
P = sites.server_address[1]
EVIL = f"http://evil.example:{P}"
FRIEND = f"http://friend.example:{P}"

# --- The stub server ------------------------------------------------------------------------
with open(os.path.join(work, "page.html"), "w") as f:
    f.write("<!doctype html><title>served by doppel</title><p>a page on the stub server's port")
# A page a stub serves, with a script that tries the admin API from the stub server's own origin
# (issue 44, point 4): it writes what it could do into #result.
with open(os.path.join(work, "evil.html"), "w") as f:
    f.write(
        """<!doctype html><title>a stub's page</title><pre id="result"></pre><script>
(async () => {
  const out = {origin: self.origin};
  const stub = JSON.stringify({request: "GET /pwned", response: {text: "pwned"}});
  try {
    const r = await fetch("/__doppel/requests");
    out.read = {status: r.status, text: await r.text()};
  } catch (e) { out.read = {error: String(e)}; }
  try {
    const r = await fetch("/__doppel/stubs", {method: "POST", headers: {"Content-Type": "application/json"}, body: stub});
    out.post = {status: r.status, text: await r.text()};
  } catch (e) { out.post = {error: String(e)}; }
  try {
    await fetch("/__doppel/stubs", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: stub});
    out.simplePost = "sent";
  } catch (e) { out.simplePost = String(e); }
  let opened = null;
  try { opened = window.open("/__doppel/"); } catch (e) { out.openError = String(e); }
  out.opened = opened !== null;
  try { out.storage = typeof localStorage.length; } catch (e) { out.storage = "blocked"; }
  document.getElementById("result").textContent = JSON.stringify(out);
})();
</script>"""
    )
with open(os.path.join(work, "doppel.json"), "w") as f:
    json.dump(
        {
            "stubs": [
                {"request": "GET /hello", "response": {"json": {"hello": "world"}}},
                {
                    "request": "GET /page.html",
                    "response": {"file": "page.html", "headers": {"Content-Type": "text/html"}},
                },
                {
                    "request": "GET /evil.html",
                    "response": {"file": "evil.html", "headers": {"Content-Type": "text/html"}},
                },
                {"request": "GET /private/secret", "response": {"proxy": f"http://127.0.0.1:{P}"}},
                {"request": "GET /ws", "response": {"websocket": {"onConnect": [{"send": "hello"}]}}},
            ],
            "scenarios": {
                "empty": {"stubs": [{"request": "GET /hello", "response": {"json": {}}}]}
            },
        },
        f,
    )


served = Served(DOPPEL, [work, "--port", "0", "--no-watch", "--cors", FRIEND], work, WAIT)
server, base, server_output, D = served.process, served.base, served.output, served.port
print(f"doppel serve at {base}; web sites on port {P}")


def script_request(method, path, body=None, headers=None):
    """A request as a test or script sends it: loopback Host, no Origin."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


# A victim's request with a credential, so that the journal holds something worth stealing.
script_request("GET", "/hello", headers={"Authorization": SECRET})
status, journal = script_request("GET", "/__doppel/requests")
check("a script reads the journal (the admin API works for tests)", status == 200, status)

# --- The browser ----------------------------------------------------------------------------
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP *.example 127.0.0.1",
]:
    options.add_argument(argument)
driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
driver.set_script_timeout(WAIT)
driver.set_page_load_timeout(WAIT)

# Runs `fetch` in the page and returns what the page could see: status and text, or the error.
FETCH = """
const [url, init, done] = arguments;
fetch(url, init)
  .then(async (r) => done({status: r.status, type: r.type, text: await r.text()}))
  .catch((e) => done({error: String(e)}));
"""


def page_fetch(url, init=None):
    return driver.execute_async_script(FETCH, url, init or {})


def stub_count():
    status, text = script_request("GET", "/__doppel/stubs")
    return len(json.loads(text)["stubs"]) if status == 200 else -1


try:
    stubs_before = stub_count()

    # 1. Any web page adds a stub with a request it can send without a preflight.
    driver.get(EVIL + "/")
    attack = {
        "request": "GET /pwned",
        "response": {"file": "/etc/passwd", "headers": {"Access-Control-Allow-Origin": "*"}},
    }
    seen = page_fetch(
        base + "/__doppel/stubs",
        {
            "method": "POST",
            "mode": "no-cors",
            "headers": {"Content-Type": "text/plain"},
            "body": json.dumps(attack),
        },
    )
    check("a cross-site POST reached the server (no browser-side block)", "error" not in seen, seen)
    check("a cross-site text/plain POST adds no stub", stub_count() == stubs_before, stub_count())
    status, _ = script_request("GET", "/pwned")
    check("the page's stub does not answer", status == 404, status)
    check(
        "the refusal is printed with its reason",
        "Refused POST /__doppel/stubs (403)" in server_output(),
        server_output()[-600:],
    )

    # 2. A page reads the journal across origins.
    seen = page_fetch(base + "/__doppel/requests")
    check("a cross-site page cannot read the journal", "error" in seen, seen)

    # 3. A page resets, switches scenarios (a simple form-encoded POST is the page's best try).
    seen = page_fetch(base + "/__doppel/reset", {"method": "POST", "mode": "no-cors"})
    seen = page_fetch(
        base + "/__doppel/scenario",
        {"method": "PUT", "headers": {"Content-Type": "application/json"}, "body": '{"scenario": "empty"}'},
    )
    check("a cross-site scenario switch fails in the page", "error" in seen, seen)
    status, text = script_request("GET", "/hello")
    check("the scenario is unchanged", status == 200 and '"hello"' in text, (status, text))

    # 4. DNS rebinding: a page same-origin with the stub server, under a foreign name. The
    # attacker's own page would not carry the sandbox a stub's page does (section 6), so the
    # browser is told to ignore Content-Security-Policy here: only the Host check stands.
    driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
    driver.get(f"http://rebind.example:{D}/page.html")
    check("the rebound page loaded from the stub server", "served by doppel" in driver.title, driver.title)
    seen = page_fetch("/__doppel/requests")
    check("a rebound page gets 403 for the journal", seen.get("status") == 403, seen)
    check("the journal's credential does not reach the rebound page", SECRET not in json.dumps(seen))
    check(
        "the 403 says why and how to allow a host",
        "Host is a loopback name or address" in seen.get("text", "")
        and "--allow-host rebind.example" in seen.get("text", ""),
        seen,
    )
    seen = page_fetch(
        "/__doppel/scenario",
        {"method": "PUT", "headers": {"Content-Type": "application/json"}, "body": '{"scenario": "empty"}'},
    )
    check("a rebound page cannot switch the scenario", seen.get("status") == 403, seen)
    seen = page_fetch("/__doppel/stubs", {"method": "DELETE"})
    check("a rebound page cannot delete the stubs", seen.get("status") == 403, seen)
    # Through a proxying stub, the rebound page would read a service only this computer reaches.
    seen = page_fetch("/private/secret")
    check("a rebound page gets 403 from a proxying stub", seen.get("status") == 403, seen)
    check("the private service's answer does not reach the rebound page", PRIVATE not in json.dumps(seen), seen)
    check(
        "the proxy's 403 says how to allow the name",
        "--allow-host rebind.example" in seen.get("text", ""),
        seen,
    )
    status, text = script_request("GET", "/private/secret")
    check("a script on loopback is proxied", status == 200 and text == PRIVATE, (status, text))
    driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": False})
    check("the stubs are all there", stub_count() == stubs_before, stub_count())

    # 5. Web apps in development are clients too: stub answers reach the origin the user listed.
    driver.get(FRIEND + "/")
    seen = page_fetch(base + "/hello")
    check(
        "a page from a --cors origin reads a stub's answer",
        seen.get("status") == 200 and json.loads(seen.get("text", "{}")) == {"hello": "world"},
        seen,
    )
    driver.get(EVIL + "/")
    seen = page_fetch(base + "/hello")
    check("a page from another origin cannot read it", "error" in seen, seen)

    # 5b. WebSockets have no CORS in browsers: the server refuses an upgrade from another origin
    # unless --cors lists it.
    def open_socket():
        return driver.execute_async_script(
            """
            const [url, done] = arguments;
            const socket = new WebSocket(url);
            const timer = setTimeout(() => done({timedOut: true}), 10000);
            socket.onmessage = (event) => { clearTimeout(timer); socket.close(); done({message: event.data}); };
            socket.onerror = () => { clearTimeout(timer); done({error: true}); };
            """,
            f"ws://127.0.0.1:{D}/ws",
        )

    seen = open_socket()
    check("a page from another origin cannot open a WebSocket stub", seen.get("error") is True, seen)
    check(
        "the refused upgrade is printed",
        "GET /ws → 403, refused: a WebSocket upgrade from another origin" in server_output(),
        server_output()[-600:],
    )
    driver.get(FRIEND + "/")
    seen = open_socket()
    check("a page from a --cors origin talks to the WebSocket stub", seen.get("message") == "hello", seen)

    # 6. A page a stub serves, from the stub server's own origin (127.0.0.1:D): sandboxed by the
    # Content-Security-Policy of every stub answer, it runs in an opaque origin, so the admin API
    # refuses what it sends (Origin: null) and it cannot open the dashboard in a window.
    stubs_before = stub_count()
    driver.get(base + "/evil.html")
    result = driver.execute_async_script(
        """
        const done = arguments[0];
        const started = Date.now();
        (function poll() {
          const text = document.getElementById("result").textContent;
          if (text) return done(JSON.parse(text));
          if (Date.now() - started > 10000) return done({timedOut: true});
          setTimeout(poll, 50);
        })();
        """
    )
    check("the stub's page ran its script", "timedOut" not in result, result)
    check("the stub's page runs in an opaque origin", result.get("origin") == "null", result)
    check("the stub's page cannot read the journal", "error" in result.get("read", {}), result)
    check(
        "the journal's credential does not reach the stub's page",
        SECRET not in json.dumps(result),
    )
    check("the stub's page cannot POST a stub", "error" in result.get("post", {}), result)
    check("the stub's page added no stub", stub_count() == stubs_before, stub_count())
    status, _ = script_request("GET", "/pwned")
    check("the stub's page's stub does not answer", status == 404, status)
    check("the stub's page cannot open the dashboard in a window", result.get("opened") is False, result)
    check("no window was opened", len(driver.window_handles) == 1, driver.window_handles)
    check(
        "the admin API refused the page's simple POST as Origin: null",
        "Refused POST /__doppel/stubs (403): the admin API refuses requests from web pages, and this one carries Origin: null"
        in server_output(),
        server_output()[-600:],
    )
    seen = page_fetch("/__doppel/state")
    check("a script run in the stub's page cannot read the admin API either", "error" in seen, seen)

    # 7. The server stayed up and serves scripts throughout.
    status, _ = script_request("GET", "/hello")
    check("the stub server still answers", status == 200 and server.poll() is None, status)
finally:
    driver.quit()
    server.terminate()
    try:
        server.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        server.kill()
    sites.shutdown()

if failures:
    print("\nThe stub server's output:\n" + server_output())
    sys.exit(f"{len(failures)} browser check(s) failed: {failures}")
print("All browser checks passed.")

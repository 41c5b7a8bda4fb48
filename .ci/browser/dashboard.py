"""The stub server's dashboard in a real browser.

Run by `.ci/browser/run` with the path of a built `doppel-cli`: serves dashboard-manifest.json
(two scenarios, one state machine) with an admin token, opens http://127.0.0.1:PORT/__doppel/ in
headless Chromium and checks, with bounded waits, that the page asks for the token and keeps it in
memory only, shows requests made after it loaded (with the stub that answered), switches the
scenario, resets a state machine, shows an unmatched request's near-miss report as text, opens a row
to its request and answer (kept open as requests come) and filters the journal; then (issue 48,
point 3) copies a request as cURL (and runs the command), saves a near miss as a stub (prefilled
with a path template; copied as manifest JSON and Swift; the manifest written into the
--save-stubs-to folder and the stub served at once), and edits and removes that stub.

With DOPPEL_DASHBOARD_SCREENSHOT=path/to/file.png set, it saves a screenshot of the page there (for
the docs). Each check prints one line; the script exits 1 after all checks if any failed, with the
server's output.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from serving import Served, make_check
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

DOPPEL = sys.argv[1]
MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboard-manifest.json")
TOKEN = "dashboard-t0ken-4711"
WAIT = 10  # seconds any one step may take

work = tempfile.mkdtemp(prefix="doppel-dashboard-")
saved_folder = os.path.join(work, "saved")
os.mkdir(saved_folder)
failures = []


check = make_check(failures, 600)
served = Served(
    DOPPEL,
    [MANIFEST, "--port", "0", "--no-watch", "--admin-token", TOKEN, "--save-stubs-to", saved_folder],
    work,
    WAIT,
)
server, base, server_output = served.process, served.base, served.output
print(f"doppel serve at {base}")


def request(method, path, body=None, headers=None, admin=False):
    """A request as a test or script sends it; `admin` adds the token."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = dict(headers or {})
    if admin:
        all_headers["Authorization"] = "Bearer " + TOKEN
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


# --- Without a browser: the page's headers, and the JSON index unchanged --------------------
status, page, headers = request("GET", "/__doppel/", headers={"Accept": "text/html"})
check("the page is served without the token", status == 200, status)
check(
    "the page's Content-Security-Policy allows no inline script",
    headers.get("Content-Security-Policy") == "default-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    headers,
)
check("the page may not be framed", headers.get("X-Frame-Options") == "DENY", headers)
status, index, headers = request("GET", "/__doppel/", admin=True)
check(
    "a script still gets the JSON index",
    status == 200 and headers.get("Content-Type") == "application/json" and '"endpoints"' in index,
    (status, headers, index),
)

# --- The browser ----------------------------------------------------------------------------
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
driver.set_script_timeout(WAIT)
driver.set_page_load_timeout(WAIT)


def wait_for(name, condition, detail=lambda: ""):
    """Waits (at most WAIT seconds) until `condition(driver)` is true; a failed check otherwise."""
    try:
        WebDriverWait(
            driver, WAIT, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]
        ).until(lambda d: condition(d))
        return check(name, True)
    except TimeoutException:
        return check(name, False, detail())


def text_of(selector):
    """The text of each element `selector` finds, as the DOM holds it (not as CSS lays it out)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map((e) => e.textContent);", selector
    )


def click(selector):
    """Clicks what `selector` finds, finding it again when the page redrew it in between."""
    for _ in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            continue
    raise RuntimeError(f"{selector} kept being redrawn")


def attribute(selector, name):
    """An attribute of the element `selector` finds, read in one step (no stale reference)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
        selector,
        name,
    )


def journal_rows():
    return text_of("#journal li")


def body_of(path):
    status, text, _ = request("GET", path)
    return status, text


try:
    driver.get(base + "/__doppel/")
    check("the page loaded", driver.title == "Doppel dashboard", driver.title)

    # 1. The token: asked for when the API answers 401, kept in a variable only.
    wait_for(
        "the page asks for the admin token",
        lambda d: d.find_element(By.ID, "token-panel").is_displayed(),
        lambda: driver.page_source[:600],
    )
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    driver.find_element(By.ID, "token-use").click()
    wait_for(
        "with the token the page listens to the event stream",
        lambda d: d.find_element(By.ID, "live").text == "live",
        lambda: driver.find_element(By.ID, "live").text + " / " + driver.find_element(By.ID, "message").text,
    )
    stored = driver.execute_script(
        "return [localStorage.length, sessionStorage.length, document.cookie,"
        " document.getElementById('token').value];"
    )
    check("the token is in no storage, cookie or field", stored == [0, 0, "", ""], stored)
    wait_for(
        "the stubs are listed with where they were declared",
        lambda d: len(text_of("#stubs li")) == 4 and all("dashboard-manifest.json:" in t for t in text_of("#stubs li")),
        lambda: text_of("#stubs li"),
    )

    # Markup in a request's URL (and so in its near-miss report) must stay text: checked below.
    status, _ = body_of("/%3Cimg%20src=x%20onerror=alert(1)%3E?q=%3Cscript%3Ealert(2)%3C/script%3E")
    check("a request with markup in its URL is unmatched", status == 404, status)

    # 2. A request made after the page loaded appears, with its status and its stub.
    status, before = body_of("/greeting")
    check("the stub answers", status == 200 and json.loads(before) == {"greeting": "hello"}, (status, before))
    wait_for(
        "the request appears in the journal with its status and stub",
        lambda d: any(
            "GET" in row and "/greeting" in row and "200" in row and "greeting · " in row
            and "dashboard-manifest.json:" in row
            for row in journal_rows()
        ),
        journal_rows,
    )

    # 3. The scenario switch changes the next answer.
    empty = 'button.scenario[data-scenario="empty"]'
    click(empty)
    wait_for("the page shows the scenario switched", lambda d: attribute(empty, "aria-pressed") == "true")
    status, after = body_of("/greeting")
    check(
        "after the switch the stub server answers from the scenario",
        status == 200 and after != before and json.loads(after) == {},
        (status, after),
    )
    status, text, _ = request("GET", "/__doppel/scenario", admin=True)
    check("the admin API agrees", json.loads(text).get("active") == "empty", text)

    # 4. A state machine: moved by a request, shown, reset from the page.
    request("POST", "/basket")
    machine = 'tr[data-machine="basket"]'
    wait_for(
        "the state machine's new state is shown",
        lambda d: "full" in (text_of(machine) or [""])[0],
        lambda: text_of("#states tr"),
    )
    click(machine + " button.reset")
    wait_for(
        "the reset puts it back in initial",
        lambda d: "initial" in (text_of(machine) or [""])[0],
        lambda: text_of("#states tr"),
    )
    status, text = body_of("/basket")
    check("the stub server answers from the initial state", json.loads(text) == {"items": 0}, text)

    # 5. An unmatched request shows its near-miss report, as text; markup in a request stays text.
    status, report = body_of("/greetings")
    check("the unmatched request gets the near-miss report", status == 404 and "/greeting" in report, report)
    wait_for(
        "the page shows the near-miss report of the unmatched request",
        lambda d: report.strip() in text_of("#journal li.unmatched pre.near-miss"),
        lambda: (report, text_of("#journal li.unmatched")),
    )
    check(
        "nothing of the requests became markup",
        driver.find_elements(By.CSS_SELECTOR, "#journal img, #journal script") == [],
    )
    status, text, _ = request("GET", "/__doppel/requests", admin=True)
    paths = [entry["path"] for entry in json.loads(text)["requests"]]
    check("the page itself made no request to the stubs (no /favicon.ico)", "/favicon.ico" not in paths, paths)

    # 6. The journal's HAR, as the page downloads it (with the token).
    har = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById("har").href, {headers: {Authorization: "Bearer " + arguments[0]}})
          .then((r) => r.json()).then((h) => done(h.log.entries.length)).catch((e) => done(String(e)));
        """,
        TOKEN,
    )
    check("the HAR link gives the journal", isinstance(har, int) and har >= 6, har)

    # 7. A row opens to its request and its answer, stays open as requests come, and the journal
    # filters (issue 48, points 1 and 2).
    greeting = driver.execute_script(
        """
        const rows = Array.from(document.querySelectorAll("#journal li.matched"))
          .filter((row) => row.textContent.includes("/greeting") && row.textContent.includes("greeting · "));
        return rows.length ? rows[rows.length - 1].dataset.index : null;
        """
    )
    check("the first /greeting request has a row", greeting is not None, journal_rows())
    row = f'#journal li[data-index="{greeting}"]'
    click(row + " .line")
    wait_for(
        "the opened row shows the request, the answer as pretty JSON and the stub",
        lambda d: any(
            "Request" in t and "Answer" in t and '"greeting" : "hello"' in t and "dashboard-manifest.json:" in t
            for t in text_of(row + " .detail")
        ),
        lambda: text_of(row + " .detail"),
    )
    body_of("/basket")
    wait_for(
        "a new request appears",
        lambda d: any("/basket" in r and "GET" in r for r in journal_rows()[:1]),
        journal_rows,
    )
    check(
        "the open row stayed open",
        attribute(row + " .line", "aria-expanded") == "true" and len(text_of(row + " .detail")) == 1,
        text_of(row),
    )
    driver.execute_script(
        "const s = document.getElementById('filter-status'); s.value = '4xx';"
        " s.dispatchEvent(new Event('change'));"
    )
    wait_for(
        "filtered by 4xx, the list shows the unmatched requests only",
        lambda d: len(journal_rows()) == 2 and len(text_of("#journal li.unmatched")) == 2,
        journal_rows,
    )
    driver.find_element(By.ID, "filter-text").send_keys("greetings")
    wait_for(
        "and with a text, the one that holds it",
        lambda d: len(journal_rows()) == 1 and "/greetings" in journal_rows()[0],
        journal_rows,
    )
    click("#filter-clear")
    wait_for("the filter cleared, every request is back", lambda d: len(journal_rows()) >= 7, journal_rows)
    check(
        "nothing of the opened row became markup",
        driver.find_elements(By.CSS_SELECTOR, "#journal img, #journal script") == [],
    )

    # 8. Copy as cURL (issue 48, point 3): the command the page gives, run, gets what a client gets.
    click(row + " .line")
    click(row + " .line")
    wait_for(
        "the row opens again, with its actions",
        lambda d: len(driver.find_elements(By.CSS_SELECTOR, row + " .detail button.copy-curl")) == 1,
        lambda: text_of(row + " .detail"),
    )
    click(row + " .detail button.copy-curl")
    curl = ""
    wait_for(
        "Copy as cURL shows the command",
        lambda d: (attribute(row + " .detail .actions > textarea.copy-output", "data-copied") or "") != "",
        lambda: text_of(row + " .detail .actions"),
    )
    curl = driver.execute_script(
        "return document.querySelector(arguments[0]).value;", row + " .detail .actions > textarea.copy-output"
    )
    check("the command is curl with the request's URL", curl.startswith("curl ") and "/greeting" in curl, curl)
    ran = subprocess.run(["bash", "-c", curl], capture_output=True, text=True, timeout=WAIT)
    status, expected = body_of("/greeting")
    check(
        "the command, run, gets the stub server's answer",
        ran.returncode == 0 and json.loads(ran.stdout) == json.loads(expected),
        (ran.returncode, ran.stdout, ran.stderr),
    )

    # 9. A near miss saved as a stub: prefilled, copied as JSON and Swift, saved into the folder
    # given with --save-stubs-to, served at once.
    status, _ = body_of("/users/42")
    check("a request for /users/42 is unmatched", status == 404, status)
    wait_for(
        "the unmatched /users/42 appears",
        lambda d: any("/users/42" in r for r in text_of("#journal li.unmatched")),
        journal_rows,
    )
    users = driver.execute_script(
        """
        const rows = Array.from(document.querySelectorAll("#journal li.unmatched"))
          .filter((row) => row.querySelector(".url").textContent.endsWith("/users/42"));
        return rows.length ? rows[0].dataset.index : null;
        """
    )
    users_row = f'#journal li[data-index="{users}"]'
    click(users_row + " .line")
    wait_for(
        "the near miss opens with Save as stub",
        lambda d: len(driver.find_elements(By.CSS_SELECTOR, users_row + " .detail button.save-stub")) == 1,
        lambda: text_of(users_row + " .detail"),
    )
    click(users_row + " .detail button.save-stub")
    editor = users_row + " .stub-editor"

    def value(selector):
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.value : null;", selector
        )

    def set_value(selector, text):
        driver.execute_script(
            "const e = document.querySelector(arguments[0]); e.value = arguments[1];"
            " e.dispatchEvent(new Event('input'));",
            selector,
            text,
        )

    wait_for(
        "the stub is prefilled: the method, a template for the id, 200 and a JSON body",
        lambda d: value(editor + " .stub-method") == "GET"
        and value(editor + " .stub-path") == "/users/{id}"
        and value(editor + " .stub-status") == "200"
        and value(editor + " .stub-body") == "{}"
        and value(editor + " .stub-file") == "saved.json",
        lambda: [value(editor + " ." + n) for n in ["stub-method", "stub-path", "stub-status", "stub-body"]],
    )
    wait_for(
        "the editor says which folder it saves into",
        lambda d: saved_folder in "".join(text_of(editor + " .stub-folder")),
        lambda: text_of(editor + " .stub-folder"),
    )
    click(editor + " input.stub-template")
    check("unticked, the path is the request's own", value(editor + " .stub-path") == "/users/42")
    click(editor + " input.stub-template")
    set_value(editor + " .stub-name", "user")
    set_value(editor + " .stub-headers", "Content-Type: application/json\nX-Request-Id: abc")
    set_value(editor + " .stub-body", '{"id": 42, "name": "Ada"}')
    expected_stub = {
        "name": "user",
        "request": "GET /users/{id}",
        "response": {
            "status": 200,
            "headers": {"Content-Type": "application/json", "X-Request-Id": "abc"},
            "json": {"id": 42, "name": "Ada"},
        },
    }
    output = editor + " > textarea.copy-output"
    click(editor + " button.copy-json")
    wait_for(
        "Copy as manifest JSON gives the stub",
        lambda d: (value(output) or "").startswith("{") and json.loads(value(output)) == expected_stub,
        lambda: value(output),
    )
    click(editor + " button.copy-swift")
    swift = (
        'backend.stub(.get("/users/{id}"), .json(raw: #"{"id":42,"name":"Ada"}"#, headers: '
        '["Content-Type": "application/json", "X-Request-Id": "abc"]), name: "user")'
    )
    wait_for("Copy as Swift gives Doppel's Swift API", lambda d: value(output) == swift, lambda: value(output))
    screenshot = os.environ.get("DOPPEL_DASHBOARD_SCREENSHOT")
    if screenshot:
        # 1280×800 CSS pixels, whatever the window's frame takes, with the opened row at the top.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
        )
        # The end of the opened row's answer, then its actions and the stub being written.
        driver.execute_script(
            "document.querySelector(arguments[0]).scrollIntoView({block: 'start'}); window.scrollBy(0, -150);",
            users_row + " .detail .actions",
        )
        driver.save_screenshot(screenshot)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        print(f"screenshot saved to {screenshot}")
    click(editor + " button.stub-save")
    wait_for(
        "Add and save says where the stub was written",
        lambda d: "saved into " + os.path.join(saved_folder, "saved.json") + " (line 3)"
        in driver.find_element(By.ID, "message").text,
        lambda: driver.find_element(By.ID, "message").text,
    )
    try:
        with open(os.path.join(saved_folder, "saved.json")) as file:
            written = json.load(file)
    except (OSError, ValueError) as error:
        written = str(error)
    check(
        "the manifest in the --save-stubs-to folder holds the stub",
        written == {"stubs": [expected_stub]},
        written,
    )
    check("nothing else was written", sorted(os.listdir(saved_folder)) == ["saved.json"], os.listdir(saved_folder))
    status, text, headers = request("GET", "/users/7")
    check(
        "the stub server serves the saved stub at once",
        status == 200 and json.loads(text) == {"id": 42, "name": "Ada"} and headers.get("X-Request-Id") == "abc",
        (status, text),
    )
    wait_for(
        "the stub is listed, declared in saved.json",
        lambda d: any("GET /users/{id}" in t and "saved.json:3" in t for t in text_of("#stubs li")),
        lambda: text_of("#stubs li"),
    )

    # 10. The saved stub edited (PUT stubs/{id}) and removed (DELETE stubs/{id}) from the page.
    def stub_id(fragment):
        return driver.execute_script(
            """
            const rows = Array.from(document.querySelectorAll("#stubs li.stub"))
              .filter((row) => row.textContent.includes(arguments[0]));
            return rows.length ? rows[0].dataset.id : null;
            """,
            fragment,
        )

    first_id = stub_id("saved.json:3")
    stub_row = f'#stubs li[data-id="{first_id}"]'
    click(stub_row + " button.stub-edit")
    definition = stub_row + " textarea.stub-definition"
    wait_for(
        "Edit shows the stub as manifest JSON",
        lambda d: (value(definition) or "").startswith("{") and json.loads(value(definition))["request"] == "GET /users/{id}",
        lambda: value(definition),
    )
    edited = json.loads(value(definition))
    edited["response"]["json"]["name"] = "Grace"
    set_value(definition, json.dumps(edited))
    click(stub_row + " button.stub-replace")
    wait_for(
        "Replace says the stub was replaced",
        lambda d: f"Stub #{first_id} is replaced by stub #" in driver.find_element(By.ID, "message").text,
        lambda: driver.find_element(By.ID, "message").text,
    )
    status, text, _ = request("GET", "/users/7")
    check("the edited stub answers", status == 200 and json.loads(text)["name"] == "Grace", (status, text))
    wait_for(
        "the old stub is gone from the list",
        lambda d: driver.find_elements(By.CSS_SELECTOR, stub_row) == [],
        lambda: text_of("#stubs li"),
    )
    replaced_id = stub_id("GET /users/{id}")
    click(f'#stubs li[data-id="{replaced_id}"] button.stub-remove')
    try:
        WebDriverWait(driver, WAIT).until(expected_conditions.alert_is_present()).accept()
        check("Remove asks first", True)
    except TimeoutException:
        check("Remove asks first", False)
    wait_for(
        "the removed stub leaves the list",
        lambda d: stub_id("GET /users/{id}") is None,
        lambda: text_of("#stubs li"),
    )
    status, _, _ = request("GET", "/users/7")
    check("and the stub server no longer serves it", status == 404, status)
    check(
        "the saved manifest is as saved (editing and removing change what is served)",
        json.load(open(os.path.join(saved_folder, "saved.json"))) == {"stubs": [expected_stub]},
    )
    check(
        "nothing of the requests became markup in the journal or the stubs",
        driver.find_elements(By.CSS_SELECTOR, "#journal img, #journal script, #stubs img, #stubs script") == [],
    )

    # 11. No script was refused, no error was logged.
    problems = [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and "401" not in entry["message"] and "404" not in entry["message"]
    ]
    check("the browser logged no error (no Content-Security-Policy violation)", problems == [], problems)
finally:
    driver.quit()
    server.terminate()
    try:
        server.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        server.kill()

if failures:
    print("\nThe stub server's output:\n" + server_output())
    sys.exit(f"{len(failures)} dashboard check(s) failed: {failures}")
print("All dashboard checks passed.")

"""The stub server's dashboard in a real browser.

Run by `.ci/browser/run` with the path of a built `doppel-cli`: serves dashboard-manifest.json
(two scenarios, one state machine) with an admin token, opens http://127.0.0.1:PORT/__doppel/ in
headless Chromium and checks, with bounded waits, that the page asks for the token and keeps it in
memory only, shows requests made after it loaded (with the stub that answered), switches the
scenario, resets a state machine, shows an unmatched request's near-miss report as text, opens a row
to its request and answer (kept open as requests come) and filters the journal.

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
from selenium.webdriver.support.ui import WebDriverWait

DOPPEL = sys.argv[1]
MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboard-manifest.json")
TOKEN = "dashboard-t0ken-4711"
WAIT = 10  # seconds any one step may take

work = tempfile.mkdtemp(prefix="doppel-dashboard-")
failures = []


check = make_check(failures, 600)
served = Served(DOPPEL, [MANIFEST, "--port", "0", "--no-watch", "--admin-token", TOKEN], work, WAIT)
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

    # 8. No script was refused, no error was logged.
    problems = [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and "401" not in entry["message"] and "404" not in entry["message"]
    ]
    check("the browser logged no error (no Content-Security-Policy violation)", problems == [], problems)

    screenshot = os.environ.get("DOPPEL_DASHBOARD_SCREENSHOT")
    if screenshot:
        driver.save_screenshot(screenshot)
        print(f"screenshot saved to {screenshot}")
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

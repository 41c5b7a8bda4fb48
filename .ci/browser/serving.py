"""What the browser checks share: a check that prints one line, and `doppel serve` on a free port.

Imported by admin_trust.py and dashboard.py (both run from .ci/browser/run).
"""

import os
import re
import subprocess
import sys
import time
from urllib.parse import urlsplit


def make_check(failures, limit):
    """A check that prints `ok` or `FAILED` with its name (and the detail, cut at `limit`
    characters, when it failed), adds a failed name to `failures` and returns the condition."""

    def check(name, condition, detail=""):
        shown = str(detail)
        shown = shown if len(shown) <= limit else shown[:limit] + "…"
        print(("ok      " if condition else "FAILED  ") + name + ("" if condition else f": {shown}"))
        if not condition:
            failures.append(name)
        return condition

    return check


class Served:
    """`doppel serve` with `arguments`, its output logged in `work`, and its URL once printed."""

    def __init__(self, doppel, arguments, work, wait):
        self.out_log = open(os.path.join(work, "out.log"), "w+")
        self.err_log = open(os.path.join(work, "err.log"), "w+")
        self.process = subprocess.Popen(
            [doppel, "serve", *arguments], stdout=self.out_log, stderr=self.err_log
        )
        self.base = None
        deadline = time.monotonic() + wait
        while self.base is None and time.monotonic() < deadline:
            match = re.search(r"http://127\.0\.0\.1:\d+", self.output())
            if match:
                self.base = match.group(0)
            elif self.process.poll() is not None:
                break
            else:
                time.sleep(0.05)  # polling a log file for the first line, bounded by the deadline
        if self.base is None:
            print(self.output())
            self.process.kill()
            sys.exit("doppel serve did not print its URL")
        self.port = urlsplit(self.base).port

    def output(self):
        """Everything the server printed so far, standard output then standard error."""
        self.out_log.flush()
        self.err_log.flush()
        with open(self.out_log.name) as o, open(self.err_log.name) as e:
            return o.read() + e.read()

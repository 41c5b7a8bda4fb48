"""Verifies every Pact file in a folder with Pact's reference verifier (pact-python's Verifier,
the Rust FFI underneath): against the provider in provider.py, where each must pass, then against
the same provider broken, where each must fail, so that the check is known to bite.

    python verify.py <folder of pact files>
"""

import json
import os
import pathlib
import sys

from pact import Verifier

import provider


def verify(pact_file, base_url, quiet):
    name = json.loads(pact_file.read_text())["provider"]["name"]
    verifier = Verifier(name, host="127.0.0.1").add_transport(url=base_url).add_source(str(pact_file))
    # The Rust verifier prints its report on the process's own standard output; the run against the
    # broken provider, whose failures are expected, is kept out of the log (its report is printed
    # only when it unexpectedly passes).
    saved = os.dup(1) if quiet else None
    if quiet:
        sys.stdout.flush()
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
    try:
        verifier.verify()
    except RuntimeError:
        return False, verifier.output(strip_ansi=True)
    finally:
        if quiet:
            os.dup2(saved, 1)
            os.close(saved)
    return True, verifier.output(strip_ansi=True)


def main(folder):
    files = sorted(pathlib.Path(folder).glob("*.json"))
    if not files:
        print(f"No pact files in {folder}: the contract tests wrote none.", file=sys.stderr)
        return 1
    failures = 0
    for broken in (False, True):
        server = provider.serve(broken=broken)
        try:
            for pact_file in files:
                interactions = len(json.loads(pact_file.read_text())["interactions"])
                passed, output = verify(pact_file, provider.url(server), quiet=broken)
                against = "the broken provider" if broken else "the provider"
                if passed == (not broken):
                    verdict = "fails, as it must" if broken else "passes"
                    print(f"{pact_file.name} ({interactions} interactions) against {against}: {verdict}")
                else:
                    failures += 1
                    print(output)
                    verdict = "passes, so the check does not bite" if broken else "fails"
                    print(f"{pact_file.name} against {against}: {verdict}", file=sys.stderr)
        finally:
            server.shutdown()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

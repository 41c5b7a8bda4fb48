"""Drives a running doppel serve through a client generated from Schemas/doppel-admin.openapi.yaml
by openapi-python-client (.ci/admin-client/run): starts over, adds a stub, reads the journal,
switches the scenario. The server serves .ci/schemathesis's manifest.

    python3 drive.py <server URL>
"""

import sys

import httpx
from doppel_admin import Client
from doppel_admin.api.default import add_stub, get_scenario, list_requests, reset, use_scenario
from doppel_admin.models import ManifestStub, Stub, UseScenarioBody

base = sys.argv[1]
admin = Client(base_url=base + "/__doppel", raise_on_unexpected_status=True)


def check(what, condition, detail):
    if not condition:
        sys.exit(f"admin client: {what}: {detail}")


reset.sync(client=admin)

added = add_stub.sync_detailed(
    client=admin,
    body=ManifestStub.from_dict({"request": "GET /v1/me", "response": {"json": {"name": "Ada"}}}),
    location="drive.py:30",
)
check("POST /stubs", added.status_code == 201 and isinstance(added.parsed, Stub), added.content)
check("the stub added", added.parsed.source.value == "admin", added.parsed)
answer = httpx.get(base + "/v1/me", timeout=10)
check("the added stub's answer", answer.json() == {"name": "Ada"}, answer.text)

journal = list_requests.sync(client=admin, path="/v1/me")
check("GET /requests", len(journal.requests) == 1, journal)
entry = journal.requests[0]
check("the journal entry", entry.matched and entry.status == 200 and entry.method == "GET", entry)

scenarios = use_scenario.sync(client=admin, body=UseScenarioBody(scenario="empty"))
check("PUT /scenario", scenarios.active == "empty", scenarios)
check("GET /scenario", get_scenario.sync(client=admin).active == "empty", "not empty")
breeds = httpx.get(base + "/breeds", timeout=10)
check("the scenario's answer", breeds.json() == [], breeds.text)
print("admin client generated from the description: stub added, journal read, scenario switched")

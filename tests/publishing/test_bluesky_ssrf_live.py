"""Issue 28's reproduction against a real server process: `POST /v1/profiles/bluesky/connect`
with a DID whose PDS is inside (loopback in four spellings, the unspecified address, a private
and the metadata address) is a 400 in the family's format and the internal service hears
nothing. gunicorn runs with only 127.0.0.2 exempt (the fake PLC directory's address); addresses
outside this machine are refused by the rules before any connection, so none is contacted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from tests.live import wsgi_server
from tests.publishing.bluesky_fake import FakePDS
from tests.publishing.test_bluesky_ssrf import PASSWORD, Internal

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

INSIDE = [
    "http://127.0.0.1:{port}",
    "http://[::1]:{port}",
    "http://[::ffff:127.0.0.1]:{port}",
    "http://0.0.0.0:{port}",
    "http://2130706433:{port}",
    "https://10.0.0.5",
    "https://169.254.169.254",
]


@pytest.fixture
def internal() -> Iterator[Internal]:
    service = Internal()
    yield service
    service.close()


def test_the_red_teams_dids_are_refused_by_the_real_server_and_nothing_inside_is_contacted(owner, internal):
    plc = FakePDS(host="127.0.0.2")
    account = plc.add_account("acme.bsky.social", PASSWORD)
    answers = []
    try:
        env = {
            "OUTBOUND_ALLOWED_CIDRS": "127.0.0.2/32",
            "BLUESKY_SERVICE_URL": plc.url,
            "BLUESKY_PLC_DIRECTORY_URL": plc.url + "/plc",
        }
        with wsgi_server(workers=1, **env) as base:
            for endpoint in INSIDE:
                plc.endpoints[account.did] = endpoint.format(port=internal.port)
                r = requests.post(
                    f"{base}/v1/profiles/bluesky/connect",
                    json={"handle": account.did, "appPassword": PASSWORD},
                    headers={"Authorization": f"Bearer {owner.key}"},
                    timeout=30,
                )
                answers.append((endpoint, r.status_code, r.json()))
    finally:
        plc.close()
    for endpoint, status, body in answers:
        assert status == 400, (endpoint, body)
        assert (
            body["error"]["code"] == "VALIDATION_ERROR" and "may not be reached" in body["error"]["message"]
        )
        assert "INTERNAL SECRET" not in str(body)
    assert internal.hits == []
    assert ("GET", f"/plc/{account.did}") in plc.requests  # the DID document was read, from the directory

"""Events in the caller's family, against the REST answer for the same object (issue 21).

Two real websockets on a real ASGI server, one with a `/v1` API key and one with an `/api`
organization token, follow a generation that a real Celery worker runs, then an approval made
through the REST API. Each event's ids and status must be what that family's REST API answers
for the same object at that moment: `cnt_...` and `generated` for the key, the UUID and
`reviewing` for the token. Every frame also validates against its family's AsyncAPI document.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import requests
import websockets
import websockets.exceptions  # a submodule: not an attribute until imported
from asgiref.sync import sync_to_async

from apps.accounts.auth import dev_token_issue
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.core import ids
from tests.events.asyncapi_check import message_errors
from tests.generation.test_live_generation import broker  # noqa: F401  (a fixture)
from tests.live import asgi_server, celery_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

CONTENT_EVENTS = ("content.created", "content.generated", "content.approved")


class Socket:
    """One websocket and every frame it received."""

    def __init__(self, ws, family: str):
        self.ws, self.family, self.frames = ws, family, []

    async def until(self, wanted: str, timeout: float = 90.0) -> dict:
        async def loop():
            while True:
                frame = json.loads(await self.ws.recv())
                self.frames.append(frame)
                if frame["type"] == wanted:
                    return frame

        return await asyncio.wait_for(loop(), timeout)

    def of(self, type_: str) -> list[dict]:
        return [f["data"] for f in self.frames if f["type"] == type_]


def _get(url: str, token: str) -> dict:
    answer = requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return body.get("data", body) if "/api/" in url else body


def _post(url: str, token: str, payload: dict | None = None) -> dict:
    answer = requests.post(url, headers={"Authorization": f"Bearer {token}"}, json=payload or {}, timeout=30)
    assert answer.status_code in (200, 201, 202), answer.text
    body = answer.json()
    return body.get("data", body) if "/api/" in url else body


def test_each_family_reads_the_ids_and_statuses_its_rest_api_answers(broker):  # noqa: F811
    org = organization_get_or_create(name="Families Org")
    key = api_key_create(organization=org, role="admin").secret
    token = dev_token_issue(organization=org, role="admin", subject=f"families-{uuid.uuid4().hex[:8]}")

    async def scenario(base: str):
        ws = base.replace("http", "ws") + "/ws/events/"
        async with (
            websockets.connect(f"{ws}?token={key}") as a_ws,
            websockets.connect(f"{ws}?token={token}") as b_ws,
        ):
            a, b = Socket(a_ws, "v1"), Socket(b_ws, "api")
            ready_a, ready_b = await a.until("connection.ready"), await b.until("connection.ready")
            assert ready_a["data"]["organizationId"] == ids.render(org.pk, "organization")
            assert ready_b["data"]["organizationId"] == str(org.pk)

            created = await sync_to_async(_post)(
                f"{base}/v1/content/generate",
                key,
                {"prompt": "Fresh sourdough at the corner bakery", "platforms": ["instagram", "x"]},
            )
            a_id = created["id"]
            b_id = str(ids.parse(a_id, "content"))
            with celery_worker(concurrency=1):  # generates, and dispatches the outbox
                await a.until("content.generated")
                await b.until("content.generated")
                # at that moment (nothing else changes the content): what each family's REST answers
                rest_a = await sync_to_async(_get)(f"{base}/v1/content/{a_id}", key)
                rest_b = await sync_to_async(_get)(f"{base}/api/content/{b_id}", token)

                approved_b = await sync_to_async(_post)(f"{base}/api/content/{b_id}/approve", token)
                await a.until("content.approved", 30)
                await b.until("content.approved", 30)
            after_a = await sync_to_async(_get)(f"{base}/v1/content/{a_id}", key)
            return a, b, a_id, b_id, rest_a, rest_b, approved_b, after_a

    with asgi_server() as base:
        a, b, a_id, b_id, rest_a, rest_b, approved_b, after_a = asyncio.run(scenario(base))

    # the REST answers themselves: Family A's `cnt_` and `generated`, Family B's UUID and `reviewing`
    assert (rest_a["id"], rest_a["status"]) == (a_id, "generated")
    assert (rest_b["id"], rest_b["status"]) == (b_id, "reviewing")

    # every content event names the object as its family's REST does
    for socket, rest_id in ((a, a_id), (b, b_id)):
        for type_ in CONTENT_EVENTS:
            assert socket.of(type_), (socket.family, type_, [f["type"] for f in socket.frames])
            assert all(e["contentId"] == rest_id for e in socket.of(type_)), (socket.family, type_)
        progress = socket.of("content.generation.progress")
        assert progress and all(e["contentId"] == rest_id for e in progress)

    # the status each socket read when generation ended is the status its REST answered then
    assert a.of("content.generated")[-1]["status"] == rest_a["status"] == "generated"
    assert b.of("content.generated")[-1]["status"] == rest_b["status"] == "reviewing"
    assert (
        a.of("content.generated")[-1]["previousStatus"]
        == b.of("content.generated")[-1]["previousStatus"]
        == "generating"
    )
    # after the approval (made through Family B), both read `approved`, as both REST families say
    assert a.of("content.approved")[-1]["status"] == after_a["status"] == "approved"
    assert b.of("content.approved")[-1]["status"] == approved_b["status"] == "approved"

    # one event, one id, in each family's form
    event_a, event_b = a.of("content.generated")[-1]["id"], b.of("content.generated")[-1]["id"]
    assert event_a.startswith("evt_") and ids.parse(event_a, "event") == uuid.UUID(event_b)

    # and every frame each socket received is one its family's AsyncAPI document describes
    for socket in (a, b):
        for frame in socket.frames:
            assert message_errors(frame, socket.family) == [], frame


def test_a_key_may_ask_for_family_b_and_a_token_may_not_ask_for_family_a():
    org = organization_get_or_create(name="Family Choice Org")
    key = api_key_create(organization=org).secret
    token = dev_token_issue(organization=org, role="viewer", subject="family-choice")

    async def scenario(base: str):
        ws = base.replace("http", "ws") + "/ws/events/"
        async with websockets.connect(f"{ws}?token={key}&family=api") as sock:
            ready = json.loads(await asyncio.wait_for(sock.recv(), 10))
            assert ready == {"type": "connection.ready", "data": {"organizationId": str(org.pk)}}
            content_id = uuid.uuid4()
            await sock.send(
                json.dumps({"action": "subscribe", "contentId": ids.render(content_id, "content")})
            )
            refused = json.loads(await asyncio.wait_for(sock.recv(), 10))
            assert refused["type"] == "error"  # not this organization's content
        async with websockets.connect(f"{ws}?token={token}&family=api") as sock:  # its own family: fine
            ready = json.loads(await asyncio.wait_for(sock.recv(), 10))
            assert ready["data"]["organizationId"] == str(org.pk)
        statuses = []
        for query in (f"token={token}&family=v1", f"token={key}&family=v2"):
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused_status:
                async with websockets.connect(f"{ws}?{query}") as sock:
                    await asyncio.wait_for(sock.recv(), 10)
            statuses.append(refused_status.value.response.status_code)
        return statuses

    with asgi_server() as base:
        statuses = asyncio.run(scenario(base))
    # refused before the handshake (as a bad token is): a token cannot read Family A (/v1 takes
    # API keys only), and there is no family v2
    assert statuses == [403, 403]

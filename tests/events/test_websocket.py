"""Websockets on a real ASGI server with Redis as the channel layer (catches redis-py 8)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import websockets
import websockets.exceptions  # a submodule: not an attribute until imported (the run order decided it)
from asgiref.sync import sync_to_async
from django.db import transaction

from apps.accounts.auth import dev_token_issue
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.core import ids
from apps.events.services import event_record
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _record(org, type_, data):
    from django.db import connection

    try:
        with transaction.atomic():
            event_record(organization=org, type=type_, data=data)
    finally:
        connection.close()  # this runs in an executor thread: do not leave its connection open


async def _receive_type(ws, wanted: str, timeout: float = 10.0) -> dict:
    async def loop():
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == wanted:
                return message

    return await asyncio.wait_for(loop(), timeout)


def test_an_event_reaches_the_organizations_websocket_through_redis():
    org = organization_get_or_create(name="Live Org")
    other = organization_get_or_create(name="Other Org")
    key = api_key_create(organization=org).secret
    other_key = api_key_create(organization=other).secret
    profile_id = uuid.uuid4()

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        async with (
            websockets.connect(f"{ws_url}?token={key}") as mine,
            websockets.connect(ws_url, subprotocols=["bearer", other_key]) as theirs,
        ):
            ready = await _receive_type(mine, "connection.ready")
            assert ready["data"]["organizationId"] == ids.render(org.pk, "organization")  # a key: Family A
            await _receive_type(theirs, "connection.ready")
            await sync_to_async(_record)(org, "profile.updated", {"profileId": str(profile_id)})
            message = await _receive_type(mine, "profile.updated")
            assert message["data"]["profileId"] == ids.render(profile_id, "profile")
            assert message["data"]["id"].startswith("evt_")
            assert message["sentAt"].endswith("Z")
            with pytest.raises(TimeoutError):
                await _receive_type(theirs, "profile.updated", timeout=1.0)

    with asgi_server() as base:
        asyncio.run(scenario(base))


def test_a_bad_token_is_refused_and_a_dev_token_is_accepted():
    org = organization_get_or_create(name="Token Org")
    token = dev_token_issue(organization=org, role="viewer", subject="ws-user")

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with websockets.connect(f"{ws_url}?token=pf_live_nope") as ws:
                await ws.recv()
        async with websockets.connect(f"{ws_url}?token={token}") as ws:
            # a token: Family B's UUIDs
            assert (await _receive_type(ws, "connection.ready"))["data"]["organizationId"] == str(org.pk)
            await ws.send(json.dumps({"action": "ping"}))
            assert (await _receive_type(ws, "pong"))["type"] == "pong"

    with asgi_server() as base:
        asyncio.run(scenario(base))

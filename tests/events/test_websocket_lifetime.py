"""A websocket lives no longer than its credential, is capped, and survives bad frames.

Real uvicorn servers, real websockets; the server and this process share PostgreSQL and the
Redis channel layer, so a revocation made here reaches the server's consumer through Redis.
"""

from __future__ import annotations

import asyncio
import json
import time

import jwt
import pytest
import websockets
import websockets.exceptions  # a submodule: not an attribute until imported
from asgiref.sync import sync_to_async

from apps.accounts.auth import dev_token_issue
from apps.accounts.services import api_key_create, api_key_revoke, organization_get_or_create
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


async def _receive_type(ws, wanted: str, timeout: float = 10.0) -> dict:
    async def loop():
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == wanted:
                return message

    return await asyncio.wait_for(loop(), timeout)


async def _closed_within(ws, seconds: float) -> int:
    """Wait for the server to close the socket; its close code."""

    async def drain():
        try:
            while True:
                await ws.recv()
        except websockets.exceptions.ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None

    return await asyncio.wait_for(drain(), seconds)


def _revoke(api_key):
    from django.db import connection

    try:
        api_key_revoke(api_key=api_key)
    finally:
        connection.close()


def test_revoking_a_key_closes_its_open_sockets_within_a_second_through_redis():
    org = organization_get_or_create(name="Revoke Org")
    issued = api_key_create(organization=org)
    other = api_key_create(organization=org).secret

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        async with (
            websockets.connect(f"{ws_url}?token={issued.secret}") as plain,
            websockets.connect(f"{ws_url}?token={issued.secret}") as subscribed,
            websockets.connect(f"{ws_url}?token={other}") as bystander,
        ):
            for ws in (plain, subscribed, bystander):
                await _receive_type(ws, "connection.ready")
            # a subscription leaves the organization's stream but not the credential's group
            await subscribed.send(json.dumps({"action": "unsubscribe"}))
            await _receive_type(subscribed, "unsubscribed")
            started = time.monotonic()
            await sync_to_async(_revoke)(issued.api_key)
            notice = await _receive_type(plain, "credential.revoked", timeout=1.0)
            assert "revoked" in notice["data"]["message"]
            assert await _closed_within(plain, 1.0) == 4401
            assert await _closed_within(subscribed, 1.0) == 4401
            assert time.monotonic() - started < 1.5
            # another key of the same organization keeps its socket
            await bystander.send(json.dumps({"action": "ping"}))
            assert (await _receive_type(bystander, "pong"))["type"] == "pong"
        # and the revoked key cannot open a new one
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with websockets.connect(f"{ws_url}?token={issued.secret}") as ws:
                await ws.recv()

    with asgi_server() as base:
        asyncio.run(scenario(base))


def test_a_jwt_socket_closes_itself_at_the_tokens_expiry():
    """The socket closes at the token's `exp`: not before it (the lower bound is the claim
    itself, not a timer of this test) and after it as soon as the server runs, however loaded
    the machine (the upper bound is a generous deadline on the event, not a measured delay)."""
    org = organization_get_or_create(name="Expiry Org")
    ttl = 6  # long enough to connect on a loaded machine; the test waits for the event, not a clock

    async def scenario(base):
        # issued once the server is up: its start must not eat the short token's life
        token = dev_token_issue(organization=org, role="viewer", subject="short-lived", ttl=ttl)
        exp = jwt.decode(token, options={"verify_signature": False})["exp"]
        long_token = dev_token_issue(organization=org, role="viewer", subject="long-lived", ttl=3600)
        ws_url = base.replace("http", "ws") + "/ws/events/"
        async with (
            websockets.connect(f"{ws_url}?token={token}", open_timeout=60) as short,
            websockets.connect(f"{ws_url}?token={long_token}", open_timeout=60) as long,
        ):
            await _receive_type(short, "connection.ready", timeout=60)
            await _receive_type(long, "connection.ready", timeout=60)
            notice = await _receive_type(
                short, "credential.expired", timeout=max(0.0, exp - time.time()) + 60
            )
            # the server sleeps until `exp` (its event loop's timer may wake a hair early)
            assert time.time() >= exp - 0.25, (time.time(), exp)
            assert "expired" in notice["data"]["message"]
            assert await _closed_within(short, 60) == 4401
            await long.send(json.dumps({"action": "ping"}))
            assert (await _receive_type(long, "pong", timeout=60))["type"] == "pong"

    with asgi_server() as base:
        asyncio.run(scenario(base))


def test_sockets_are_capped_per_credential_and_per_organization():
    org = organization_get_or_create(name="Cap Org")
    first = api_key_create(organization=org).secret
    second = api_key_create(organization=org).secret

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        a1 = await websockets.connect(f"{ws_url}?token={first}")
        a2 = await websockets.connect(f"{ws_url}?token={first}")
        for ws in (a1, a2):
            await _receive_type(ws, "connection.ready")
        with pytest.raises(websockets.exceptions.InvalidStatus):  # third socket of one key
            async with websockets.connect(f"{ws_url}?token={first}") as ws:
                await ws.recv()
        b1 = await websockets.connect(f"{ws_url}?token={second}")
        await _receive_type(b1, "connection.ready")
        with pytest.raises(websockets.exceptions.InvalidStatus):  # fourth of the organization
            async with websockets.connect(f"{ws_url}?token={second}") as ws:
                await ws.recv()
        await a1.close()
        await asyncio.sleep(0.2)  # let the server run the disconnect
        async with websockets.connect(f"{ws_url}?token={second}") as b2:  # a closed socket frees its place
            await _receive_type(b2, "connection.ready")
        await a2.close()
        await b1.close()

    with asgi_server(WS_MAX_CONNECTIONS_PER_CREDENTIAL=2, WS_MAX_CONNECTIONS_PER_ORGANIZATION=3) as base:
        asyncio.run(scenario(base))


def test_bad_frames_answer_an_error_and_keep_the_socket():
    org = organization_get_or_create(name="Frames Org")
    key = api_key_create(organization=org).secret

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        async with websockets.connect(f"{ws_url}?token={key}", max_size=None) as ws:
            await _receive_type(ws, "connection.ready")
            for frame in (
                b"\x00\x01\xff binary",
                "not json {",
                "[1, 2]",
                "[" * 100_000 + "]" * 100_000,
                json.dumps({"action": "subscribe", "contentId": {"x": 1}}),
            ):
                await ws.send(frame)
                error = await _receive_type(ws, "error")
                assert error["data"]["message"]
            await ws.send(json.dumps({"action": "ping"}))
            assert (await _receive_type(ws, "pong"))["type"] == "pong"

    with asgi_server() as base:
        asyncio.run(scenario(base))

"""Live generation progress for staff: the real consumer behind the real ASGI stack (session
auth middleware included), driven by Channels' WebsocketCommunicator on the in-memory layer.

The admin's change page opens this websocket with the staff session cookie and no token.
"""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator  # needs daphne (a dev dependency)
from django.contrib.auth import get_user_model
from django.test import Client

from apps.accounts.models import Membership
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.core import ids
from apps.generation.steps import report_progress
from tests.content.factories import make_content

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def communicator(path="/ws/events/", *, cookie: str | None = None, origin: str | None = "http://testserver"):
    from config.asgi import application

    headers = [(b"host", b"testserver")]
    if origin:
        headers.append((b"origin", origin.encode()))
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


def test_a_staff_session_without_a_token_subscribes_to_its_organizations_content_and_receives_its_progress():
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    org = organization_get_or_create(name="Acme")
    Membership.objects.create(organization=org, user=staff, role="editor")  # staff see their own
    content = make_content(org, status="generating")
    cookie = session_cookie(staff)

    async def scenario():
        ws = communicator(cookie=cookie)
        connected, _ = await ws.connect()
        assert connected
        assert await ws.receive_json_from() == {"type": "connection.ready", "data": {"staff": True}}
        await ws.send_json_to({"action": "subscribe", "contentId": str(content.pk)})
        assert (await ws.receive_json_from())["type"] == "subscribed"
        await database_sync_to_async(report_progress)(content, "text")  # what the pipeline sends
        message = await ws.receive_json_from()
        assert message["type"] == "content.generation.progress"
        assert message["data"] == {"contentId": str(content.pk), "stage": "text", "progress": 30}
        await ws.send_json_to({"action": "subscribe", "contentId": "cnt_" + "0" * 32})
        assert (await ws.receive_json_from())["data"]["message"] == "Unknown contentId."
        await ws.disconnect()

    asyncio.run(scenario())


def test_without_a_token_only_active_staff_on_our_own_origin_are_accepted():
    user_model = get_user_model()
    member = session_cookie(user_model.objects.create_user("member", password="x"))
    staff_user = user_model.objects.create_user("staff", password="x", is_staff=True)
    staff = session_cookie(staff_user)

    async def refused(ws) -> None:
        connected, code = await ws.connect()
        assert not connected and code == 4401

    async def scenario():
        await refused(communicator())  # nobody
        await refused(communicator(cookie=member))  # logged in, not staff
        await refused(communicator(cookie=staff, origin="https://evil.example"))  # cross-site
        await refused(communicator(cookie="not-a-session"))

    asyncio.run(scenario())
    staff_user.is_active = False
    staff_user.save()
    asyncio.run(refused(communicator(cookie=staff)))


def test_api_clients_keep_token_auth_and_their_organization_stream():
    org = organization_get_or_create(name="Acme")
    key = api_key_create(organization=org).secret
    content = make_content(org, status="generating")

    async def scenario():
        ws = communicator(f"/ws/events/?token={key}", origin=None)
        connected, _ = await ws.connect()
        assert connected
        # an API key's socket reads Family A's ids (`org_...`, `cnt_...`), as /v1 answers them
        assert (await ws.receive_json_from())["data"] == {
            "organizationId": ids.render(org.pk, "organization")
        }
        await database_sync_to_async(report_progress)(content, "media")
        message = await ws.receive_json_from()
        assert message["type"] == "content.generation.progress" and message["data"]["progress"] == 60
        assert message["data"]["contentId"] == ids.render(content.pk, "content")
        await ws.disconnect()

    asyncio.run(scenario())

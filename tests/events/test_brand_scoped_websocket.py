"""Issue 32: a member or key limited to some brands has no organization-wide event stream (its
events carry every brand's content); it subscribes to its brands' content only."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from asgiref.sync import sync_to_async

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content
from apps.core import ids
from tests.events.test_websocket import _receive_type, _record
from tests.factories import BrandFactory
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_brand_limited_socket_hears_only_its_brands_content():
    org = organization_get_or_create(name="Scoped Socket Org")
    mine = Brand.objects.get(organization=org, is_default=True)
    theirs = BrandFactory(organization=org, name="Client B")
    ours = Content.objects.create(
        organization=org, brand=mine, platforms=["x"], prompt="Ours", status=states.REVIEW
    )
    other = Content.objects.create(
        organization=org, brand=theirs, platforms=["x"], prompt="Theirs", status=states.REVIEW
    )
    limited = api_key_create(organization=org, role="viewer", brand_ids=[str(theirs.pk)]).secret
    everyone = api_key_create(organization=org, role="viewer").secret

    def data(content):
        return {"contentId": str(content.pk), "status": content.status, "platforms": content.platforms}

    async def scenario(base):
        ws_url = base.replace("http", "ws") + "/ws/events/"
        async with (
            websockets.connect(f"{ws_url}?token={limited}") as scoped,
            websockets.connect(f"{ws_url}?token={everyone}") as full,
        ):
            await _receive_type(scoped, "connection.ready")
            await _receive_type(full, "connection.ready")
            await sync_to_async(_record)(org, "content.updated", data(ours))
            heard = await _receive_type(full, "content.updated")
            assert heard["data"]["contentId"] == ids.render(ours.pk, "content")
            with pytest.raises(TimeoutError):  # no organization-wide stream for a brand-limited key
                await _receive_type(scoped, "content.updated", timeout=1.0)

            await scoped.send(json.dumps({"action": "subscribe", "contentId": str(ours.pk)}))
            refused = await _receive_type(scoped, "error")
            assert refused["data"]["message"] == "Unknown contentId."

            await scoped.send(json.dumps({"action": "subscribe", "contentId": str(other.pk)}))
            await _receive_type(scoped, "subscribed")
            await sync_to_async(_record)(org, "content.updated", data(other))
            got = await _receive_type(scoped, "content.updated")
            assert got["data"]["contentId"] == ids.render(other.pk, "content")

    with asgi_server() as base:
        asyncio.run(scenario(base))

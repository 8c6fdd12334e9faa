"""An event fanned out to many sockets is rendered and encoded once per family (issue 33).

The channel layer gives each socket of a process its own copy of a group message; the events
consumer must not render and encode that copy again for every socket: 500 sockets of one
organization paid 500 encodings of the same frame (bench/realtime.py's p99 rose from 91-107 ms
to 167-179 ms). Here 40 consumers of two families receive the same event, as copies; the
frame is encoded once per family, and every socket sends exactly its family's text.
"""

from __future__ import annotations

import asyncio
import copy
import json
import uuid

import pytest

from apps.core import ids
from apps.events.consumers import EventsConsumer
from apps.events.dispatch import message
from tests.events.asyncapi_check import message_errors

SOCKETS_PER_FAMILY = 20


def test_one_event_to_many_sockets_is_encoded_once_per_family(monkeypatch):
    profile_id, event_id = uuid.uuid4(), uuid.uuid4()
    sent = message(
        "profile.updated",
        {
            "id": str(event_id),
            "sequence": 7,
            "occurredAt": "2026-11-29T06:00:00Z",
            "profileId": str(profile_id),
        },
    )
    encoded: list[str] = []
    real_dumps = json.dumps

    def counting_dumps(value, *args, **kwargs):
        if isinstance(value, dict) and value.get("type") == "profile.updated":
            encoded.append(value["data"]["profileId"])
        return real_dumps(value, *args, **kwargs)

    monkeypatch.setattr(json, "dumps", counting_dumps)
    received: dict[str, list[str]] = {"v1": [], "api": []}

    def consumer(family: str) -> EventsConsumer:
        one = EventsConsumer()
        one.family = family

        async def base_send(frame: dict) -> None:
            assert frame["type"] == "websocket.send"
            received[family].append(frame["text"])

        one.base_send = base_send
        return one

    async def fan_out() -> None:
        consumers = [consumer(f) for f in ("v1", "api") for _ in range(SOCKETS_PER_FAMILY)]
        # each socket's copy, as the channel layer deserializes one per socket
        await asyncio.gather(*(c.event_message(copy.deepcopy(sent)) for c in consumers))

    asyncio.run(fan_out())

    assert sorted(encoded) == sorted([ids.render(profile_id, "profile"), str(profile_id)])
    for family, texts in received.items():
        assert len(texts) == SOCKETS_PER_FAMILY and len(set(texts)) == 1, family
        frame = json.loads(texts[0])
        assert message_errors(frame, family) == [], frame
        assert frame["data"]["sequence"] == 7
    assert json.loads(received["v1"][0])["data"]["profileId"] == ids.render(profile_id, "profile")
    assert json.loads(received["api"][0])["data"]["profileId"] == str(profile_id)


@pytest.mark.services
@pytest.mark.handmade_events  # a hand-made event.message: the layer's plumbing, not an event
def test_the_pubsub_layer_decodes_a_group_message_once_for_every_socket_of_the_process():
    """channels-redis's pub/sub layer hands one byte string to every local socket of a group,
    and each decoded it; ours decodes an `event.message` once (and any other message per
    socket, as before: only the events consumer is known to leave what it reads unchanged)."""
    from django.conf import settings as live

    from apps.events.layers import SharedPubSubChannelLayer

    assert live.CHANNEL_LAYERS["default"]["BACKEND"] == "apps.events.layers.SharedPubSubChannelLayer"
    layer = SharedPubSubChannelLayer(hosts=[live.REDIS_URL])
    group = f"org.fanout{uuid.uuid4().hex}"

    async def scenario() -> tuple[list[dict], list[dict]]:
        channels = [await layer.new_channel() for _ in range(5)]
        for channel in channels:
            await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "event.message", "payload": {"type": "pong", "data": {}}})
        events = [await asyncio.wait_for(layer.receive(c), 10) for c in channels]
        await layer.group_send(group, {"type": "credential.revoked"})
        others = [await asyncio.wait_for(layer.receive(c), 10) for c in channels]
        await layer.flush()
        return events, others

    events, others = asyncio.run(scenario())
    assert all(e == {"type": "event.message", "payload": {"type": "pong", "data": {}}} for e in events)
    assert len({id(e) for e in events}) == 1  # decoded once, shared
    assert all(o == {"type": "credential.revoked"} for o in others)
    assert len({id(o) for o in others}) == len(others)  # decoded for each

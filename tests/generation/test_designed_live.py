"""Progress during the media render, as a websocket client sees it: a TikTok video generated on
a real Celery worker reports figures between the text (30) and the end of the media (60) while
its frames are encoded, not one jump from 30 to 60."""

from __future__ import annotations

import asyncio

import pytest

from apps.content import services
from apps.core import ids
from tests.generation.test_live_generation import OUTCOMES, _follow, broker, tenant  # noqa: F401
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_video_reports_progress_while_its_frames_render(broker, tenant):  # noqa: F811
    org, brand, key = tenant
    content = services.content_request_generation(
        organization=org,
        inp=services.GenerationInput(
            prompt="Our bakery opens on Saturday 14 June at 8am on Rue Verte.",
            platforms=["tiktok"],
            brand=brand,
            media_type="video",
            post_type="short",
        ),
    )
    with asgi_server() as base:
        messages = asyncio.run(
            _follow(
                base,
                key,
                {"contentId": ids.render(content.pk, "content")},
                lambda m: m["type"] in OUTCOMES,
                concurrency=1,
            )
        )
    assert messages[-1]["type"] == "content.generated", [m["type"] for m in messages]
    media = [m["data"]["progress"] for m in messages if m["type"] == "content.generation.progress"]
    during = [v for v in media if 30 < v < 60]
    assert len(set(during)) >= 3, media  # the render reported itself on its way
    assert media == sorted(media)

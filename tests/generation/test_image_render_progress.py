"""Progress during an image's render (issue 21): the local engine reports its steps (scene or
design, draw, encode) between the text (30) and the end of the media (60), so a picture does
not sit at 30 % for its whole render. (Videos: tests/generation/test_designed_live.py.)"""

from __future__ import annotations

import pytest

from apps.brands.models import Brand
from apps.content import services
from apps.content.models import Content

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_image_generation_reports_progress_inside_the_render(events_sent):
    from apps.accounts.services import organization_get_or_create

    org = organization_get_or_create(name="Render Progress Org")
    brand = Brand.objects.get(organization=org, is_default=True)
    content = services.content_request_generation(  # eager Celery: generated in this process
        organization=org,
        inp=services.GenerationInput(
            prompt="Our bakery opens on Saturday 14 June at 8am on Rue Verte.",
            platforms=["instagram"],
            brand=brand,
        ),
    )
    assert Content.objects.get(pk=content.pk).status == "review"
    progress = [
        (e["data"]["stage"], e["data"]["progress"])
        for e in events_sent()
        if e["type"] == "content.generation.progress" and e["data"]["contentId"] == str(content.pk)
    ]
    figures = [p for _, p in progress]
    assert figures == sorted(figures) and figures[-1] == 100, progress
    during = [p for stage, p in progress if stage == "media" and 30 < p < 60]
    # each of the render's steps (design, draw, encode), however fast, between the text (30) and
    # the media's end (60)
    assert during == [40, 50], progress

"""A running chunk renews its publications' lease (issue 9): a short lease only expires
when the worker is gone, so a dead worker's posts are reconciled within a minute while a
slow upload is never taken from a live one."""

from __future__ import annotations

import time

import pytest

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content, Variant
from apps.publishing import services
from apps.publishing.models import Publication, SandboxPost
from apps.publishing.platforms.sandbox import SandboxClient
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_slow_publication_keeps_its_lease_and_the_sweep_leaves_it_alone(owner, settings, monkeypatch):
    settings.PUBLISH_HEARTBEAT_SECONDS = 0.2
    settings.PUBLISH_LEASE_SECONDS = 1
    settings.PUBLISH_CHUNK_SECONDS = 0
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="instagram", sandbox=True)
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["instagram"], prompt="Slow", status=states.REVIEW
    )
    Variant.objects.create(content=content, platform="instagram", caption="Slow upload", hashtags=[])
    leases, swept = [], []
    real_publish = SandboxClient.publish

    def slow_publish(self, req):
        deadline = time.monotonic() + 2.5  # 2.5 lease lengths
        while time.monotonic() < deadline:
            leases.append(
                Publication.objects.filter(content=content).values_list("lease_until", flat=True).get()
            )
            swept.append(services.sweep())
            time.sleep(0.1)
        return real_publish(self, req)

    monkeypatch.setattr(SandboxClient, "publish", slow_publish)
    _, [pub] = services.publications_publish_now(content=content, profiles=[profile])
    assert pub.status == Publication.PUBLISHED
    assert len({lease for lease in leases if lease}) >= 5  # renewed all along
    assert set(swept) == {0}  # never taken from the live worker
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1


def test_without_a_heartbeat_the_lease_is_short(settings):
    assert (
        settings.PUBLISH_LEASE_SECONDS <= 60
        and settings.PUBLISH_HEARTBEAT_SECONDS < settings.PUBLISH_LEASE_SECONDS
    )

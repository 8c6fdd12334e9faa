"""Concurrent publish-now and schedule calls on one content serialize (issue 9).

Each caller is a thread with its own PostgreSQL connection, going through the HTTP layer
of family A: exactly one publish-now is accepted (202), every other caller gets a 409
naming the publication already in progress, nobody gets a 500, and the post goes out once.
"""

from __future__ import annotations

import datetime
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content, Variant
from apps.publishing.models import Publication, SandboxPost
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _setup(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="instagram", sandbox=True)
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["instagram"], prompt="Launch", status=states.REVIEW
    )
    Variant.objects.create(content=content, platform="instagram", caption="Launch day", hashtags=["#launch"])
    return profile, content


def _all_at_once(n: int, call) -> list:
    barrier = threading.Barrier(n)

    def run(i):
        try:
            barrier.wait(timeout=30)
            return call(i)
        finally:
            connection.close()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(run, range(n)))


@pytest.mark.parametrize("n", [10, 50])
def test_concurrent_publish_now_gives_one_202_and_clear_409s(owner, n):
    profile, content = _setup(owner)
    url = f"/v1/content/cnt_{content.pk.hex}/publish"
    body = {"profiles": [f"prf_{profile.pk.hex}"]}

    def call(_):
        response = owner.client().post(url, body, format="json")
        return response.status_code, response.json()

    results = _all_at_once(n, call)
    codes = sorted(code for code, _ in results)
    assert 500 not in codes, [r for r in results if r[0] >= 500]
    assert codes.count(202) == 1, codes
    assert codes.count(409) == n - 1, codes
    pub = Publication.objects.get(content=content)
    conflicts = [b for code, b in results if code == 409]
    # each 409 names the publication in progress (or says the content already went out)
    # (when the winner has already published by the time a caller gets the lock, the 409 says so)
    for b in conflicts:
        details = b["error"]["details"]
        assert b["error"]["message"]
        assert details.get("publicationId") == f"pub_{pub.pk.hex}" or details.get("status") == "published", b
    assert pub.status == Publication.PUBLISHED
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1


@pytest.mark.parametrize("n", [10, 50])
def test_concurrent_schedule_and_publish_now_never_500(owner, n):
    profile, content = _setup(owner)
    when = (timezone.now() + datetime.timedelta(hours=2)).isoformat()
    base = f"/v1/content/cnt_{content.pk.hex}"
    body = {"profiles": [f"prf_{profile.pk.hex}"]}

    def call(i):
        client = owner.client()
        if i % 2:
            response = client.post(f"{base}/schedule", {**body, "scheduledFor": when}, format="json")
        else:
            response = client.post(f"{base}/publish", body, format="json")
        return i % 2, response.status_code, response.json()

    results = _all_at_once(n, call)
    assert all(code in (200, 202, 409) for _, code, _ in results), [
        r for r in results if r[1] not in (200, 202, 409)
    ]
    assert sum(1 for kind, code, _ in results if kind == 0 and code == 202) <= 1
    for _, code, b in results:
        if code == 409:
            assert b["error"]["message"]
    assert Publication.objects.filter(content=content).count() == 1
    pub = Publication.objects.get(content=content)
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == (
        1 if pub.status == Publication.PUBLISHED else 0
    )

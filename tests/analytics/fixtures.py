"""A hand-computed fixture: four posts around the 2026 European DST change (29 March)."""

from __future__ import annotations

import datetime

from apps.analytics.models import PostSnapshot
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import BrandFactory, ProfileFactory

UTC = datetime.UTC


def at(*args) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=UTC)


def publish(org, profile, when, **snapshot):
    content = make_content(
        org, brand=profile.brand, status="published", image=False, platforms=(profile.platform,)
    )
    pub = Publication.objects.create(
        organization=org,
        content=content,
        profile=profile,
        platform=profile.platform,
        scheduled_for=when,
        due_at=when,
        status="published",
        published_at=when,
        external_id=f"ext-{content.pk}",
    )
    if snapshot:
        PostSnapshot.objects.create(
            organization=org,
            publication=pub,
            content=content,
            profile=profile,
            platform=profile.platform,
            published_at=when,
            taken_at=when + datetime.timedelta(hours=5),
            **snapshot,
        )
    return pub


def build(org, other_org):
    """Returns the publications by letter.

    A  instagram 2026-03-28 23:30Z (Paris 00:30 on the 29th, CET)  reach 200, eng 10+5+3+2=20 -> 10 % of reach
    B  instagram 2026-03-29 12:00Z (Paris 14:00, CEST)              views 400 (no reach), eng 30+10=40 -> 10 % of views
    C  x         2026-03-30 22:30Z (Paris 00:30 on the 31st)        impressions 1000, eng 40+5+5=50 -> 5 % of impressions
       (an older snapshot of C, not the latest, must not count)
    D  x         2026-04-01 08:00Z                                  no snapshot yet
    E  another organization, 2026-03-29                            must never count
    """
    brand = BrandFactory(organization=org)
    ig = ProfileFactory(organization=org, brand=brand, platform="instagram", follower_count=1000)
    x = ProfileFactory(organization=org, brand=brand, platform="x", follower_count=500)
    a = publish(
        org, ig, at(2026, 3, 28, 23, 30), views=300, reach=200, likes=10, comments=5, shares=3, saves=2
    )
    b = publish(
        org,
        ig,
        at(2026, 3, 29, 12, 0),
        views=400,
        likes=30,
        comments=10,
        unavailable={"reach": "not reported by the platform"},
    )
    c = publish(org, x, at(2026, 3, 30, 22, 30), impressions=1000, likes=40, replies=5, reposts=5)
    PostSnapshot.objects.filter(publication=c).update(latest=True)
    PostSnapshot.objects.create(
        organization=org,
        publication=c,
        content=c.content,
        profile=x,
        platform="x",
        published_at=c.published_at,
        taken_at=c.published_at + datetime.timedelta(hours=1),
        impressions=90,
        likes=1,
        latest=False,
    )
    d = publish(org, x, at(2026, 4, 1, 8, 0))
    other = ProfileFactory(organization=other_org, platform="instagram")
    e = publish(other_org, other, at(2026, 3, 29, 9, 0), reach=999, likes=999)
    return {"A": a, "B": b, "C": c, "D": d, "E": e, "ig": ig, "x": x, "other": other}

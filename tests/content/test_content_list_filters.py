"""The content and posting lists: their filters (content/filters.py, publishing/filters.py): each
family's query names, and a bad value is a 400 in the family's error format naming the parameter."""

from __future__ import annotations

import pytest

from apps.platforms import rules as platform_rules
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db

PLATFORMS = ", ".join(platform_rules.SUPPORTED_PLATFORMS)
STATUS_A = (
    "draft, pending, generating, generated, approved, rejected, scheduled, publishing, published, failed"
)


def refused_a(response) -> dict:
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error", "requestId"}
    return body["error"]


def refused_b(response) -> dict:
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error", "details"} and body["details"].pop("code") == "VALIDATION_ERROR"
    return body


def test_family_a_lists_content_by_status_platform_profile_and_dates(api, owner):
    profile = ProfileFactory(organization=owner.org, platform="x")
    a = make_content(owner.org, status="review", platforms=("instagram",))
    b = make_content(owner.org, status="failed", platforms=("x",), profile=profile)
    ids = lambda url: [x["id"] for x in api.get(url).json()["data"]]  # noqa: E731
    assert ids("/v1/content") == [f"cnt_{b.pk.hex}", f"cnt_{a.pk.hex}"]
    assert ids("/v1/content?status=generated,failed&sortOrder=asc") == [f"cnt_{a.pk.hex}", f"cnt_{b.pk.hex}"]
    assert ids("/v1/content?status=failed") == [f"cnt_{b.pk.hex}"]
    assert ids("/v1/content?platform=instagram") == [f"cnt_{a.pk.hex}"]
    assert ids(f"/v1/content?profileId=prf_{profile.pk.hex}") == [f"cnt_{b.pk.hex}"]
    day = a.created_at.date().isoformat()
    assert ids(f"/v1/content?startDate={day}&endDate={day}&status=generated") == [f"cnt_{a.pk.hex}"]
    assert ids("/v1/content?endDate=2000-01-01") == []
    assert ids("/v1/content?startDate=&status=") == [f"cnt_{b.pk.hex}", f"cnt_{a.pk.hex}"]  # empty: no filter


@pytest.mark.parametrize(
    ("query", "error"),
    [
        (
            "status=reviewing",
            {
                "code": "VALIDATION_ERROR",
                "message": "Unknown status: reviewing.",
                "details": {"status": [f"Allowed: {STATUS_A}."]},
            },
        ),
        (
            "platform=myspace",
            {
                "code": "VALIDATION_ERROR",
                "message": "Unknown platform 'myspace'.",
                "details": {"platform": [f"Must be one of {PLATFORMS}."]},
            },
        ),
        (
            "profileId=nope",
            {
                "code": "VALIDATION_ERROR",
                "message": "Invalid profileId.",
                "details": {"profileId": ["Not a profile id."]},
            },
        ),
        (
            "startDate=yesterday",
            {
                "code": "VALIDATION_ERROR",
                "message": "'startDate' must be an ISO 8601 date or timestamp.",
                "details": {"startDate": ["Invalid date."]},
            },
        ),
        (
            "endDate=2024-13-01",
            {
                "code": "VALIDATION_ERROR",
                "message": "'endDate' must be an ISO 8601 date or timestamp.",
                "details": {"endDate": ["Invalid date."]},
            },
        ),
    ],
)
def test_family_a_refuses_a_bad_filter_value_naming_it(api, query, error):
    assert refused_a(api.get(f"/v1/content?{query}")) == error


def test_family_b_refuses_a_bad_filter_value_naming_it(api, owner, outsider):
    theirs = ProfileFactory(organization=outsider.org, platform="x")
    bodies = {
        query: refused_b(api.get(f"/api/content?{query}"))
        for query in (
            "status=generated",
            "platform=myspace",
            f"profileId={theirs.pk}",
            "tagId=nope",
            "campaignId=nope",
            "date_from=yesterday",
        )
    }
    assert {q: (b["error"], b["details"]) for q, b in bodies.items()} == {
        "status=generated": (
            "Unknown status: generated.",
            {
                "status": [
                    "Allowed: draft, pending, generating, reviewing, approved, rejected, scheduled, publishing, published, "
                    "failed."
                ]
            },
        ),
        "platform=myspace": ("Unknown platform 'myspace'.", {"platform": [f"Must be one of {PLATFORMS}."]}),
        f"profileId={theirs.pk}": ("Unknown profileId.", {"profileId": ["Not found."]}),
        "tagId=nope": ("Unknown tagId.", {"tagId": ["Not found."]}),
        "campaignId=nope": ("Unknown campaignId.", {"campaignId": ["Not found."]}),
        "date_from=yesterday": (
            "'date_from' must be an ISO 8601 date or timestamp.",
            {"date_from": ["Invalid date."]},
        ),
    }
    schedules = refused_b(api.get("/api/content/schedules?status=bogus"))
    assert (schedules["error"], schedules["details"]) == (
        "Unknown status 'bogus'.",
        {"status": ["Allowed: planned, generating, generated, failed."]},
    )
    posts = refused_b(api.get("/api/posts/scheduled?profileId=not-a-uuid"))
    assert (posts["error"], posts["details"]) == ("Invalid profileId.", {"profileId": ["Not an id."]})


def test_family_b_lists_the_scheduled_posts_of_the_profile_named(api, owner, outsider):
    import datetime

    from django.utils import timezone

    from apps.publishing.models import Publication

    when = timezone.now() + datetime.timedelta(days=1)
    mine, other = (ProfileFactory(organization=owner.org, platform="x") for _ in range(2))
    content = make_content(owner.org, status="scheduled", platforms=("x",), image=False)
    pubs = {
        profile.pk: Publication.objects.create(
            organization=owner.org,
            content=content,
            profile=profile,
            platform="x",
            scheduled_for=when,
            due_at=when,
        )
        for profile in (mine, other)
    }
    ids = lambda url: [x["id"] for x in api.get(url).json()["data"]]  # noqa: E731
    assert sorted(ids("/api/posts/scheduled")) == sorted(str(p.pk) for p in pubs.values())
    assert ids(f"/api/posts/scheduled?profileId={mine.pk}") == [str(pubs[mine.pk].pk)]
    assert len(ids("/api/posts/scheduled?profileId=")) == 2  # empty: no filter
    theirs = ProfileFactory(organization=outsider.org, platform="x")
    assert ids(f"/api/posts/scheduled?profileId={theirs.pk}") == []  # another organization's: none of mine


def test_a_list_item_is_the_content_as_its_own_page_shows_it(api, owner):
    # the list reads a page's variants, media and publications as plain rows (selectors.content_page),
    # the item page through the models: both must say the same, byte for byte
    import datetime

    from django.utils import timezone

    from apps.content.models import Tag
    from apps.publishing.models import Publication
    from tests.factories import BrandFactory

    strict = BrandFactory(organization=owner.org, generation_settings={"require_approval": True})
    profile = ProfileFactory(organization=owner.org, brand=strict, platform="instagram")
    tag = Tag.objects.create(organization=owner.org, name="autumn")
    review = make_content(owner.org, brand=strict, status="review", platforms=("instagram", "x", "linkedin"))
    review.tags.add(tag, Tag.objects.create(organization=owner.org, name="soup"))  # ids sorted in B
    scheduled = make_content(owner.org, status="scheduled", platforms=("tiktok",), image=False)
    when = timezone.now() + datetime.timedelta(days=1)
    Publication.objects.create(
        organization=owner.org,
        content=scheduled,
        profile=profile,
        platform="instagram",
        scheduled_for=when,
        due_at=when,
    )
    other = ProfileFactory(organization=owner.org, brand=strict, platform="x")
    Publication.objects.create(
        organization=owner.org,
        content=scheduled,
        profile=other,
        platform="x",
        scheduled_for=when + datetime.timedelta(hours=1),
        due_at=when,
        last_error="rate limited",
    )
    make_content(owner.org, status="failed", image=False)
    listed_a = api.get("/v1/content").json()["data"]
    listed_b = api.get("/api/content").json()["data"]
    assert len(listed_a) == len(listed_b) == 3
    assert [len(x["publications"]) for x in listed_a] == [0, 2, 0]
    assert "schedule" not in listed_a[2]["allowedActions"]  # in review, its brand requires approval
    for item in listed_a:
        alone = api.get(f"/v1/content/{item['id']}").json()
        alone.pop("analytics")
        assert item == alone and list(item) == list(alone)
    assert [len(x["tagIds"]) for x in listed_b] == [0, 0, 2]
    for item in listed_b:
        alone = api.get(f"/api/content/{item['id']}").json()["data"]
        assert item == alone and list(item) == list(alone)

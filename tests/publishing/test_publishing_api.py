"""Scheduling and publishing over HTTP in both families."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content, Variant
from apps.publishing.models import Publication, SandboxPost
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def setup(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="instagram", sandbox=True)
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["instagram"], prompt="Launch", status=states.REVIEW
    )
    Variant.objects.create(content=content, platform="instagram", caption="Launch day", hashtags=["#launch"])
    return brand, profile, content


def future(hours=2) -> str:
    return (timezone.now() + datetime.timedelta(hours=hours)).isoformat()


def test_family_a_schedules_content_and_shows_its_publications(owner, setup):
    _, profile, content = setup
    response = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/schedule",
        {
            "scheduledFor": future(),
            "profiles": [f"prf_{profile.pk.hex}"],
            "options": {"firstComment": "More in bio", "timezone": "Europe/Paris"},
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "scheduled" and body["scheduledFor"].endswith("Z")
    [pub] = body["publications"]
    assert (
        pub["profileId"] == f"prf_{profile.pk.hex}"
        and pub["status"] == "scheduled"
        and pub["id"].startswith("pub_")
    )
    assert Publication.objects.get(content=content).options["firstComment"] == "More in bio"


def test_family_a_refuses_bad_schedules_clearly(owner, setup):
    brand, profile, content = setup
    client = owner.client()
    url = f"/v1/content/cnt_{content.pk.hex}/schedule"
    past = client.post(
        url,
        {
            "scheduledFor": (timezone.now() - datetime.timedelta(hours=1)).isoformat(),
            "profiles": [f"prf_{profile.pk.hex}"],
        },
        format="json",
    )
    assert past.status_code == 400 and "scheduledFor" in past.json()["error"]["details"]
    tz = client.post(
        url,
        {
            "scheduledFor": future(),
            "profiles": [f"prf_{profile.pk.hex}"],
            "options": {"timezone": "Nowhere/Land"},
        },
        format="json",
    )
    assert tz.status_code == 400
    tiktok = ProfileFactory(organization=owner.org, brand=brand, platform="tiktok", sandbox=True)
    wrong = client.post(url, {"scheduledFor": future(), "profiles": [f"prf_{tiktok.pk.hex}"]}, format="json")
    assert wrong.status_code == 400 and "tiktok" in str(wrong.json()["error"]["details"])
    brand.generation_settings = {"require_approval": True}
    brand.save()
    unapproved = client.post(
        url, {"scheduledFor": future(), "profiles": [f"prf_{profile.pk.hex}"]}, format="json"
    )
    assert unapproved.status_code == 409
    assert unapproved.json()["error"]["details"]["requiresApproval"] is True


def test_family_b_answers_422_for_unapproved_content(owner, setup):
    brand, profile, content = setup
    brand.generation_settings = {"require_approval": True}
    brand.save()
    response = owner.token_client().post(
        "/api/posts/scheduled",
        {"contentId": str(content.pk), "profileIds": [str(profile.pk)], "scheduledFor": future()},
        format="json",
    )
    assert response.status_code == 422
    assert response.json()["details"]["requiresApproval"] is True


def test_family_a_publish_now_with_a_failing_platform_is_a_502_with_its_message(owner, setup):
    _, profile, content = setup
    profile.settings = {**profile.settings, "sandbox": {"fail": "permanent", "times": 1}}
    profile.save()
    response = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/publish", {"profiles": [f"prf_{profile.pk.hex}"]}, format="json"
    )
    assert response.status_code == 502
    body = response.json()
    assert body["error"]["code"] == "PLATFORM_ERROR"
    assert "media not accepted" in body["error"]["message"]
    assert body["error"]["details"]["publications"][0]["platform"] == "instagram"


def test_family_a_publish_now_goes_out_and_answers_202(owner, setup):
    _, profile, content = setup
    response = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/publish", {"profiles": [f"prf_{profile.pk.hex}"]}, format="json"
    )
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "published" and body["publishedAt"]
    assert body["publications"][0]["url"].startswith("http")
    assert SandboxPost.objects.filter(profile=profile).count() == 1


def test_cross_post_without_profiles_targets_the_brands_connected_profiles(owner, setup):
    _, profile, content = setup
    response = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/schedule",
        {"scheduledFor": future(), "options": {"crossPost": True}},
        format="json",
    )
    assert response.status_code == 200
    assert [p["profileId"] for p in response.json()["publications"]] == [f"prf_{profile.pk.hex}"]


def test_cross_post_with_no_connected_profile_on_the_contents_platforms_is_a_400(owner, setup):
    _, profile, content = setup
    profile.connected = False
    profile.save()
    response = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/schedule",
        {"scheduledFor": future(), "options": {"crossPost": True}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "Give the profiles to publish to.",
        "details": {"profiles": ["At least one profile id is required."]},
    }


def test_family_b_lists_queues_and_cancels_scheduled_posts(owner, setup):
    _brand, profile, content = setup
    profile.settings = {"timezone": "UTC", "postingTimes": ["10:00"]}
    profile.save()
    client = owner.token_client()
    queued = client.post(
        "/api/posts/queue", {"contentId": str(content.pk), "profileId": str(profile.pk)}, format="json"
    )
    assert queued.status_code == 201, queued.json()
    assert queued.json()["data"]["publications"][0]["scheduledFor"].endswith("T10:00:00Z")
    listing = client.get("/api/posts/scheduled").json()
    assert listing["pagination"]["total"] == 1
    pub_id = listing["data"][0]["id"]
    queue = client.get("/api/posts/queue").json()["data"]
    assert [p["id"] for p in queue["publications"]] == [pub_id]
    assert queue["nextSlots"][str(profile.pk)].endswith("T10:00:00Z")
    assert client.delete(f"/api/posts/scheduled/{pub_id}").status_code == 204
    content.refresh_from_db()
    assert content.status == "approved"
    assert client.get("/api/posts/scheduled").json()["pagination"]["total"] == 0


def test_family_b_publishes_now(owner, setup):
    _, profile, content = setup
    response = owner.token_client().post(
        "/api/posts/publish", {"contentId": str(content.pk), "profileIds": [str(profile.pk)]}, format="json"
    )
    assert response.status_code == 202
    assert response.json()["data"]["status"] == "published"

"""Analytics name content as their family's REST API does (issue 21): Family B's
`/api/analytics/content` rows and the overview's `topPosts` answer UUIDs and Family B's status
words (they answered `cnt_...`), Family A's profile report `cnt_...` ids; each id opens the same
content in its family's GET content, which answers the same id and status."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.utils import timezone

from apps.core import ids
from tests.analytics.fixtures import build, publish
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db
PERIOD = "startDate=2026-03-01&endDate=2026-04-30"


def _uuid(value: str) -> bool:
    return str(uuid.UUID(value)) == value


def test_family_b_content_rows_name_content_as_get_api_content_does(owner, outsider):
    build(owner.org, outsider.org)
    client = owner.token_client()
    rows = client.get(f"/api/analytics/content?{PERIOD}&limit=10").json()["data"]
    assert len(rows) == 4
    for row in rows:
        assert _uuid(row["contentId"]), row
        content = client.get(f"/api/content/{row['contentId']}").json()["data"]
        assert (content["id"], content["status"]) == (row["contentId"], row["status"])


def test_family_b_overview_top_posts_and_statuses_are_family_b(owner):
    from tests.content.factories import make_content

    ig = ProfileFactory(organization=owner.org, platform="instagram")
    pub = publish(owner.org, ig, timezone.now() - datetime.timedelta(days=2), reach=100, likes=30)
    make_content(owner.org, status="review")  # ready for review: Family B says `reviewing`
    client = owner.token_client()
    body = client.get("/api/analytics/overview?period=30d").json()["data"]
    assert [p["contentId"] for p in body["topPosts"]] == [str(pub.content_id)]
    content = client.get(f"/api/content/{body['topPosts'][0]['contentId']}").json()["data"]
    assert content["id"] == str(pub.content_id)
    assert body["contentByStatus"] == {"published": 1, "reviewing": 1}


def test_family_a_profile_report_names_content_as_get_v1_content_does(owner, outsider):
    posts = build(owner.org, outsider.org)
    client = owner.client()
    profile = ids.render(posts["ig"].pk, "profile")
    body = client.get(f"/v1/analytics/profiles/{profile}?{PERIOD}").json()
    top = body["topContent"]
    assert top, body
    for item in top:
        assert item["id"].startswith("cnt_")
        assert client.get(f"/v1/content/{item['id']}").json()["id"] == item["id"]

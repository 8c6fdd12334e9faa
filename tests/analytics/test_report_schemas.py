"""The analytics reports are declared in the OpenAPI schemas as they are answered (issue 28).

`/v1/analytics/content`, `/v1/analytics/profiles/{id}` and `/api/analytics/overview` were
untyped objects: a generated client could read nothing of them but a dict. Each answer on the
hand-computed fixture must now conform to its declared schema, which is closed
(`additionalProperties: false`) and types every field; and `/api`'s publications declare their
ids as UUIDs (a generated Python client then compares them with the other objects' UUIDs).
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.core import ids
from tests.analytics.fixtures import build, publish
from tests.factories import ProfileFactory
from tests.openapi_check import _schema, assert_conforms, declared

pytestmark = pytest.mark.django_db
PERIOD = "startDate=2026-03-01&endDate=2026-04-30"


def test_the_reports_are_declared_objects_with_typed_fields():
    for family, path in (
        ("v1", "/analytics/content"),
        ("v1", "/analytics/profiles/{id}"),
        ("api", "/analytics/overview"),
    ):
        schema = declared(family, path, "get", 200)
        body = schema["properties"]["data"] if family == "api" else schema
        assert body["type"] == "object" and body["additionalProperties"] is False, (family, path)
        assert len(body["properties"]) >= 4, (family, path)
    overview = declared("api", "/analytics/overview", "get", 200)["properties"]["data"]
    assert overview["properties"]["topPosts"]["items"]["properties"]["contentId"]["format"] == "uuid"
    publication = _schema("api")["components"]["schemas"]["PublicationOutput"]["properties"]
    assert all(
        publication[f] == {"type": "string", "format": "uuid"} for f in ("id", "contentId", "profileId")
    )


def test_each_report_answers_what_its_schema_declares(owner, outsider):
    posts = build(owner.org, outsider.org)
    a = owner.client()
    content = a.get(f"/v1/analytics/content?{PERIOD}&metric=likes")
    assert content.status_code == 200
    assert content.json()["metrics"]["totalPosts"] == 4 and content.json()["breakdown"]
    assert_conforms("v1", "/analytics/content", "get", 200, content.json())
    profile = a.get(f"/v1/analytics/profiles/{ids.render(posts['ig'].pk, 'profile')}?{PERIOD}")
    assert profile.status_code == 200 and profile.json()["topContent"]
    assert_conforms("v1", "/analytics/profiles/{id}", "get", 200, profile.json())
    # a report that the period leaves empty conforms too
    empty = a.get("/v1/analytics/content?startDate=2020-01-01&endDate=2020-01-31")
    assert_conforms("v1", "/analytics/content", "get", 200, empty.json())

    ig = ProfileFactory(organization=owner.org, platform="instagram")
    publish(owner.org, ig, timezone.now() - datetime.timedelta(days=3), reach=100, likes=30)
    overview = owner.token_client().get("/api/analytics/overview?period=30d").json()
    assert overview["data"]["topPosts"] and overview["data"]["posts"]["current"] == 1
    assert_conforms("api", "/analytics/overview", "get", 200, overview)

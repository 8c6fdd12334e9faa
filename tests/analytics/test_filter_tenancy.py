"""Analytics filters naming another organization's object answer 404 naming the parameter, as
the profile-scoped reports do (issue 20: `GET /api/analytics/content?profileId=<theirs>` was an
empty 200 while `GET /api/analytics/profiles?profileId=<theirs>` is a 404); Family A's
`contentId` the same."""

from __future__ import annotations

import pytest

from apps.content.models import Campaign, Tag
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def _objects(org) -> dict:
    return {
        "profileId": ProfileFactory(organization=org).pk,
        "brandId": BrandFactory(organization=org).pk,
        "campaignId": Campaign.objects.create(organization=org, name="Launch").pk,
        "tagId": Tag.objects.create(organization=org, name="promo").pk,
    }


@pytest.mark.parametrize("param", ["profileId", "brandId", "campaignId", "tagId"])
def test_the_content_report_list_refuses_another_organizations_object_with_a_404(param, owner, outsider):
    mine, theirs = _objects(owner.org), _objects(outsider.org)
    client = owner.client()
    ok = client.get("/api/analytics/content", {param: str(mine[param])})
    assert ok.status_code == 200, ok.content
    refused = client.get("/api/analytics/content", {param: str(theirs[param])})
    assert refused.status_code == 404, refused.content
    assert refused.json() == {
        "error": "Resource not found.",
        "details": {"code": "NOT_FOUND", param: str(theirs[param])},
    }
    malformed = client.get("/api/analytics/content", {param: "nope"})
    assert malformed.status_code == 400
    assert param in malformed.json()["details"]


def test_every_profile_parameter_of_analytics_answers_404_for_another_organizations_profile(owner, outsider):
    theirs = str(ProfileFactory(organization=outsider.org).pk)
    client = owner.client()
    for path in ("/api/analytics/profiles", "/api/analytics/best-times", "/api/monitoring/errors"):
        response = client.get(path, {"profileId": theirs})
        assert response.status_code == 404, (path, response.content)
    assert client.get("/api/analytics/content", {"profileId": theirs}).status_code == 404
    assert client.get(f"/v1/analytics/profiles/prf_{theirs.replace('-', '')}").status_code == 404


def test_family_b_profile_reports_name_the_profile_by_its_uuid(owner):
    profile = ProfileFactory(organization=owner.org)
    client = owner.client()
    for path in ("/api/analytics/profiles", "/api/analytics/best-times"):
        response = client.get(path, {"profileId": str(profile.pk)})
        assert response.status_code == 200, response.content
        assert response.json()["data"]["profileId"] == str(profile.pk)  # not prf_...

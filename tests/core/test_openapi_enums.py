"""Closed sets are enums in the response schemas too, the profile's Family B fields are declared,
and Family B's date filters refuse a date made of spaces or control characters (issue 20)."""

from __future__ import annotations

import pytest

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import PostType
from apps.content.serializers import PUBLICATION_STATUSES
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory

SCHEMAS = {"v1": "/v1/schema/", "api": "/api/schema/"}
PLATFORMS = ["instagram", "facebook", "tiktok", "youtube", "linkedin", "x", "threads", "pinterest", "bluesky"]
ACTIONS = ["approve", "reject", "edit", "regenerate", "schedule", "unschedule", "publish", "edit_image"]
STATUSES_A = [
    "draft",
    "pending",
    "generating",
    "generated",
    "approved",
    "rejected",
    "scheduled",
    "publishing",
    "published",
    "failed",
]


@pytest.fixture
def schemas(client):
    return {
        f: client.get(url, HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
        for f, url in SCHEMAS.items()
    }


def _enum(schema: dict, component: str, prop: str) -> list:
    """The enum of a response component's property (or of its items), through a $ref."""
    components = schema["components"]["schemas"]
    node = components[component]["properties"][prop]
    node = node.get("items", node)
    for _ in range(3):
        if "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[1]]
        elif "allOf" in node:
            node = node["allOf"][0]
        elif "oneOf" in node:  # a nullable enum: [$ref, NullEnum]
            node = node["oneOf"][0]
    return node["enum"]


def test_content_statuses_platforms_and_actions_are_enums_in_responses(schemas):
    a, b = schemas["v1"], schemas["api"]
    assert sorted(_enum(a, "ContentOutput", "status")) == sorted(STATUSES_A)
    statuses_b = [("reviewing" if s == "generated" else s) for s in STATUSES_A]
    assert sorted(_enum(b, "ContentOutput", "status")) == sorted(statuses_b)
    assert sorted(_enum(b, "BatchItemOutput", "status")) == sorted(statuses_b)
    for schema in (a, b):
        assert sorted(_enum(schema, "ContentOutput", "allowedActions")) == sorted(ACTIONS)
        assert sorted(_enum(schema, "ContentOutput", "platforms")) == sorted([*PLATFORMS, "mastodon"])
        assert sorted(_enum(schema, "ContentOutput", "postType")) == sorted(PostType.values)
        assert sorted(_enum(schema, "ProfileOutput", "platform")) == sorted(PLATFORMS)
        assert sorted(_enum(schema, "PublicationOutput", "platform")) == sorted(PLATFORMS)
        assert sorted(_enum(schema, "PublicationOutput", "status")) == sorted(Publication.STATUSES)
        assert sorted(_enum(schema, "MediaRecord", "type")) == ["image", "video"]
        assert "webhook.test" in _enum(schema, "DeliveryOutput", "eventType")
        assert "*" in _enum(schema, "WebhookOutput", "events")
    assert sorted(_enum(b, "ContentOutput", "media")) == ["image", "video"]
    assert sorted(_enum(b, "ScheduleOutput", "platform")) == sorted([*PLATFORMS, "mastodon"])
    assert sorted(_enum(b, "MediaOutput", "kind")) == [
        "asset",
        "backup",
        "font",  # a brand's own typeface (issue 30)
        "generated",
        "logo",
        "reference",
        "upload",
    ]
    assert sorted(_enum(b, "PlatformOutput", "platform")) == sorted(PLATFORMS)
    assert sorted(_enum(a, "ContentOutput", "mediaType")) == ["image", "video"]


def test_the_content_layer_names_the_publication_statuses_publishing_has():
    """content/serializers.py cannot import publishing (it sits above): the two lists agree."""
    assert tuple(PUBLICATION_STATUSES) == tuple(Publication.STATUSES)
    assert tuple(states.STATUSES) == tuple(s if s != "generated" else "review" for s in STATUSES_A)


def test_family_b_profiles_answer_only_what_their_schema_declares(schemas, owner):
    profile = ProfileFactory(
        organization=owner.org, brand=Brand.objects.get(organization=owner.org, is_default=True), sandbox=True
    )
    declared_b = set(schemas["api"]["components"]["schemas"]["ProfileOutput"]["properties"])
    declared_a = set(schemas["v1"]["components"]["schemas"]["ProfileOutput"]["properties"])
    assert {"tokenStatus", "sandbox", "createdAt"} <= declared_b
    assert "sandbox" in declared_a  # both families say a sandbox profile is one (issue 22)
    assert not {"tokenStatus", "createdAt"} & declared_a  # Family A does not present them
    assert _enum(schemas["api"], "ProfileOutput", "tokenStatus") == ["valid", "expired", "revoked"]
    client = owner.token_client()
    listed = client.get("/api/profiles").json()["data"]
    one = client.get(f"/api/profiles/{profile.pk}").json()["data"]
    assert set(listed[0]) <= declared_b and set(one) <= declared_b, set(one) - declared_b
    assert (one["tokenStatus"], one["sandbox"]) == ("valid", True) and one["createdAt"].endswith("Z")
    a = owner.client().get("/v1/profiles").json()["data"][0]
    assert set(a) <= declared_a


@pytest.mark.parametrize("raw", [" ", "  ", "\t", "\x01", "\x1f", "\x7f"])
@pytest.mark.parametrize("name", ["date_from", "date_to"])
def test_family_b_date_filters_refuse_spaces_and_control_characters(owner, raw, name):
    make_content(owner.org)
    response = owner.token_client().get("/api/content", {name: raw})
    assert response.status_code == 400, response.content
    assert name in response.json()["details"]
    assert owner.token_client().get("/api/content", {name: ""}).status_code == 200  # left out
    assert owner.token_client().get("/api/content", {name: "2026-01-01"}).status_code == 200

"""Issue 32: roles scoped to brands, on every route of both families.

A member or API key limited to some brands sees and acts on those brands' content, profiles,
media, analytics and webhooks only: every route of the tenancy matrix (tests/test_tenancy_matrix.py,
whose route list this file reuses) called by a member of another brand of the same organization
with this brand's objects is a 404 in the family's format, and changes nothing. A client reviewer
reads and approves or rejects its brand's content, nothing else.
"""

from __future__ import annotations

import uuid

import pytest

from apps.accounts.models import Membership
from apps.accounts.services import api_key_create
from apps.content import states
from apps.content.models import Content
from apps.core import ids
from tests.conftest import Persona
from tests.factories import BrandFactory, ProfileFactory
from tests.test_tenancy_matrix import CASES, KNOWN, Objects, _snapshot, assert_error, call, make_objects

pytestmark = pytest.mark.django_db

#: placeholders naming an object that belongs to a brand, or to the whole organization (hidden
#: from a brand-limited caller); tags, campaigns and batches are shared by every member
BRAND_OWNED = ("brand", "profile", "media", "ref", "content", "publication", "schedule", "approval_link")
ORG_WIDE_HIDDEN = ("webhook", "delivery", "origin")
SCOPED = [
    c for c in CASES if any("{" + name + "}" in KNOWN[c][0] for name in (*BRAND_OWNED, *ORG_WIDE_HIDDEN))
]


def case_id(case) -> str:
    family, route, method = case
    return f"{method.upper()} /{family}/{route}"


@pytest.fixture
def mine(owner) -> Objects:
    return make_objects(owner.org)


@pytest.fixture
def other_brand(owner, mine):
    return BrandFactory(organization=owner.org, name="Other client")


def limited_key(owner, brand, role: str = "owner") -> Persona:
    issued = api_key_create(organization=owner.org, role=role, name="limited", brand_ids=[str(brand.pk)])
    return Persona(owner.org, issued.secret, role)


def test_every_route_with_an_object_is_in_the_brand_matrix():
    assert len(SCOPED) >= 60


@pytest.mark.parametrize("case", SCOPED, ids=case_id)
def test_a_member_of_another_brand_gets_a_404_on_every_route(case, owner, mine, other_brand):
    member = limited_key(owner, other_brand)
    before = _snapshot(mine)
    response = call(member.client(), case, mine.ids(case[0]))
    assert_error(response, case[0], 404, "NOT_FOUND")
    assert _snapshot(mine) == before


def test_lists_show_only_the_members_brands(owner, mine, other_brand):
    theirs = ProfileFactory(organization=owner.org, brand=other_brand, platform="x")
    content = Content.objects.create(
        organization=owner.org, brand=other_brand, platforms=["x"], prompt="Other", status=states.REVIEW
    )
    member = limited_key(owner, other_brand).client()
    for path, key in (
        ("/v1/content", "data"),
        ("/v1/profiles", "data"),
        ("/v1/brands", "data"),
        ("/v1/webhooks", "data"),
    ):
        body = member.get(path).json()
        found = [row["id"] for row in body[key]]
        assert ids.render(mine.content.pk, "content") not in found
        assert ids.render(mine.profile.pk, "profile") not in found
        assert ids.render(mine.brand.pk, "brand") not in found
        if path == "/v1/content":
            assert found == [ids.render(content.pk, "content")]
        if path == "/v1/profiles":
            assert found == [ids.render(theirs.pk, "profile")]
        if path == "/v1/brands":
            assert found == [ids.render(other_brand.pk, "brand")]
        if path == "/v1/webhooks":
            assert found == []
    api = member.get("/api/content").json()["data"]
    assert [row["id"] for row in api] == [str(content.pk)]
    media = member.get("/api/media").json()["data"]
    assert str(mine.media.pk) not in [m["id"] for m in media]

    # an unlimited key of the same organization still sees both brands
    everyone = owner.client().get("/api/content").json()["data"]
    assert {str(content.pk), str(mine.content.pk)} <= {row["id"] for row in everyone}


def test_a_token_member_limited_by_membership_sees_only_its_brand(owner, mine, other_brand):
    subject = f"limited-{uuid.uuid4().hex[:8]}"
    client = owner.token_client(subject=subject)
    assert client.get(f"/api/content/{mine.content.pk}").status_code == 200  # unlimited at first
    Membership.objects.filter(organization=owner.org, user__username=f"idp:{subject}").update(
        brand_ids=[str(other_brand.pk)]
    )
    hidden = client.get(f"/api/content/{mine.content.pk}")
    assert_error(hidden, "api", 404, "NOT_FOUND")


def test_a_client_reviewer_reads_and_approves_its_brands_content_and_nothing_else(owner, mine):
    reviewer = limited_key(owner, mine.brand, role="reviewer").client()
    other = BrandFactory(organization=owner.org, name="Not theirs")
    elsewhere = Content.objects.create(
        organization=owner.org, brand=other, platforms=["instagram"], prompt="Else", status=states.REVIEW
    )

    assert reviewer.get(f"/v1/content/{ids.render(mine.content.pk, 'content')}").status_code == 200
    assert reviewer.get(f"/api/content/{mine.content.pk}").status_code == 200
    edit = reviewer.put(
        f"/v1/content/{ids.render(mine.content.pk, 'content')}", {"status": "draft"}, format="json"
    )
    details = assert_error(edit, "v1", 403, "AUTHORIZATION_ERROR")
    assert details["role"] == "reviewer"
    assert_error(reviewer.get("/api/profiles"), "api", 403, "AUTHORIZATION_ERROR")
    assert_error(reviewer.get("/v1/analytics/export"), "v1", 403, "AUTHORIZATION_ERROR")
    assert_error(
        reviewer.post("/v1/content/generate", {"prompt": "x", "platforms": ["x"]}, format="json"),
        "v1",
        403,
        "AUTHORIZATION_ERROR",
    )
    assert_error(
        reviewer.post(f"/api/content/{elsewhere.pk}/approve", {}, format="json"), "api", 404, "NOT_FOUND"
    )

    approved = reviewer.post(f"/api/content/{mine.content.pk}/approve", {}, format="json")
    assert approved.status_code == 200, approved.content
    mine.content.refresh_from_db()
    assert mine.content.status == states.APPROVED

    second = Content.objects.create(
        organization=owner.org,
        brand=mine.brand,
        platforms=["instagram"],
        prompt="Again",
        status=states.REVIEW,
    )
    rejected = reviewer.post(
        f"/v1/content/{ids.render(second.pk, 'content')}/reject", {"reason": "Logo too small"}, format="json"
    )
    assert rejected.status_code == 200, rejected.content
    second.refresh_from_db()
    assert second.status == states.REJECTED and "Logo too small" in second.status_reason


def test_a_key_is_limited_only_to_its_organizations_brands(owner, outsider, other_brand):
    from io import StringIO

    from django.core.management import call_command

    from apps.core.errors import InvalidSubject

    foreign = BrandFactory(organization=outsider.org)
    with pytest.raises(InvalidSubject) as refused:
        api_key_create(organization=owner.org, role="editor", brand_ids=[str(foreign.pk)])
    assert str(foreign.pk) in str(refused.value.details)
    out = StringIO()
    call_command(
        "create_api_key",
        org=owner.org.name,
        role="reviewer",
        brands=ids.render(other_brand.pk, "brand"),
        stdout=out,
        stderr=StringIO(),
    )
    secret = out.getvalue().strip().splitlines()[-1]
    listed = Persona(owner.org, secret, "reviewer").client().get("/v1/content").json()["data"]
    assert listed == []  # its brand has no content yet; the default brand's is hidden

"""Outside approver's links through both API families (issue 21): created by admins, for one
organization's content, revocable, in the OpenAPI schema; the page dies with the link."""

from __future__ import annotations

import pytest

from apps.content.models import ApprovalLink, ContentHistory
from tests.content.factories import make_content

pytestmark = pytest.mark.django_db


def _page(client, url: str):
    return client.get(url.split("localhost:8000", 1)[-1].replace("http://testserver", ""))


def test_family_a_creates_a_link_for_a_set_and_revokes_it(owner, client, settings):
    settings.PUBLIC_BASE_URL = "http://testserver"
    one, two = make_content(owner.org), make_content(owner.org, platforms=("x",))
    answer = owner.client().post(
        f"/v1/content/cnt_{one.pk.hex}/approval-links",
        {"contentIds": [f"cnt_{two.pk.hex}"], "expiresInDays": 3, "label": "Ana"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["id"].startswith("apl_") and body["label"] == "Ana"
    assert sorted(body["contentIds"]) == sorted([f"cnt_{one.pk.hex}", f"cnt_{two.pk.hex}"])
    assert body["url"].startswith("http://testserver/approve/") and body["revokedAt"] is None
    page = client.get(body["url"].removeprefix("http://testserver"))
    assert page.status_code == 200 and b"asks for your approval" in page.content
    assert ContentHistory.objects.filter(content=one, action="approval_link").count() == 1

    assert owner.client().delete(f"/v1/approval-links/{body['id']}").status_code == 204
    gone = client.get(body["url"].removeprefix("http://testserver"))
    assert gone.status_code == 410 and b"withdrawn" in gone.content


def test_family_b_creates_and_revokes_with_uuids(owner, client, settings):
    settings.PUBLIC_BASE_URL = "http://testserver"
    content = make_content(owner.org)
    api = owner.token_client()
    answer = api.post(f"/api/content/{content.pk}/approval-links", {"label": "Ana"}, format="json")
    assert answer.status_code == 201, answer.content
    data = answer.json()["data"]
    assert data["contentIds"] == [str(content.pk)] and data["id"] == str(ApprovalLink.objects.get().pk)
    assert api.delete(f"/api/approval-links/{data['id']}").status_code == 204
    assert ApprovalLink.objects.get().revoked_at is not None


@pytest.mark.parametrize("raw", ["__main__", "apl_nothex", "x_0123abcd456789ef0123456789abcdef", "12345"])
def test_an_id_that_names_no_link_is_a_404_in_both_families(owner, raw):
    """schemathesis found `DELETE /api/approval-links/__main__` answered 500 (the Family B view
    named no id kind, and parse() looked up the prefix of kind "")."""
    b = owner.token_client().delete(f"/api/approval-links/{raw}")
    assert b.status_code == 404 and b.json()["details"]["code"] == "NOT_FOUND", b.content
    a = owner.client().delete(f"/v1/approval-links/{raw}")
    assert a.status_code == 404 and a.json()["error"]["code"] == "NOT_FOUND", a.content


def test_only_admins_and_only_their_own_organization(owner, editor, outsider):
    content = make_content(owner.org)
    refused = editor.client().post(f"/v1/content/cnt_{content.pk.hex}/approval-links", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "AUTHORIZATION_ERROR"
    other = outsider.client().post(f"/v1/content/cnt_{content.pk.hex}/approval-links", {}, format="json")
    assert other.status_code == 404
    theirs = make_content(outsider.org)
    mixed = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/approval-links",
        {"contentIds": [f"cnt_{theirs.pk.hex}"]},
        format="json",
    )
    assert mixed.status_code == 400 and "contentIds" in mixed.json()["error"]["details"]
    too_long = owner.client().post(
        f"/v1/content/cnt_{content.pk.hex}/approval-links", {"expiresInDays": 31}, format="json"
    )
    assert too_long.status_code == 400 and "expiresInDays" in too_long.json()["error"]["details"]
    assert not ApprovalLink.objects.exists()


def test_the_page_is_rate_limited_per_address_and_link(owner, client, settings):
    settings.PUBLIC_BASE_URL = "http://testserver"
    settings.APPROVAL_LINK_RATE_LIMIT = 2
    content = make_content(owner.org)
    url = (
        owner.client()
        .post(f"/v1/content/cnt_{content.pk.hex}/approval-links", {}, format="json")
        .json()["url"]
    )
    path = url.removeprefix("http://testserver")
    assert [client.get(path).status_code for _ in range(3)] == [200, 200, 429]


def test_both_schemas_document_the_routes(owner):
    v1 = owner.client().get("/v1/schema/", HTTP_ACCEPT="application/json").json()
    # paths are relative to the family's server (/v1, /api)
    assert "post" in v1["paths"]["/content/{id}/approval-links"]
    assert "delete" in v1["paths"]["/approval-links/{id}"]
    api = owner.client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "post" in api["paths"]["/content/{id}/approval-links"]
    assert "delete" in api["paths"]["/approval-links/{id}"]

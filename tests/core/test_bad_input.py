"""Bad input that used to reach the database or the renderer: a clear 400/204, never a 500."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_nul_character_anywhere_in_a_body_is_a_400(owner):
    response = owner.token_client().post("/api/brands", {"name": "ok", "metadata": {"note": "a\x00b"}}, format="json")
    assert response.status_code == 400
    assert "metadata" in response.json()["details"]


def test_a_large_offset_is_read_in_utc_and_an_overflowing_one_is_a_400(owner):
    client = owner.token_client()
    # PostgreSQL refuses offsets beyond +-15:59; the filter converts to UTC first
    assert client.get("/api/brands", {"date_from": "2024-01-01T00:00:00+17:16"}).status_code == 200
    response = client.get("/api/brands", {"date_to": "9999-12-31T23:59:59-12:00"})
    assert response.status_code == 400
    assert response.json()["details"]["code"] == "VALIDATION_ERROR"


def test_family_b_delete_answers_204_without_a_body(owner):
    client = owner.token_client()
    brand_id = client.post("/api/brands", {"name": "Gone"}, format="json").json()["data"]["id"]
    response = client.delete(f"/api/brands/{brand_id}")
    assert response.status_code == 204
    assert response.content == b""


def test_an_unknown_path_is_a_json_404_in_each_family_even_for_unsafe_methods(owner):
    a = owner.client().delete("/v1/nothing-here")
    assert a.status_code == 404 and a.json()["error"]["code"] == "NOT_FOUND"
    b = owner.client().delete("/api/content/abc./x%0Ay")
    assert b.status_code == 404 and b.json()["details"]["code"] == "NOT_FOUND"


def test_a_stored_integer_beyond_64_bits_is_returned_not_a_500(owner):
    client = owner.token_client()
    created = client.post("/api/brands", {"name": "Big", "metadata": {"n": 2**70}}, format="json")
    assert created.status_code == 201
    assert created.json()["data"]["metadata"] == {"n": 2**70}
    assert created.json()["data"]["createdAt"].endswith("Z")  # the fallback writes timestamps as the fast path does
    listed = client.get("/api/brands")
    assert listed.status_code == 200


def test_a_form_body_with_too_many_fields_is_a_400_in_each_family(owner, settings):
    from urllib.parse import urlencode

    from tests.content.factories import make_content

    content = make_content(owner.org)
    body = urlencode({f"instagram[hashtags][{i}]": "x" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)})
    form = "application/x-www-form-urlencoded"
    a = owner.client().put(f"/v1/content/{content.pk}", body, content_type=form)
    assert a.status_code == 400, a.content
    assert a.json()["error"]["code"] == "VALIDATION_ERROR" and "too many fields" in a.json()["error"]["message"]
    b = owner.token_client().put(f"/api/content/{content.pk}", body, content_type=form)
    assert b.status_code == 400, b.content
    assert "too many fields" in b.json()["error"]

from __future__ import annotations

import pytest

from apps.brands.models import Brand

pytestmark = pytest.mark.django_db


def test_a_replayed_post_returns_the_first_response_and_creates_nothing_more(api, owner):
    first = api.post("/v1/brands", {"name": "Once"}, format="json", HTTP_IDEMPOTENCY_KEY="abc-123")
    second = api.post("/v1/brands", {"name": "Once"}, format="json", HTTP_IDEMPOTENCY_KEY="abc-123")
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Brand.objects.filter(organization=owner.org, name="Once").count() == 1


def test_the_same_key_with_another_body_is_409_in_a_and_422_in_b(api, owner):
    api.post("/v1/brands", {"name": "One"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    response = api.post("/v1/brands", {"name": "Two"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    b = owner.token_client()
    b.post("/api/brands", {"name": "Three"}, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    response = b.post("/api/brands", {"name": "Four"}, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    assert response.status_code == 422
    assert "different request" in response.json()["error"]


def test_keys_belong_to_one_credential(api, editor):
    api.post("/v1/brands", {"name": "Mine"}, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    response = editor.client().post("/v1/brands", {"name": "Theirs"}, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 201
    assert response.json()["name"] == "Theirs"


def test_a_failed_validation_is_replayed_too(api):
    first = api.post("/v1/brands", {"name": ""}, format="json", HTTP_IDEMPOTENCY_KEY="bad")
    second = api.post("/v1/brands", {"name": ""}, format="json", HTTP_IDEMPOTENCY_KEY="bad")
    assert first.status_code == second.status_code == 400
    assert second["Idempotent-Replayed"] == "true"

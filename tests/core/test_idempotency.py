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


# --- issue 9: leases, query string, multipart ------------------------------------------------


def _as_if_the_first_request_died(key: str, *, lease_seconds_ago: float):
    import datetime

    from django.utils import timezone

    from apps.core.models import IdempotencyRecord

    IdempotencyRecord.objects.filter(key=key).update(
        status_code=None, body=None, lease_until=timezone.now() - datetime.timedelta(seconds=lease_seconds_ago))


def test_a_key_whose_request_died_runs_again_after_its_lease(api, owner):
    first = api.post("/v1/brands", {"name": "Died"}, format="json", HTTP_IDEMPOTENCY_KEY="died")
    assert first.status_code == 201
    _as_if_the_first_request_died("died", lease_seconds_ago=-30)  # lease still running
    busy = api.post("/v1/brands", {"name": "Died"}, format="json", HTTP_IDEMPOTENCY_KEY="died")
    assert busy.status_code == 409 and busy.json()["error"]["details"]["retryAfter"] >= 1
    _as_if_the_first_request_died("died", lease_seconds_ago=1)  # lease over
    again = api.post("/v1/brands", {"name": "Died"}, format="json", HTTP_IDEMPOTENCY_KEY="died")
    assert again.status_code in (201, 409) and "Idempotent-Replayed" not in again  # it ran again
    replay = api.post("/v1/brands", {"name": "Died"}, format="json", HTTP_IDEMPOTENCY_KEY="died")
    assert replay["Idempotent-Replayed"] == "true" and replay.status_code == again.status_code


def test_the_in_progress_lease_is_60_s_plus_the_wait(settings):
    from apps.core.idempotency import lease_seconds

    assert lease_seconds(0) == 60 and lease_seconds(30) == 90


def test_a_5xx_is_never_left_in_progress(api, owner, monkeypatch):
    from apps.brands import services as brand_services
    from apps.core.models import IdempotencyRecord

    def boom(**kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(brand_services, "brand_create", boom)
    response = api.post("/v1/brands", {"name": "Boom"}, format="json", HTTP_IDEMPOTENCY_KEY="boom")
    assert response.status_code == 500
    assert not IdempotencyRecord.objects.filter(key="boom").exists()


def test_the_query_string_is_part_of_the_request(api):
    first = api.post("/v1/brands?x=1", {"name": "Q"}, format="json", HTTP_IDEMPOTENCY_KEY="q")
    assert first.status_code == 201
    other = api.post("/v1/brands?x=2", {"name": "Q"}, format="json", HTTP_IDEMPOTENCY_KEY="q")
    assert other.status_code == 409 and "different request" in other.json()["error"]["message"]


def test_multipart_fields_and_file_contents_are_part_of_the_request(owner):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.conftest import png_bytes

    b = owner.token_client()

    def send(color, name="a.png"):
        upload = SimpleUploadedFile(name, png_bytes((64, 48), color), content_type="image/png")
        return b.post("/api/media/upload", {"file": upload}, format="multipart", HTTP_IDEMPOTENCY_KEY="mp")

    first = send((10, 20, 30))
    assert first.status_code == 201, first.content
    same = send((10, 20, 30))
    assert same["Idempotent-Replayed"] == "true"
    other = send((200, 20, 30))
    assert other.status_code == 422 and "different request" in other.json()["error"]

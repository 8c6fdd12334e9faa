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
    response = editor.client().post(
        "/v1/brands", {"name": "Theirs"}, format="json", HTTP_IDEMPOTENCY_KEY="shared"
    )
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
        status_code=None,
        body=None,
        lease_until=timezone.now() - datetime.timedelta(seconds=lease_seconds_ago),
    )


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


# --- issue 9: a retry answers with what the first request created --------------------------------


def _generate_v1(api, key, **extra):
    return api.post(
        "/v1/content/generate",
        {"prompt": "Autumn roast launch", "platforms": ["instagram"], **extra},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def test_a_retry_after_the_lease_answers_with_the_content_the_first_request_created(api, owner):
    from apps.content.models import Content
    from apps.core.models import IdempotencyRecord
    from apps.events.models import Event

    first = _generate_v1(api, "gen-1")
    assert first.status_code == 202, first.content
    record = IdempotencyRecord.objects.get(key="gen-1")
    assert record.effect == {
        "kind": "content",
        "ids": [str(Content.objects.get().pk)],
        "status": 202,
        "many": False,
    }

    _as_if_the_first_request_died("gen-1", lease_seconds_ago=-30)  # its lease still runs: 409
    assert _generate_v1(api, "gen-1").status_code == 409
    _as_if_the_first_request_died("gen-1", lease_seconds_ago=1)  # lease over
    retry = _generate_v1(api, "gen-1")
    assert retry.status_code == 202 and retry["Idempotent-Replayed"] == "true"
    assert retry.json()["id"] == first.json()["id"]
    assert Content.objects.count() == 1  # not generated a second time
    assert Event.objects.filter(type="content.created").count() == 1
    # that answer is now the key's: replayed as such
    again = _generate_v1(api, "gen-1")
    assert (
        again.status_code == 202
        and again.json()["id"] == first.json()["id"]
        and again["Idempotent-Replayed"] == "true"
    )


def test_a_5xx_after_the_content_was_created_is_answered_with_it_at_once(owner, monkeypatch):
    """The first request creates the content and then fails (a 500 in the family's JSON, not
    HTML): the key is not left in progress for a lease, the retry answers with that content."""
    from apps.content.api import serializers as content_s
    from apps.content.models import Content
    from apps.core.models import IdempotencyRecord
    from tests.factories import ProfileFactory

    profile = ProfileFactory(organization=owner.org, platform="instagram")
    b = owner.token_client()
    body = {"socialProfileId": str(profile.pk), "prompt": "Autumn roast launch"}
    real_present = content_s.present_content

    def broken(*args, **kwargs):
        raise RuntimeError("presenter crashed")

    monkeypatch.setattr(content_s, "present_content", broken)
    first = b.post("/api/content", body, format="json", HTTP_IDEMPOTENCY_KEY="die-after")
    assert first.status_code == 500 and first.json()["details"]["code"] == "SERVER_ERROR"
    record = IdempotencyRecord.objects.get(key="die-after")
    assert record.status_code is None and record.effect["ids"] == [str(Content.objects.get().pk)]

    monkeypatch.setattr(content_s, "present_content", real_present)
    retry = b.post(
        "/api/content", body, format="json", HTTP_IDEMPOTENCY_KEY="die-after"
    )  # no lease to wait for
    assert retry.status_code == 201 and retry["Idempotent-Replayed"] == "true"
    assert retry.json()["data"]["id"] == str(Content.objects.get().pk)
    assert Content.objects.count() == 1


def test_a_500_in_rendering_is_the_family_s_json_and_never_leaves_the_key_in_progress(
    api, owner, monkeypatch
):
    from apps.brands.v1 import serializers as brand_s
    from apps.core.models import IdempotencyRecord

    real_present = brand_s.present_brand
    # beyond orjson (a 70-bit integer) and then DRF's strict encoder (NaN): the render raises
    monkeypatch.setattr(
        brand_s,
        "present_brand",
        lambda brand, request: {**real_present(brand, request), "n": 2**70, "x": float("nan")},
    )
    response = api.post("/v1/brands", {"name": "Unrenderable"}, format="json", HTTP_IDEMPOTENCY_KEY="render")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "SERVER_ERROR"
    assert not IdempotencyRecord.objects.filter(key="render").exists()  # freed: a retry runs again


def test_a_retry_of_multi_platform_answers_with_every_content_created(owner):
    from apps.content.models import Content
    from tests.factories import ProfileFactory

    profiles = [ProfileFactory(organization=owner.org, platform=p) for p in ("instagram", "x")]
    b = owner.token_client()
    body = {"profileIds": [str(p.pk) for p in profiles], "prompt": "Autumn roast launch"}
    first = b.post("/api/content/multi-platform", body, format="json", HTTP_IDEMPOTENCY_KEY="multi")
    assert first.status_code == 202, first.content
    _as_if_the_first_request_died("multi", lease_seconds_ago=1)
    retry = b.post("/api/content/multi-platform", body, format="json", HTTP_IDEMPOTENCY_KEY="multi")
    assert retry.status_code == 202 and retry["Idempotent-Replayed"] == "true"
    assert [c["id"] for c in retry.json()["data"]] == [c["id"] for c in first.json()["data"]]
    assert Content.objects.count() == 2


def test_a_retry_whose_content_was_deleted_meanwhile_is_a_404_not_a_second_generation(api, owner):
    from apps.content.models import Content

    first = _generate_v1(api, "gone")
    Content.objects.all().delete()
    _as_if_the_first_request_died("gone", lease_seconds_ago=1)
    retry = _generate_v1(api, "gone")
    assert retry.status_code == 404 and retry.json()["error"]["code"] == "NOT_FOUND"
    assert not Content.objects.exists() and first.status_code == 202


def test_a_retry_of_a_batch_answers_with_the_batch_the_first_request_started(owner):
    import datetime

    from django.utils import timezone

    from apps.content.models import Batch, Content
    from tests.factories import ProfileFactory

    b = owner.token_client()
    tomorrow = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()
    ids = [
        b.post(
            "/api/content/schedules",
            {
                "socialProfileId": str(ProfileFactory(organization=owner.org, platform=p).pk),
                "scheduledDate": tomorrow,
                "task": f"Post {p}",
            },
            format="json",
        ).json()["data"]["id"]
        for p in ("instagram", "x")
    ]
    first = b.post("/api/batch/generate", {"scheduleIds": ids}, format="json", HTTP_IDEMPOTENCY_KEY="batch-1")
    assert first.status_code == 202, first.content
    _as_if_the_first_request_died("batch-1", lease_seconds_ago=1)
    retry = b.post("/api/batch/generate", {"scheduleIds": ids}, format="json", HTTP_IDEMPOTENCY_KEY="batch-1")
    # without the recorded effect this retry was a 422 ("nothing left to generate") and the
    # client could not learn the batch its first request started
    assert retry.status_code == 202 and retry["Idempotent-Replayed"] == "true"
    assert retry.json()["data"]["batchId"] == first.json()["data"]["batchId"]
    assert Batch.objects.count() == 1 and Content.objects.count() == 2

"""Issue 32, AI disclosure: what of a content item an AI made (none, text, media, both), computed
when its generation finishes unless a person set it; shown and overridden through both
families, carried in content events and webhooks, set in the admin with a history line."""

from __future__ import annotations

import pytest

from apps.content import services
from apps.content.models import ContentHistory
from apps.events.models import Event
from apps.media.models import Kind, MediaAsset
from apps.webhooks import services as webhooks
from apps.webhooks.models import WebhookDelivery
from tests.content.factories import make_content

pytestmark = pytest.mark.django_db


def cid(content) -> str:
    return f"cnt_{content.pk.hex}"


# --- computed when a generation finishes ------------------------------------------------------


@pytest.mark.parametrize(
    ("media", "expected"),
    [({"generate": True}, "both"), ({"generate": False}, "text")],
)
def test_a_generation_computes_it_from_what_the_engines_made(
    api, owner, django_capture_on_commit_callbacks, media, expected
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {"prompt": "Autumn roast launch", "platforms": ["instagram"], "media": media},
            format="json",
        )
    assert response.status_code == 202, response.content
    body = api.get(f"/v1/content/{response.json()['id']}").json()
    assert body["status"] == "generated"
    assert (body["aiGenerated"], body["aiGeneratedOverridden"]) == (expected, False)
    generated = Event.objects.get(type="content.generated")
    assert generated.data["aiGenerated"] == expected


def test_content_nobody_generated_is_none_and_an_upload_is_not_ai_media(owner):
    content = make_content(owner.org, image=False)  # text given by the user, no generation
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("none", False)
    make_uploaded = make_content(owner.org)
    MediaAsset.objects.filter(content=make_uploaded).update(kind=Kind.UPLOAD)
    services.content_ai_disclosure_compute(content=make_uploaded, text_generated=True)
    assert make_uploaded.ai_disclosure == "text"  # the engine wrote the text; the picture is theirs
    services.content_ai_disclosure_compute(content=make_uploaded, text_generated=False)
    assert make_uploaded.ai_disclosure == "none"


def test_a_persons_choice_survives_the_next_generation(owner):
    content = make_content(owner.org)
    services.content_set_ai_disclosure(content=content, value="none", actor="Ana")
    content.refresh_from_db()
    services.content_ai_disclosure_compute(content=content, text_generated=True)
    content.refresh_from_db()
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("none", True)


# --- both families: read, override, refuse ----------------------------------------------------


def test_family_a_shows_and_overrides_it_and_records_who(api, owner):
    content = make_content(owner.org)
    services.content_ai_disclosure_compute(content=content, text_generated=True)
    before = api.get(f"/v1/content/{cid(content)}").json()
    assert (before["aiGenerated"], before["aiGeneratedOverridden"]) == ("both", False)

    response = api.put(f"/v1/content/{cid(content)}", {"aiGenerated": "media"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["aiGenerated"], body["aiGeneratedOverridden"]) == ("media", True)
    assert body["status"] == "generated"  # a label: the status and the approval stay
    [line] = ContentHistory.objects.filter(content=content)
    assert (line.action, line.changes) == (
        "ai_disclosure",
        {"aiGenerated": {"before": "both", "after": "media"}},
    )
    assert line.actor == "API key “owner key”"
    updated = Event.objects.get(type="content.updated")
    assert updated.data["aiGenerated"] == "media"

    listed = api.get("/v1/content").json()["data"]
    assert [(c["id"], c["aiGenerated"], c["aiGeneratedOverridden"]) for c in listed] == [
        (cid(content), "media", True)
    ]


def test_family_b_shows_and_overrides_it(owner):
    content = make_content(owner.org, image=False)
    b = owner.token_client(subject="ana")
    before = b.get(f"/api/content/{content.pk}").json()["data"]
    assert (before["aiGenerated"], before["aiGeneratedOverridden"]) == ("none", False)
    response = b.put(f"/api/content/{content.pk}", {"aiGenerated": "text"}, format="json")
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["aiGenerated"], data["aiGeneratedOverridden"]) == ("text", True)
    content.refresh_from_db()
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("text", True)
    [line] = ContentHistory.objects.filter(content=content)
    assert (line.actor, line.note) == ("idp:ana", "AI-generated: none → text (set by a person)")


@pytest.mark.parametrize("value", ["yes", "", None, True, "BOTH"])
def test_a_bad_value_is_a_400_in_each_familys_format(api, owner, value):
    content = make_content(owner.org)
    a = api.put(f"/v1/content/{cid(content)}", {"aiGenerated": value}, format="json")
    assert a.status_code == 400, a.content
    problem = ["Must be one of none, text, media, both."]
    if value is None:
        problem = ["This field may not be null."]
    assert a.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "Invalid request parameters.",
        "details": {"aiGenerated": problem},
    }

    b = owner.token_client().put(f"/api/content/{content.pk}", {"aiGenerated": value}, format="json")
    assert b.status_code == 400, b.content
    assert b.json() == {
        "error": "Invalid request parameters.",
        "details": {"code": "VALIDATION_ERROR", "aiGenerated": problem},
    }
    content.refresh_from_db()
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("none", False)


def test_a_batch_update_overrides_it_too(api, owner):
    content = make_content(owner.org)
    response = api.post(
        "/v1/content/batch",
        {"operations": [{"method": "update", "id": cid(content), "data": {"aiGenerated": "both"}}]},
        format="json",
    )
    assert response.json()["results"] == [{"id": cid(content), "method": "update", "status": "ok"}]
    content.refresh_from_db()
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("both", True)


def test_another_organizations_content_is_404(api, outsider):
    theirs = make_content(outsider.org)
    response = api.put(f"/v1/content/{cid(theirs)}", {"aiGenerated": "both"}, format="json")
    assert response.status_code == 404


# --- webhooks -------------------------------------------------------------------------------


def test_the_webhook_payload_carries_it(api, owner, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    webhooks.webhook_create(organization=owner.org, url="http://127.0.0.1:9/hook", events=["*"])
    content = make_content(owner.org)
    api.put(f"/v1/content/{cid(content)}", {"aiGenerated": "media"}, format="json")
    event = Event.objects.get(type="content.updated")
    [created] = webhooks.deliveries_create_for_events(events=[event])
    data = WebhookDelivery.objects.get(pk=created).payload["data"]
    assert (data["id"], data["aiGenerated"], data["aiGeneratedOverridden"]) == (cid(content), "media", True)
    deleted = make_content(owner.org)
    services.content_delete(content=deleted)
    gone = Event.objects.get(type="content.deleted")
    [created] = webhooks.deliveries_create_for_events(events=[gone])
    assert (
        WebhookDelivery.objects.get(pk=created).payload["data"]["aiGenerated"] == "none"
    )  # the event's own fields


# --- the admin ------------------------------------------------------------------------------


def test_the_admin_shows_it_and_changes_it_with_a_history_line(client, owner):
    from django.contrib.auth import get_user_model

    staff = get_user_model().objects.create_superuser("reviewer", "reviewer@example.com", "s3cret-pass")
    client.force_login(staff)
    content = make_content(owner.org)
    services.content_ai_disclosure_compute(content=content, text_generated=True)
    page = client.get(f"/admin/content/content/{content.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="pf-ai-disclosure-select"' in html
    assert '<option value="both" selected>AI-generated text and media</option>' in html
    assert "computed from how it was made" in html

    answer = client.post(f"/admin/content/content/{content.pk}/ai-disclosure/", {"ai_disclosure": "text"})
    assert answer.status_code == 302
    content.refresh_from_db()
    assert (content.ai_disclosure, content.ai_disclosure_overridden) == ("text", True)
    [line] = ContentHistory.objects.filter(content=content)
    assert (line.actor, line.action, line.note) == (
        "reviewer",
        "ai_disclosure",
        "AI-generated: both → text (set by a person)",
    )
    services.content_update(content=content, variants={"instagram": {"caption": "New roast"}}, actor="Ana")
    html = client.get(f"/admin/content/content/{content.pk}/change/").content.decode()
    assert '<option value="text" selected>AI-generated text</option>' in html
    assert "set by a person" in html and "AI-generated: both → text (set by a person)" in html
    # the text edit's diff still shows; the disclosure line has no per-platform diff
    assert html.count('class="pf-diff" data-platform="instagram"') == 1

    client.post(f"/admin/content/content/{content.pk}/ai-disclosure/", {"ai_disclosure": "most"})
    content.refresh_from_db()
    assert content.ai_disclosure == "text"  # refused, with the message on the page
    html = client.get(f"/admin/content/content/{content.pk}/change/").content.decode()
    assert "Unknown AI disclosure" in html

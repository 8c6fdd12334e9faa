"""What a post is written for (issue 31): the intent its generation used, recorded with the one
classifier's confidence and its source, shown in both families, changed by a reviewer with
regenerate (the words and the picture follow it)."""

from __future__ import annotations

import pytest
import yaml

from apps.content.models import Content, ContentHistory
from apps.generation.local_words.copy import WORDS_DIR
from apps.media.models import MediaAsset
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db

CLOSURE = "We are closed from 24 December and reopen on 2 January. Happy holidays!"
UNSURE = "Thinking about coffee today"
#: the local engine's calls to action (data/words/en.yaml), professional platforms (LinkedIn)
CTA = yaml.safe_load((WORDS_DIR / "en.yaml").read_text())["cta"]


def _generate_v1(client, prompt: str, *, settings: dict | None = None) -> dict:
    body = {"prompt": prompt, "platforms": ["linkedin"], **({"settings": settings} if settings else {})}
    response = client.post("/v1/content/generate", body, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def _generate_api(client, profile, prompt: str, *, settings: dict | None = None) -> dict:
    body = {"profileId": str(profile.pk), "task": prompt, **({"settings": settings} if settings else {})}
    response = client.post("/api/content/generate", body, format="json")
    assert response.status_code == 202, response.content
    return response.json()["data"]


@pytest.fixture
def linkedin(owner):
    return ProfileFactory(organization=owner.org, platform="linkedin")


@pytest.fixture
def family(request, owner, linkedin):
    """(generate(prompt, settings) -> body, get(id) -> body, regenerate(id, body) -> response)
    of one family, with its own credential: an API key for /v1, a token for /api."""
    if request.param == "v1":
        client = owner.client()
        return (
            lambda prompt, settings=None: _generate_v1(client, prompt, settings=settings),
            lambda cid: client.get(f"/v1/content/{cid}").json(),
            lambda cid, body=None: client.post(f"/v1/content/{cid}/regenerate", body, format="json"),
        )
    client = owner.token_client()
    return (
        lambda prompt, settings=None: _generate_api(client, linkedin, prompt, settings=settings),
        lambda cid: client.get(f"/api/content/{cid}").json()["data"],
        lambda cid, body=None: client.post(f"/api/content/{cid}/regenerate", body, format="json"),
    )


def _pk(cid: str) -> str:
    return cid.removeprefix("cnt_")


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_a_clear_brief_shows_its_detected_intent_with_high_confidence(
    family, django_capture_on_commit_callbacks
):
    generate, get, _ = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(CLOSURE)
    assert created["intent"] == {"value": "closure", "confidence": 0.9, "source": "detected"}
    assert get(created["id"])["intent"] == {"value": "closure", "confidence": 0.9, "source": "detected"}


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_an_unsure_brief_shows_no_intent_and_the_classifier_s_low_confidence(
    family, django_capture_on_commit_callbacks
):
    generate, get, _ = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(UNSURE)
    assert created["intent"] == {"value": "", "confidence": 0.3, "source": "detected"}
    body = get(created["id"])
    assert body["intent"] == {"value": "", "confidence": 0.3, "source": "detected"}
    # written with the neutral call to action (the engine read the same: not sure)
    [caption] = [v["caption"] for v in body["content"].values()]
    assert not any(line in caption for line in CTA["hiring"]["pro"])


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_an_intent_in_the_request_settings_is_recorded_as_set(family, django_capture_on_commit_callbacks):
    generate, _, _ = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(UNSURE, settings={"intent": "tip"})
    assert created["intent"] == {"value": "tip", "confidence": 1.0, "source": "set"}


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_regenerate_with_an_intent_writes_the_words_and_the_picture_for_it(
    family, owner, django_capture_on_commit_callbacks
):
    generate, get, regenerate = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(UNSURE)
    before = get(created["id"])
    [caption] = [v["caption"] for v in before["content"].values()]
    assert not any(line in caption for line in CTA["hiring"]["pro"])
    content = Content.objects.get(pk=_pk(created["id"]))
    [picture] = MediaAsset.objects.filter(content=content, kind="generated")
    assert picture.metadata["design"]["template"] == "announcement"

    with django_capture_on_commit_callbacks(execute=True):
        response = regenerate(created["id"], {"intent": "hiring"})
    assert response.status_code == 202, response.content
    answered = response.json().get("data", response.json())
    assert answered["intent"] == {"value": "hiring", "confidence": 1.0, "source": "set"}
    after = get(created["id"])
    assert after["intent"] == {"value": "hiring", "confidence": 1.0, "source": "set"}
    [caption] = [v["caption"] for v in after["content"].values()]
    # the call to action is a hiring one now (LinkedIn: a professional platform's pool)
    assert [line for line in CTA["hiring"]["pro"] if line in caption] != []
    [picture] = MediaAsset.objects.filter(content=content, kind="generated")
    assert picture.metadata["design"]["template"] == "hiring"
    content.refresh_from_db()
    assert content.settings["intent"] == "hiring"
    [entry] = ContentHistory.objects.filter(content=content, action="intent")
    assert entry.note == "Intent set to hiring: unsure (detected, 0.30) → hiring (set)."


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_regenerate_with_an_empty_intent_reads_the_brief_again(family, django_capture_on_commit_callbacks):
    generate, _, regenerate = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(CLOSURE, settings={"intent": "offer"})
    assert created["intent"] == {"value": "offer", "confidence": 1.0, "source": "set"}
    with django_capture_on_commit_callbacks(execute=True):
        response = regenerate(created["id"], {"intent": ""})
    assert response.status_code == 202
    answered = response.json().get("data", response.json())
    assert answered["intent"] == {"value": "closure", "confidence": 0.9, "source": "detected"}
    assert "intent" not in Content.objects.get(pk=_pk(created["id"])).settings


@pytest.mark.parametrize("family", ["v1", "api"], indirect=True)
def test_regenerate_without_a_body_keeps_a_set_intent(family, django_capture_on_commit_callbacks):
    generate, _, regenerate = family
    with django_capture_on_commit_callbacks(execute=True):
        created = generate(CLOSURE, settings={"intent": "offer"})
    with django_capture_on_commit_callbacks(execute=True):
        response = regenerate(created["id"])
    assert response.status_code == 202
    answered = response.json().get("data", response.json())
    assert answered["intent"] == {"value": "offer", "confidence": 1.0, "source": "set"}


def test_a_bad_intent_on_regenerate_is_a_400_in_family_a_s_format(owner, django_capture_on_commit_callbacks):
    client = owner.client()
    with django_capture_on_commit_callbacks(execute=True):
        created = _generate_v1(client, CLOSURE)
    response = client.post(f"/v1/content/{created['id']}/regenerate", {"intent": "party"}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "requestId": response.json()["requestId"],
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "Invalid request parameters.",
            "details": {"intent": ['"party" is not a valid choice.']},
        },
    }
    content = Content.objects.get(pk=_pk(created["id"]))
    assert (content.status, content.intent, content.intent_source) == ("review", "closure", "detected")


def test_a_bad_intent_on_regenerate_is_a_400_in_family_b_s_format(
    owner, linkedin, django_capture_on_commit_callbacks
):
    client = owner.token_client()
    with django_capture_on_commit_callbacks(execute=True):
        created = _generate_api(client, linkedin, CLOSURE)
    response = client.post(f"/api/content/{created['id']}/regenerate", {"intent": 7}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "error": "Invalid request parameters.",
        "details": {"code": "VALIDATION_ERROR", "intent": ['"7" is not a valid choice.']},
    }
    content = Content.objects.get(pk=created["id"])
    assert (content.status, content.intent, content.intent_source) == ("review", "closure", "detected")


def test_another_organization_s_content_is_a_404_whatever_the_intent(owner, outsider):
    from tests.content.factories import make_content

    content = make_content(owner.org, platforms=("x",), image=False)
    response = outsider.client().post(
        f"/v1/content/cnt_{content.pk.hex}/regenerate", {"intent": "offer"}, format="json"
    )
    assert response.status_code == 404
    content.refresh_from_db()
    assert content.intent == ""

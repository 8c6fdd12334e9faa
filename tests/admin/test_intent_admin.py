"""The content page shows what a post is written for, with the classifier's confidence, and a
reviewer changes it and regenerates from there; the change is in the content's history (issue 31)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.content import services
from apps.content.models import Content
from tests.factories import BrandFactory, OrganizationFactory

pytestmark = pytest.mark.django_db

CLOSURE = "We are closed from 24 December and reopen on 2 January. Happy holidays!"


@pytest.fixture
def boss(client, django_user_model) -> Client:
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "pass-boss-1")
    client.force_login(user)
    client.raise_request_exception = False  # a 500 is an answer here, not an exception
    return client


@pytest.fixture
def closure(django_capture_on_commit_callbacks) -> Content:
    org = OrganizationFactory(name="Ours")
    brand = BrandFactory(organization=org, name="Harbour Bakery")
    with django_capture_on_commit_callbacks(execute=True):
        content = services.content_request_generation(
            organization=org,
            inp=services.GenerationInput(prompt=CLOSURE, platforms=["linkedin"], brand=brand),
        )
    content.refresh_from_db()
    assert content.status == "review"
    return content


def _intent_shown(html: str) -> str:
    [shown] = re.findall(r'<span id="pf-intent"[^>]*>([^<]*)</span>', html)
    return shown


def _selected(html: str) -> list[str]:
    select = html.split('id="pf-intent-select"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([^"]*)" selected>', select)


def test_the_page_shows_the_detected_intent_with_its_confidence_and_a_select(boss, closure):
    html = boss.get(f"/admin/content/content/{closure.pk}/change/").content.decode()
    assert _intent_shown(html) == "closure (detected, 0.90)"
    assert _selected(html) == [""]  # "read from the brief": nobody set one
    assert 'value="offer"' in html and 'value="hiring"' in html


def test_a_reviewer_changes_the_intent_and_regenerates_and_the_history_says_so(
    boss, closure, django_capture_on_commit_callbacks
):
    before = closure.variants.get().caption
    with django_capture_on_commit_callbacks(execute=True):
        answer = boss.post(f"/admin/content/content/{closure.pk}/regenerate/", {"intent": "offer"})
    assert (answer.status_code, answer["Location"]) == (302, f"/admin/content/content/{closure.pk}/change/")
    closure.refresh_from_db()
    assert (closure.intent, closure.intent_confidence, closure.intent_source) == ("offer", 1.0, "set")
    assert closure.settings["intent"] == "offer"
    assert closure.status == "review"  # generated again, for the offer
    assert closure.variants.get().caption != before
    [entry] = closure.history.filter(action="intent")
    assert (entry.actor, entry.note) == (
        "boss",
        "Intent set to offer: closure (detected, 0.90) → offer (set).",
    )

    html = boss.get(f"/admin/content/content/{closure.pk}/change/").content.decode()
    assert "Sent back to generation: the page follows its progress. Written for offer now." in html
    assert _intent_shown(html) == "offer (set)"
    assert _selected(html) == ["offer"]
    assert "Intent set to offer: closure (detected, 0.90) → offer (set)." in html  # the history panel

    # back to the brief's own reading
    with django_capture_on_commit_callbacks(execute=True):
        boss.post(f"/admin/content/content/{closure.pk}/regenerate/", {"intent": ""})
    closure.refresh_from_db()
    assert (closure.intent, closure.intent_confidence, closure.intent_source) == ("closure", 0.9, "detected")
    assert "intent" not in closure.settings
    assert [h.note for h in closure.history.filter(action="intent")] == [
        "Intent read from the brief again: offer (set) → closure (detected, 0.90).",
        "Intent set to offer: closure (detected, 0.90) → offer (set).",
    ]


def test_an_unknown_intent_is_an_error_message_and_changes_nothing(boss, closure):
    answer = boss.post(f"/admin/content/content/{closure.pk}/regenerate/", {"intent": "party"}, follow=True)
    assert answer.status_code == 200
    html = answer.content.decode()
    [message] = re.findall(r'<ul class="messagelist">\s*<li class="error">([^<]*)</li>', html)
    assert message == (
        "Unknown intent &#x27;party&#x27;. intent: Must be one of recall, apology, incident, hiring, "
        "fundraiser, recipe, podcast, opening, offer, event, release, launch, tip, closure, poll, "
        "testimonial, announcement, or empty to read it from the brief again."
    )
    closure.refresh_from_db()
    assert (closure.status, closure.intent, closure.intent_source) == ("review", "closure", "detected")
    assert not closure.history.filter(action="intent").exists()

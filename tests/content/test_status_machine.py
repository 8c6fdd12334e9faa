"""The content status machine, exhaustively: every status x every client action through the
services, and a sample through both families' HTTP (409 in A, 422 in B)."""

from __future__ import annotations

import pytest

from apps.content import services, states
from apps.content.models import Content
from apps.core.errors import InvalidTransition
from tests.content.factories import make_content

pytestmark = pytest.mark.django_db

EXPECTED_TARGET = {
    "approve": states.APPROVED,
    "reject": states.REJECTED,
    "edit": states.DRAFT,
    "regenerate": states.PENDING,
    "schedule": states.SCHEDULED,
    "unschedule": states.APPROVED,
    "publish": states.PUBLISHING,
    "edit_image": states.REVIEW,
}


def run_action(content: Content, action: str) -> Content:
    """The service a client's action reaches. Scheduling and publishing services belong to
    publishing (they also need profiles); their status change is `transition`, called here."""
    if action == "approve":
        return services.content_approve(content=content)
    if action == "reject":
        return services.content_reject(content=content, reason="Off brand")
    if action == "edit":
        return services.content_update(content=content, status="draft")
    if action == "regenerate":
        return services.content_regenerate(content=content)
    if action == "edit_image":
        return services.content_edit_image(content=content, prompt="brighter")
    return services.transition(Content.objects.select_for_update().get(pk=content.pk), action)


def test_the_action_table_covers_every_client_action():
    assert set(EXPECTED_TARGET) == set(states.CLIENT_ACTIONS)


@pytest.mark.parametrize("action", states.CLIENT_ACTIONS)
@pytest.mark.parametrize("status", states.STATUSES)
def test_every_action_in_every_status_succeeds_or_is_refused_with_the_allowed_actions(status, action, owner):
    content = make_content(owner.org, status=status)
    if states.can(action, status):
        result = run_action(content, action)
        result.refresh_from_db()
        assert result.status == EXPECTED_TARGET[action]
    else:
        with pytest.raises(InvalidTransition) as caught:
            run_action(content, action)
        assert caught.value.details["status"] == status
        assert caught.value.details["allowedActions"] == states.allowed_actions(status)
        assert action not in caught.value.details["allowedActions"]
        content.refresh_from_db()
        assert content.status == status


def test_the_allowed_actions_of_each_status_are_as_drawn():
    assert {s: states.allowed_actions(s) for s in states.STATUSES} == {
        "draft": ["edit", "regenerate"],
        "pending": [],
        "generating": [],
        "review": ["approve", "reject", "edit", "regenerate", "schedule", "publish", "edit_image"],
        "approved": ["edit", "schedule", "publish"],
        "rejected": ["edit", "regenerate"],
        "scheduled": ["schedule", "unschedule", "publish"],
        "publishing": [],
        "published": [],
        "failed": ["edit", "regenerate"],
    }


def test_the_status_words_of_the_two_families():
    assert [states.word_a(s) for s in states.STATUSES] == [
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
    assert states.word_b(states.REVIEW) == "reviewing"


@pytest.mark.parametrize("status", [states.DRAFT, states.APPROVED, states.PUBLISHED, states.PENDING])
def test_approving_outside_review_is_a_409_in_family_a_and_a_422_in_family_b(status, owner):
    content = make_content(owner.org, status=status)
    a = owner.client().post(f"/v1/content/cnt_{content.pk.hex}/approve")
    assert a.status_code == 409
    assert a.json()["error"]["code"] == "CONFLICT"
    assert a.json()["error"]["details"] == {
        "status": status,
        "action": "approve",
        "allowedActions": states.allowed_actions(status),
    }
    b = owner.client().post(f"/api/content/{content.pk}/approve")
    assert b.status_code == 422
    assert b.json()["details"] == {
        "code": "CONFLICT",
        "status": status,
        "action": "approve",
        "allowedActions": states.allowed_actions(status),
    }


@pytest.mark.parametrize(
    ("status", "path", "body"),
    [
        (states.APPROVED, "reject", {"reason": "x"}),
        (states.PUBLISHING, "regenerate", None),
        (states.APPROVED, "edit-image", {"prompt": "brighter"}),
        (states.SCHEDULED, "edit-image/undo", None),
    ],
)
def test_other_illegal_actions_over_http(status, path, body, owner):
    content = make_content(owner.org, status=status)
    a = owner.client().post(f"/v1/content/cnt_{content.pk.hex}/{path}", body, format="json")
    b = owner.client().post(f"/api/content/{content.pk}/{path}", body, format="json")
    assert (a.status_code, b.status_code) == (409, 422)
    assert a.json()["error"]["details"]["status"] == status
    assert b.json()["details"]["allowedActions"] == states.allowed_actions(status)


def test_editing_text_of_content_being_published_is_a_conflict(owner):
    content = make_content(owner.org, status=states.PUBLISHING)
    with pytest.raises(InvalidTransition) as caught:
        services.content_update(content=content, variants={"instagram": {"caption": "New"}})
    assert caught.value.details["action"] == "edit"
    response = owner.client().put(
        f"/v1/content/cnt_{content.pk.hex}", {"content": {"instagram": {"caption": "New"}}}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"]["details"]["status"] == "publishing"

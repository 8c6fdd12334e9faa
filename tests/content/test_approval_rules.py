"""A brand's `require_approval` in the content's status machine (design section 5).

- `allowedActions` of content in review lists neither schedule nor publish when its brand
  requires approval (and the refusals say so), in both families, lists included.
- Editing the text of approved content withdraws its approval when the brand requires it;
  the text of scheduled content of such a brand cannot change until it is unscheduled.
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.content import services, states
from apps.content.models import Content
from apps.core.errors import InvalidTransition
from apps.events.models import Event
from tests.content.factories import make_content
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db

REVIEW_WITHOUT_PUBLISHING = ["approve", "reject", "edit", "regenerate", "edit_image"]
REVIEW_ALL = ["approve", "reject", "edit", "regenerate", "schedule", "publish", "edit_image"]


def cid(content) -> str:
    return f"cnt_{content.pk.hex}"


@pytest.fixture
def strict_brand(owner):
    return BrandFactory(organization=owner.org, generation_settings={"require_approval": True})


@pytest.fixture
def relaxed_brand(owner):
    return BrandFactory(organization=owner.org, generation_settings={"require_approval": False})


def updated_events(content) -> list[dict]:
    return [
        e.data
        for e in Event.objects.filter(type="content.updated", data__contentId=str(content.pk)).order_by(
            "created_at"
        )
    ]


# --- allowedActions ------------------------------------------------------------------------------


def test_the_status_machine_drops_schedule_and_publish_from_review_when_approval_is_required():
    assert states.allowed_actions(states.REVIEW, require_approval=True) == REVIEW_WITHOUT_PUBLISHING
    assert states.allowed_actions(states.REVIEW, require_approval=False) == REVIEW_ALL
    assert not states.can("schedule", states.REVIEW, require_approval=True)
    assert not states.can("publish", states.REVIEW, require_approval=True)
    # approval only gates review: approved and scheduled content keep their publishing actions
    for status in (states.APPROVED, states.SCHEDULED):
        assert states.allowed_actions(status, require_approval=True) == states.allowed_actions(status)


def test_both_families_show_review_content_of_a_brand_requiring_approval_without_schedule_or_publish(
    api, owner, strict_brand, relaxed_brand
):
    strict = make_content(owner.org, brand=strict_brand)
    relaxed = make_content(owner.org, brand=relaxed_brand)

    assert api.get(f"/v1/content/{cid(strict)}").json()["allowedActions"] == REVIEW_WITHOUT_PUBLISHING
    assert api.get(f"/api/content/{strict.pk}").json()["data"]["allowedActions"] == REVIEW_WITHOUT_PUBLISHING
    assert api.get(f"/v1/content/{cid(relaxed)}").json()["allowedActions"] == REVIEW_ALL
    listed_a = {c["id"]: c["allowedActions"] for c in api.get("/v1/content").json()["data"]}
    listed_b = {c["id"]: c["allowedActions"] for c in api.get("/api/content").json()["data"]}
    assert listed_a == {cid(strict): REVIEW_WITHOUT_PUBLISHING, cid(relaxed): REVIEW_ALL}
    assert listed_b == {str(strict.pk): REVIEW_WITHOUT_PUBLISHING, str(relaxed.pk): REVIEW_ALL}

    approved = api.post(f"/v1/content/{cid(strict)}/approve")
    assert approved.json()["allowedActions"] == ["edit", "schedule", "publish"]


def test_what_allowed_actions_promise_is_what_scheduling_does(api, owner, strict_brand):
    """The advertised actions and the publishing service agree: refused until approved."""
    profile = ProfileFactory(organization=owner.org, brand=strict_brand, platform="instagram", sandbox=True)
    content = make_content(owner.org, brand=strict_brand, profile=profile)
    body = {
        "scheduledFor": (timezone.now() + datetime.timedelta(hours=2)).isoformat(),
        "profiles": [f"prf_{profile.pk.hex}"],
    }

    refused = api.post(f"/v1/content/{cid(content)}/schedule", body, format="json")
    assert refused.status_code == 409
    details = refused.json()["error"]["details"]
    assert details["requiresApproval"] is True
    assert details["allowedActions"] == REVIEW_WITHOUT_PUBLISHING
    assert "schedule" not in api.get(f"/v1/content/{cid(content)}").json()["allowedActions"]

    assert api.post(f"/v1/content/{cid(content)}/approve").status_code == 200
    scheduled = api.post(f"/v1/content/{cid(content)}/schedule", body, format="json")
    assert scheduled.status_code == 200, scheduled.json()
    assert scheduled.json()["status"] == "scheduled"


def test_the_status_machine_itself_refuses_to_schedule_unapproved_content_and_says_why(owner, strict_brand):
    content = make_content(owner.org, brand=strict_brand)
    for action in ("schedule", "publish"):
        with pytest.raises(InvalidTransition) as caught:
            services.transition(Content.objects.select_for_update().get(pk=content.pk), action)
        assert caught.value.details == {
            "status": "review",
            "action": action,
            "allowedActions": REVIEW_WITHOUT_PUBLISHING,
            "requiresApproval": True,
        }
    content.refresh_from_db()
    assert content.status == states.REVIEW


# --- editing approved text -----------------------------------------------------------------------


def _approved(api, owner, brand, platforms=("instagram",)) -> Content:
    content = make_content(owner.org, brand=brand, platforms=platforms)
    assert api.post(f"/v1/content/{cid(content)}/approve").status_code == 200
    content.refresh_from_db()
    assert content.approved_at is not None and content.approved_by
    return content


def test_family_a_editing_approved_text_sends_it_back_to_review_when_the_brand_requires_approval(
    api, owner, strict_brand
):
    content = _approved(api, owner, strict_brand)

    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "A new roast story"}}},
        format="json",
    )

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "generated"  # review, in Family A's word
    assert body["content"]["instagram"]["caption"] == "A new roast story"
    assert body["allowedActions"] == REVIEW_WITHOUT_PUBLISHING
    content.refresh_from_db()
    assert (content.status, content.approved_at, content.approved_by) == (states.REVIEW, None, "")
    assert updated_events(content)[-1] == {
        "contentId": str(content.pk),
        "status": "review",
        "platforms": ["instagram"],
        "aiGenerated": "none",
        "previousStatus": "approved",
        "approvalWithdrawn": True,
    }
    # approving the new text works as the first time
    again = api.post(f"/v1/content/{cid(content)}/approve")
    assert again.json()["status"] == "approved"


def test_family_b_editing_approved_text_withdraws_the_approval(api, owner, strict_brand):
    content = _approved(api, owner, strict_brand)

    response = api.put(
        f"/api/content/{content.pk}",
        {"content": {"instagram": {"hashtags": ["roast", "autumn"]}}},
        format="json",
    )

    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["status"], data["content"]["instagram"]["hashtags"]) == ("reviewing", ["#roast", "#autumn"])
    assert "schedule" not in data["allowedActions"] and "publish" not in data["allowedActions"]
    content.refresh_from_db()
    assert (content.status, content.approved_at, content.approved_by) == (states.REVIEW, None, "")
    assert updated_events(content)[-1]["approvalWithdrawn"] is True


def test_family_a_put_with_status_draft_keeps_its_draft_meaning_and_clears_the_approval(
    api, owner, strict_brand
):
    content = _approved(api, owner, strict_brand)

    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "Back to the drawing board"}}, "status": "draft"},
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["status"] == "draft"
    content.refresh_from_db()
    assert (content.status, content.approved_at, content.approved_by) == (states.DRAFT, None, "")
    event = updated_events(content)[-1]
    assert (event["status"], event["previousStatus"], event["approvalWithdrawn"]) == (
        "draft",
        "approved",
        True,
    )


def test_the_batch_update_path_withdraws_the_approval_too(api, owner, strict_brand):
    content = _approved(api, owner, strict_brand)

    response = api.post(
        "/v1/content/batch",
        {
            "operations": [
                {
                    "method": "update",
                    "id": cid(content),
                    "data": {"content": {"instagram": {"caption": "Batch-edited"}}},
                }
            ]
        },
        format="json",
    )

    assert response.json()["results"][0]["status"] == "ok"
    content.refresh_from_db()
    assert (content.status, content.approved_at) == (states.REVIEW, None)


def test_resending_the_same_text_changes_nothing_and_keeps_the_approval(api, owner, strict_brand):
    content = _approved(api, owner, strict_brand)
    approved_at = content.approved_at

    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "Fresh autumn roast, out today."}}},
        format="json",
    )

    assert response.json()["status"] == "approved"
    content.refresh_from_db()
    assert (content.status, content.approved_at) == (states.APPROVED, approved_at)
    assert "approvalWithdrawn" not in updated_events(content)[-1]


def test_without_require_approval_an_edit_keeps_the_status_and_the_approval(api, owner, relaxed_brand):
    content = _approved(api, owner, relaxed_brand)
    approved_at = content.approved_at

    a = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "Edited, still approved"}}},
        format="json",
    )
    b = api.put(
        f"/api/content/{content.pk}", {"content": {"instagram": {"caption": "Edited again"}}}, format="json"
    )

    assert (a.json()["status"], b.json()["data"]["status"]) == ("approved", "approved")
    assert b.json()["data"]["allowedActions"] == ["edit", "schedule", "publish"]
    content.refresh_from_db()
    assert (content.status, content.approved_at) == (states.APPROVED, approved_at)
    assert all("approvalWithdrawn" not in e for e in updated_events(content))


def test_editing_review_text_of_a_strict_brand_stays_in_review(api, owner, strict_brand):
    content = make_content(owner.org, brand=strict_brand)

    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "Polished before approval"}}},
        format="json",
    )

    assert response.json()["status"] == "generated"
    assert "approvalWithdrawn" not in updated_events(content)[-1]


# --- scheduled content ---------------------------------------------------------------------------


def test_scheduled_text_of_a_brand_requiring_approval_cannot_change_until_unscheduled(
    api, owner, strict_brand
):
    content = make_content(owner.org, brand=strict_brand, status=states.SCHEDULED)
    edit = {"content": {"instagram": {"caption": "Sneaky late change"}}}

    a = api.put(f"/v1/content/{cid(content)}", edit, format="json")
    b = api.put(f"/api/content/{content.pk}", edit, format="json")

    assert (a.status_code, b.status_code) == (409, 422)
    assert a.json()["error"]["code"] == "CONFLICT"
    assert "unschedule" in a.json()["error"]["message"]
    assert a.json()["error"]["details"] == {
        "status": "scheduled",
        "action": "edit",
        "requiresApproval": True,
        "allowedActions": ["schedule", "unschedule", "publish"],
    }
    assert b.json()["details"]["requiresApproval"] is True
    content.refresh_from_db()
    assert content.status == states.SCHEDULED
    assert content.variants.get().caption == "Fresh autumn roast, out today."
    # what is not the approved text (tags) may still change
    tag = api.post("/api/tags", {"name": "Launch"}, format="json").json()["data"]
    tagged = api.put(f"/api/content/{content.pk}", {"tagIds": [tag["id"]]}, format="json")
    assert (tagged.status_code, tagged.json()["data"]["status"]) == (200, "scheduled")


def test_scheduled_text_of_a_brand_without_approval_can_be_edited_and_stays_scheduled(
    api, owner, relaxed_brand
):
    content = make_content(owner.org, brand=relaxed_brand, status=states.SCHEDULED)

    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"instagram": {"caption": "Last-minute fix"}}},
        format="json",
    )

    assert response.status_code == 200
    assert (response.json()["status"], response.json()["content"]["instagram"]["caption"]) == (
        "scheduled",
        "Last-minute fix",
    )


def test_the_staff_console_offers_schedule_and_publish_only_where_allowed(
    admin_client, owner, strict_brand, relaxed_brand
):
    strict = make_content(owner.org, brand=strict_brand)
    relaxed = make_content(owner.org, brand=relaxed_brand)

    strict_page = admin_client.get(f"/admin/content/content/{strict.pk}/change/").content.decode()
    relaxed_page = admin_client.get(f"/admin/content/content/{relaxed.pk}/change/").content.decode()

    assert (
        'id="pf-approve"' in strict_page
        and 'id="pf-schedule"' not in strict_page
        and 'id="pf-publish"' not in strict_page
    )
    assert 'id="pf-schedule"' in relaxed_page and 'id="pf-publish"' in relaxed_page

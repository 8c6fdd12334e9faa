"""Scheduling and publishing through the services (eager Celery; the sandbox publisher)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content.models import Content
from apps.core import ids
from apps.core.errors import InvalidTransition, PlatformFailure, ValidationFailed
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.models import Publication, SandboxPost
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


@pytest.fixture
def profile(owner, brand):
    return ProfileFactory(organization=owner.org, brand=brand, platform="instagram", sandbox=True)


def generated(owner, brand, platforms=("instagram",)) -> Content:
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=list(platforms), brand=brand
        ),
    )
    content.refresh_from_db()
    assert content.status == "review"
    return content


def later(minutes=30):
    return timezone.now() + datetime.timedelta(minutes=minutes)


def test_scheduled_content_goes_out_once_when_due(owner, brand, profile):
    content = generated(owner, brand)
    content = services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    assert content.status == "scheduled"
    assert services.dispatch_due() == 0  # not due yet: nothing goes out early
    assert services.dispatch_due(now=later(31)) == 1
    pub = Publication.objects.get(content=content)
    # a sandbox post link is stored as its path (made absolute when answering, issue 21)
    assert (
        pub.status == "published"
        and pub.external_id
        and pub.url.startswith(f"/sandbox/{pub.profile.platform}/")
    )
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1
    content.refresh_from_db()
    assert content.status == "published" and content.published_at is not None
    assert services.dispatch_due(now=later(60)) == 0
    assert services.publication_run(pub.pk) is None  # a duplicate task finds nothing to do
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1
    assert Event.objects.filter(type="content.published", data__contentId=str(content.pk)).count() == 1


def test_a_brand_that_requires_approval_refuses_unapproved_content(owner, brand, profile):
    brand.generation_settings = {"require_approval": True}
    brand.save()
    content = generated(owner, brand)
    with pytest.raises(InvalidTransition) as err:
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    assert err.value.details["requiresApproval"] is True
    content_services.content_approve(content=content)
    content = services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    assert content.status == "scheduled"


def test_times_zones_and_platforms_are_validated(owner, brand, profile):
    content = generated(owner, brand)
    with pytest.raises(ValidationFailed):
        services.publications_schedule(
            content=content, profiles=[profile], scheduled_for=timezone.now() - datetime.timedelta(minutes=1)
        )
    with pytest.raises(ValidationFailed):
        services.publications_schedule(
            content=content, profiles=[profile], scheduled_for=later(), options={"timezone": "Mars/Olympus"}
        )
    tiktok = ProfileFactory(organization=owner.org, brand=brand, platform="tiktok", sandbox=True)
    with pytest.raises(ValidationFailed) as err:
        services.publications_schedule(content=content, profiles=[tiktok], scheduled_for=later())
    assert "tiktok" in str(err.value.details)


def test_a_local_time_is_read_in_the_given_time_zone(owner, brand, profile):
    content = generated(owner, brand)
    tomorrow = (timezone.now() + datetime.timedelta(days=1)).date().isoformat()
    services.publications_schedule(
        content=content,
        profiles=[profile],
        scheduled_for=f"{tomorrow}T09:00:00",
        options={"timezone": "America/New_York"},
    )
    pub = Publication.objects.get(content=content)
    assert pub.scheduled_for.hour in (13, 14)  # 09:00 in New York is 13:00 or 14:00 UTC


def test_a_retryable_error_backs_off_honouring_retry_after_then_succeeds(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "rate_limit", "times": 1, "retryAfter": 120}}
    profile.save()
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    pub = Publication.objects.get(content=content)
    assert pub.status == "scheduled" and pub.error_code == "rate_limited"
    assert pub.due_at >= timezone.now() + datetime.timedelta(seconds=115)
    services.dispatch_due(now=pub.due_at)
    pub.refresh_from_db()
    assert pub.status == "published" and pub.attempts == 2
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1


def test_a_permanent_error_fails_at_once_with_the_platforms_message(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "permanent", "times": 1}}
    profile.save()
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    pub = Publication.objects.get(content=content)
    assert pub.status == "failed" and "media not accepted" in pub.last_error
    content.refresh_from_db()
    assert content.status == "failed" and "media not accepted" in content.status_reason
    assert Event.objects.filter(type="content.failed", data__contentId=str(content.pk)).exists()


def test_an_unknown_outcome_is_reconciled_and_never_posts_twice(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "outcome_unknown_after", "times": 1}}
    profile.save()
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    pub = Publication.objects.get(content=content)
    assert pub.status == "scheduled" and pub.outcome_unknown
    services.dispatch_due(now=pub.due_at)
    pub.refresh_from_db()
    assert pub.status == "published" and not pub.outcome_unknown
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1


def test_a_worker_that_died_mid_call_is_reconciled_by_the_sweep(owner, brand, profile):
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    pub = Publication.objects.get(content=content)
    # the worker claimed the row, posted, and died before recording the result
    client = services.client_for(profile)
    client.publish(services.post_request_for(pub))
    Publication.objects.filter(pk=pub.pk).update(
        status="publishing", outcome_unknown=True, lease_until=timezone.now() - datetime.timedelta(seconds=1)
    )
    assert services.sweep() == 1
    pub.refresh_from_db()
    assert pub.status == "published"
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1


def test_publish_now_reports_a_platform_refusal(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "permanent", "times": 1}}
    profile.save()
    content = generated(owner, brand)
    with pytest.raises(PlatformFailure) as err:
        services.publications_publish_now(content=content, profiles=[profile])
    assert "media not accepted" in err.value.message
    assert err.value.details["publications"][0]["profileId"] == str(profile.pk)


def test_publish_now_goes_out_at_once(owner, brand, profile):
    content = generated(owner, brand)
    content, pubs = services.publications_publish_now(content=content, profiles=[profile])
    assert [p.status for p in pubs] == ["published"]
    assert content.status == "published"


def test_a_401_refreshes_the_token_once_and_publishes_without_marking_the_profile(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "token_expired", "times": 1}}
    profile.save()
    before = profile.access_token_enc
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    profile.refresh_from_db()
    assert profile.token_status == "valid" and profile.access_token_enc != before
    assert not Event.objects.filter(type="profile.token_expired").exists()
    assert Publication.objects.get(content=content).status == "published"


def test_a_fresh_token_refused_again_retries_later_and_keeps_the_profile(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "token_expired", "times": 2}}
    profile.save()
    content = generated(owner, brand)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    profile.refresh_from_db()
    pub = Publication.objects.get(content=content)
    assert profile.token_status == "valid"
    assert pub.status == "scheduled" and pub.error_code == "token_expired"


def test_a_refused_first_comment_is_recorded_and_emitted_and_the_post_stays_published(owner, brand, profile):
    profile.settings = {**profile.settings, "sandbox": {"fail": "first_comment"}}
    profile.save()
    content = generated(owner, brand)
    content.variants.filter(platform="instagram").update(first_comment="Link in bio!")
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    services.dispatch_due(now=later(31))
    pub = Publication.objects.get(content=content)
    assert pub.status == "published" and pub.external_id
    assert "first comment was refused" in pub.first_comment_error
    event = Event.objects.get(type="publication.updated", data__publicationId=str(pub.pk))
    assert event.data["status"] == "published" and event.data["externalId"] == pub.external_id
    assert event.data["firstCommentError"] == pub.first_comment_error
    body = owner.client().get(f"/v1/content/{ids.render(content.pk, 'content')}").json()
    shown = [p for p in body.get("publications", []) if p["id"] == ids.render(pub.pk, "publication")]
    assert shown and shown[0]["firstCommentError"] == pub.first_comment_error


def test_the_queue_takes_the_next_free_posting_slot(owner, brand, profile):
    profile.settings = {"timezone": "UTC", "postingTimes": ["09:00", "18:00"]}
    profile.save()
    first = generated(owner, brand)
    second = generated(owner, brand)
    services.queue_add(content=first, profile=profile)
    services.queue_add(content=second, profile=profile)
    a, b = (Publication.objects.get(content=c).scheduled_for for c in (first, second))
    assert a < b and {a.hour, b.hour} <= {9, 18}


def test_auto_publish_schedules_approved_content_into_the_next_slot(owner, brand, profile):
    brand.generation_settings = {"require_approval": True, "auto_publish": True}
    brand.save()
    profile.settings = {"timezone": "UTC", "postingTimes": ["07:30"]}
    profile.save()
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Auto", platforms=["instagram"], brand=brand, profile=profile
        ),
    )
    content.refresh_from_db()
    content_services.content_approve(content=content)
    content.refresh_from_db()
    assert content.status == "scheduled"
    assert Publication.objects.get(content=content).scheduled_for.strftime("%H:%M") == "07:30"

"""publication_retry: staff put a failed publication back on schedule, due now."""

from __future__ import annotations

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.core.errors import InvalidTransition, PlatformFailure, RuleViolation
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def failed(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="instagram",
        sandbox=True,
        settings={"sandbox": {"fail": "permanent", "times": 1}},
    )
    content = make_content(owner.org, profile=profile)
    with pytest.raises(PlatformFailure):
        services.publications_publish_now(content=content, profiles=[profile])
    pub = Publication.objects.get(content=content)
    content.refresh_from_db()
    assert pub.status == "failed" and content.status == "failed"
    return pub


def test_a_failed_publication_goes_back_on_schedule_due_now_and_then_out(failed):
    before = timezone.now()
    pub = services.publication_retry(publication=failed)
    assert pub.status == "scheduled" and before <= pub.due_at <= timezone.now() and pub.attempts == 0
    content = pub.content
    content.refresh_from_db()
    assert content.status == "scheduled"
    assert Event.objects.filter(type="content.scheduled", data__contentId=str(content.pk)).exists()
    assert services.dispatch_due() == 1
    pub.refresh_from_db()
    content.refresh_from_db()
    assert pub.status == "published" and pub.last_error == "" and content.status == "published"


def test_only_failed_publications_on_connected_profiles_are_retried(failed):
    profile = failed.profile
    profile.token_status = "expired"
    profile.save()
    with pytest.raises(RuleViolation):
        services.publication_retry(publication=failed)
    failed.refresh_from_db()
    assert failed.status == "failed"

    profile.token_status = "valid"
    profile.save()
    services.publication_retry(publication=failed)
    with pytest.raises(InvalidTransition) as err:
        services.publication_retry(publication=failed)
    assert err.value.details == {"status": "scheduled"}


def test_a_strict_brand_s_failed_content_without_a_standing_approval_is_not_retried(failed):
    from apps.content.models import Content

    brand = failed.content.brand
    brand.generation_settings = {**brand.generation_settings, "require_approval": True}
    brand.save()
    Content.objects.filter(pk=failed.content_id).update(
        approved_at=None
    )  # as an edit after approval leaves it
    with pytest.raises(InvalidTransition) as err:
        services.publication_retry(publication=failed)
    assert err.value.details["requiresApproval"] is True
    failed.refresh_from_db()
    assert failed.status == "failed"

    Content.objects.filter(pk=failed.content_id).update(approved_at=timezone.now())
    assert services.publication_retry(publication=failed).status == "scheduled"

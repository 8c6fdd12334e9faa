"""Issue 22: LinkedIn tokens die on day 60 (no refresh token for apps outside the partner program).

The expiry is on the profile in both families; `profile.token_expiring` (event, webhook) goes out
7 days and 1 day ahead, once each; /api/monitoring/errors and the admin (a badge) show it; a
schedule after the expiry is refused with the date. A token the service renews itself (a
refresh token, Instagram's self-refresh) is never announced.
"""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from apps.brands.models import Brand
from apps.core import ids
from apps.core.errors import RuleViolation
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.tasks import refresh_expiring_tokens
from apps.webhooks.render import render_events
from tests.factories import ProfileFactory
from tests.publishing.test_scheduling import generated

pytestmark = pytest.mark.django_db(transaction=True)

START = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
EXPIRES = START + datetime.timedelta(days=60)


@pytest.fixture
def linkedin(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="linkedin",
        username="ada-acme",
        sandbox=False,
        access_token_enc="x",
        refresh_token_enc="",
        token_expires_at=EXPIRES,
    )


def warnings(profile):
    return list(
        Event.objects.filter(type="profile.token_expiring", data__profileId=str(profile.pk)).order_by(
            "created_at"
        )
    )


def test_the_expiry_is_shown_and_announced_7_days_and_1_day_ahead_once_each(owner, linkedin):
    refreshable = ProfileFactory(
        organization=owner.org,
        brand=linkedin.brand,
        platform="linkedin",
        sandbox=False,
        refresh_token_enc="r",
        token_expires_at=EXPIRES,
    )
    v1 = owner.client().get(f"/v1/profiles/{ids.render(linkedin.pk, 'profile')}").json()
    assert v1["tokenExpiresAt"] == "2027-01-30T09:00:00Z"
    assert owner.token_client().get(f"/api/profiles/{linkedin.pk}").json()["data"]["tokenExpiresAt"] == (
        "2027-01-30T09:00:00Z"
    )

    with time_machine.travel(START + datetime.timedelta(days=50), tick=False):
        assert services.tokens_warn_expiring() == 0  # ten days left: nothing yet
    with time_machine.travel(START + datetime.timedelta(days=53, hours=1), tick=False):
        refresh_expiring_tokens()  # the hourly beat sends it
        assert services.tokens_warn_expiring() == 0  # once
        (first,) = warnings(linkedin)
        assert first.data["expiresAt"] == EXPIRES.isoformat() and first.data["daysLeft"] == 7.0
        assert first.data["reason"].startswith("The linkedin token expires on 2027-01-30 09:00 UTC")
        hook = render_events([first])[first.pk]
        assert hook["id"] == ids.render(linkedin.pk, "profile") and hook["expiresAt"] == EXPIRES.isoformat()
        assert hook["reason"] == first.data["reason"]

        errors = (
            owner.token_client().get("/api/monitoring/errors?kind=token_refresh").json()["data"]["errors"]
        )
        assert [(e["cause"], e["platform"]) for e in errors] == [("token_expiring", "linkedin")]
        assert "expires on 2027-01-30 09:00 UTC" in errors[0]["message"]

        staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "s3cret-pass")
        browser = Client()
        browser.force_login(staff)
        page = browser.get("/admin/profiles/socialprofile/").content.decode()
        assert page.count("TOKEN EXPIRES 2027-01-30") == 1  # the refreshable one has no badge
    with time_machine.travel(START + datetime.timedelta(days=59, hours=2), tick=False):
        assert services.tokens_warn_expiring() == 1
        assert services.tokens_warn_expiring() == 0
    assert [round(w.data["daysLeft"]) for w in warnings(linkedin)] == [7, 1]
    assert warnings(refreshable) == []


def test_a_schedule_past_the_expiry_is_refused_with_the_date(owner, linkedin):
    content = generated(owner, linkedin.brand, platforms=("linkedin",))
    with pytest.raises(RuleViolation) as refused:
        services.publications_schedule(
            content=content, profiles=[linkedin], scheduled_for=EXPIRES + datetime.timedelta(hours=1)
        )
    assert "the linkedin token expires on 2027-01-30 09:00 UTC and cannot be renewed" in str(refused.value)
    # before the expiry: fine
    when = min(EXPIRES - datetime.timedelta(days=1), timezone.now() + datetime.timedelta(days=1))
    assert (
        services.publications_schedule(content=content, profiles=[linkedin], scheduled_for=when).status
        == "scheduled"
    )

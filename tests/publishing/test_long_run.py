"""72 simulated hours: a YouTube, a TikTok and an Instagram profile publish once an hour
(issue 14). The profiles are connected through the OAuth fakes, whose tokens live as long as
the platforms say (Google 3,599 s, TikTok 24 h with rotating refresh tokens, Instagram 60 days
refreshed itself); the publishing fakes accept only those tokens, alive, with their scopes.
The clock is moved by time-machine: the beat's refresh runs every 10 simulated minutes, a
publish runs every hour. No profile is ever marked expired and no post is made twice."""

from __future__ import annotations

import copy
import datetime

import pytest
import time_machine
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content.models import Content
from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing import oauth, services
from apps.publishing.models import Publication
from apps.publishing.oauth_backends import callback_url
from apps.publishing.platforms.tiktok import TikTokClient
from tests.publishing.fakes import FAKES
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_oauth_platforms import provider_connect
from tests.publishing.test_processing_and_unknown import TIKTOK_CHOICES

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]

PLATFORMS = ("youtube", "tiktok", "instagram")
HOURS = 72


def clone(content: Content) -> Content:
    """A new content with the same variants and media (a fresh post for the next hour)."""
    variants = list(content.variants.all())
    assets = list(content.media_assets.all())
    content.pk = None
    content._state.adding = True
    content.save()
    for row in [*variants, *assets]:
        row.pk = None
        row._state.adding = True
        row.content = content
        row.save()
    return content


def test_three_profiles_publish_hourly_for_72_hours_without_expiring_or_posting_twice(
    owner, settings, monkeypatch
):
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Instagram and TikTok pull media from https URLs
    settings.TOKEN_REFRESH_AHEAD_SECONDS = 1800
    settings.TOKEN_REFRESH_BEFORE_USE_SECONDS = 600
    monkeypatch.setattr(TikTokClient, "settle_timeout", 0)  # TikTok's status is read by the poller
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    start = datetime.datetime(2026, 11, 2, 8, 0, tzinfo=datetime.UTC)
    providers, fakes, profiles, originals = {}, {}, {}, {}
    for platform in PLATFORMS:  # one generated post per platform, copied for every hour
        originals[platform] = content_services.content_request_generation(
            organization=owner.org,
            inp=content_services.GenerationInput(
                prompt="Autumn latte launch",
                platforms=[platform],
                brand=brand,
                media_type="video" if platform == "youtube" else "image",
            ),
        )
        originals[platform].refresh_from_db()
        assert originals[platform].status == "review", originals[platform].status_reason
    with time_machine.travel(start, tick=False) as traveller:
        try:
            for platform in PLATFORMS:
                provider = FakeProvider(
                    platform, copy.deepcopy(ACCOUNTS[platform]), redirect_uri=callback_url(platform)
                )
                providers[platform] = provider
                setattr(settings, f"{platform.upper()}_CLIENT_ID", CLIENT_ID)
                setattr(settings, f"{platform.upper()}_CLIENT_SECRET", CLIENT_SECRET)
                settings.OAUTH_ENDPOINT_OVERRIDES = {
                    **settings.OAUTH_ENDPOINT_OVERRIDES,
                    platform: provider.overrides(),
                }
                profile = provider_connect(owner, provider)
                fake = FAKES[platform]()
                fake.token_source = provider  # only the tokens the platform issued, alive
                fake.account.external_id = profile.external_id
                fake.processing_polls = 0
                fakes[platform] = fake
                # from now on the platform's API is the publishing fake; tokens still come from
                # the OAuth fake's token and refresh endpoints
                settings.OAUTH_ENDPOINT_OVERRIDES = {
                    **settings.OAUTH_ENDPOINT_OVERRIDES,
                    platform: {**provider.overrides(), "api": fake.base_url},
                }
                profiles[platform] = profile
            assert {p: profiles[p].token_expires_at - timezone.now() for p in PLATFORMS}[
                "youtube"
            ] == datetime.timedelta(seconds=3599)

            pubs: list[Publication] = []
            for hour in range(HOURS):
                for platform in PLATFORMS:
                    content = clone(originals[platform])
                    services.publications_schedule(
                        content=content,
                        profiles=[profiles[platform]],
                        scheduled_for=timezone.now() + datetime.timedelta(minutes=5),
                        options=TIKTOK_CHOICES if platform == "tiktok" else {},
                    )
                    pubs.append(Publication.objects.get(content=content))
                for _ in range(6):  # the beat: token refresh every 10 minutes, due posts, status reads
                    traveller.shift(datetime.timedelta(minutes=10))
                    oauth.tokens_refresh_due()
                    services.dispatch_due()
                    services.processing_poll_due()
                    bad = SocialProfile.objects.exclude(token_status="valid").values_list(
                        "platform", "token_status"
                    )
                    assert not bad, f"hour {hour}: {list(bad)}"

            statuses = {}
            for pub in Publication.objects.filter(pk__in=[p.pk for p in pubs]).select_related("profile"):
                statuses.setdefault(pub.profile.platform, []).append((pub.status, pub.last_error))
            for platform in PLATFORMS:
                assert [s for s, _ in statuses[platform]] == ["published"] * HOURS, statuses[platform][:3]
                # one post per publication on the platform, none twice
                assert len(fakes[platform].posts) == HOURS
            assert not Event.objects.filter(type="profile.token_expired").exists()
            # the tokens really did turn over: Google's hour-long token about once an hour,
            # TikTok's day-long one (rotating its refresh token) about once a day
            refreshes = {
                p: len(
                    [
                        r
                        for r in providers[p].token_requests
                        if r.get("grant_type") in ("refresh_token", "ig_refresh_token")
                    ]
                )
                for p in PLATFORMS
            }
            assert refreshes["youtube"] >= HOURS and 2 <= refreshes["tiktok"] <= 4
        finally:
            for server in [*providers.values(), *fakes.values()]:
                server.close()

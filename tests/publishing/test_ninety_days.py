"""Issue 22: a simulated 90-day run, one profile per platform, one post a day each.

Nine profiles (Instagram, a Facebook Page, TikTok, YouTube, a LinkedIn organization page, X,
Threads, Pinterest, Bluesky) connect through the fakes, whose tokens live as long as the
platforms say: Google's access token an hour (its refresh token does not expire: a verified app
in production), TikTok 24 h with a 365-day refresh token rotating on each refresh, X 2 h with a
rotating refresh token, Pinterest 30 days with a continuous (rotating) 60-day refresh token,
Instagram's and Threads' long-lived token 60 days refreshed by itself, the Facebook Page token
without expiry, LinkedIn 60 days with no refresh token (an app outside the partner program),
Bluesky a 2-hour session with a 90-day refresh JWT and the app password behind it. The
publishing fakes accept only the tokens those issued, alive, with their scopes.

The clock is moved by time-machine: each day the beat runs at 08:00, 09:10 and 20:00 (token
refresh, expiry warnings, due posts, status reads) and each profile gets a post at 09:05 (the
hour-long and two-hour tokens are refreshed before use, as a publish does). After every beat: a profile that says `valid` holds a token its platform accepts, or one
the service can renew (a live refresh token, a live app password); a profile that is not valid
has had its `profile.token_expired` at once; a token nothing can renew (LinkedIn's) was announced
with `profile.token_expiring` 7 days and 1 day before it ran out. When the LinkedIn page's token
expires on day 60 its admin reconnects it, as the warnings asked. At the end every post was made
exactly once.
"""

from __future__ import annotations

import copy
import datetime

import pytest
import time_machine
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content.models import Content, Variant
from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing import crypto, services
from apps.publishing.models import Publication
from apps.publishing.oauth_backends import callback_url
from apps.publishing.platforms.tiktok import TikTokClient
from apps.publishing.tasks import refresh_expiring_tokens
from tests.publishing.bluesky_fake import FakePDS
from tests.publishing.fakes import FAKES
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_long_run import clone
from tests.publishing.test_oauth_platforms import REDIRECT, callback, profile_from

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]

#: a TikTok post carries the creator's privacy level and consent (no default, issue 22)
OPTIONS = {"tiktok": {"tiktok": {"privacyLevel": "PUBLIC_TO_EVERYONE", "consent": True}}}
OAUTH = ("instagram", "facebook", "tiktok", "youtube", "linkedin", "x", "threads", "pinterest")
PLATFORMS = (*OAUTH, "bluesky")
DAYS = 90
START = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)
#: the beat's runs after 08:00 each day, as offsets from 08:00
BEATS = (datetime.timedelta(hours=1, minutes=10), datetime.timedelta(hours=12))
BOARD = "1022106146619699000"
BLUESKY_PASSWORD = "abcd-efgh-ijkl-mnop"


class Run:
    """The fakes, the profiles and what the simulation saw."""

    def __init__(self, owner, settings) -> None:
        self.owner, self.settings = owner, settings
        self.providers: dict[str, FakeProvider] = {}
        self.fakes: dict[str, object] = {}
        self.profiles: dict[str, SocialProfile] = {}
        self.pds = FakePDS()
        self.reconnects: list[tuple[str, datetime.datetime]] = []

    def close(self) -> None:
        for server in [*self.providers.values(), *self.fakes.values(), self.pds]:
            server.close()

    # ---- connecting -------------------------------------------------------------------------

    def connect(self, platform: str) -> SocialProfile:
        if platform == "bluesky":
            answer = self.owner.client().post(
                "/v1/profiles/bluesky/connect",
                {"handle": "acme.bsky.social", "appPassword": BLUESKY_PASSWORD},
                format="json",
            )
            assert answer.status_code == 201, answer.content
            return SocialProfile.objects.get(platform="bluesky")
        provider = self.providers[platform]
        api = self.settings.OAUTH_ENDPOINT_OVERRIDES.get(platform, {}).get("api")
        # the connect reads the account from the OAuth fake; publishing goes to the API fake
        self.settings.OAUTH_ENDPOINT_OVERRIDES = {
            **self.settings.OAUTH_ENDPOINT_OVERRIDES,
            platform: provider.overrides(),
        }
        body = {"redirectUri": REDIRECT}
        if platform == "linkedin":
            body["accountType"] = "organization"
        answer = self.owner.token_client().post(f"/api/oauth/{platform}/authorize", body, format="json")
        assert answer.status_code == 200, answer.content
        profile = profile_from(callback(platform, provider.consent(answer.json()["data"]["authUrl"])))
        if api:
            self.settings.OAUTH_ENDPOINT_OVERRIDES = {
                **self.settings.OAUTH_ENDPOINT_OVERRIDES,
                platform: {**provider.overrides(), "api": api},
            }
        return profile

    def start(self) -> None:
        self.settings.BLUESKY_SERVICE_URL = self.pds.url
        self.settings.BLUESKY_PLC_DIRECTORY_URL = self.pds.url + "/plc"
        self.pds.add_account("acme.bsky.social", BLUESKY_PASSWORD, display_name="Acme Coffee", followers=321)
        for platform in OAUTH:
            provider = FakeProvider(
                platform,
                copy.deepcopy(ACCOUNTS[platform]),
                redirect_uri=callback_url(platform),
                app_key="linkedin_pages" if platform == "linkedin" else "",
            )
            # LinkedIn gives refresh tokens to approved partners only: 60 days, then reconnect
            provider.refresh_tokens_enabled = platform != "linkedin"
            self.providers[platform] = provider
            setattr(self.settings, f"{platform.upper()}_CLIENT_ID", CLIENT_ID)
            setattr(self.settings, f"{platform.upper()}_CLIENT_SECRET", CLIENT_SECRET)
            profile = self.connect(platform)
            fake = FAKES[platform]()
            fake.token_source = provider  # only the tokens the platform issued, alive
            fake.account.external_id = profile.external_id
            fake.processing_polls = 0
            if platform == "linkedin":
                fake.person_id = ACCOUNTS["linkedin"]["sub"]
                fake.add_organization("2414183", "Acme Corp", followers=12500)
            self.fakes[platform] = fake
            self.settings.OAUTH_ENDPOINT_OVERRIDES = {
                **self.settings.OAUTH_ENDPOINT_OVERRIDES,
                platform: {**provider.overrides(), "api": fake.base_url},
            }
            self.profiles[platform] = profile
        self.profiles["bluesky"] = self.connect("bluesky")
        assert self.profiles["linkedin"].external_id == "urn:li:organization:2414183"

    # ---- what must hold after every beat -------------------------------------------------------

    def renewable(self, platform: str, profile: SocialProfile) -> bool:
        """Whether the platform accepts the profile's token now, or the service can renew it."""
        if platform == "bluesky":
            account = next(iter(a for a in self.pds.accounts.values() if a.handle == "acme.bsky.social"))
            return crypto.decrypt(profile.secret_enc) in account.app_passwords
        provider = self.providers[platform]
        access = crypto.decrypt(profile.access_token_enc)
        alive = provider.access_info(access)
        if alive is not None and alive[0]:
            return True
        refresh = crypto.decrypt(profile.refresh_token_enc)
        return bool(refresh) and provider.kind_of(refresh) == "refresh" and refresh in provider.refresh_tokens

    def check(self, when: str) -> None:
        for platform, profile in self.profiles.items():
            profile.refresh_from_db()
            if profile.token_status == "valid":
                assert self.renewable(platform, profile), f"{when}: {platform} says valid with a dead token"
                continue
            # not valid: announced at once, and only where nothing could renew it
            expired = Event.objects.filter(type="profile.token_expired", data__profileId=str(profile.pk))
            assert expired.exists(), f"{when}: {platform} is {profile.token_status} and nothing said so"
            assert platform == "linkedin", f"{when}: {platform} died: {profile.token_error}"

    def beat(self, when: str) -> None:
        refresh_expiring_tokens()
        services.dispatch_due()
        services.processing_poll_due()
        self.check(when)

    def reconnect_the_dead(self, day: int) -> None:
        """The admin reconnects a profile whose token ran out, as its warnings asked: both
        warnings came before the expiry, for that very token."""
        for platform, profile in self.profiles.items():
            if profile.token_status == "valid":
                continue
            expires = profile.token_expires_at
            warned = Event.objects.filter(
                type="profile.token_expiring",
                data__profileId=str(profile.pk),
                data__expiresAt=expires.isoformat(),
                created_at__lt=expires,
            ).order_by("created_at")
            assert [round(w.data["daysLeft"]) for w in warned] == [7, 1], (day, platform)
            assert warned[0].created_at <= expires - datetime.timedelta(days=6)
            self.profiles[platform] = self.connect(platform)
            assert self.profiles[platform].pk == profile.pk  # the same profile, a new token
            assert self.profiles[platform].token_status == "valid"
            self.reconnects.append((platform, timezone.now()))


def originals_for(owner) -> dict[str, Content]:
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    out = {}
    for platform in PLATFORMS:  # one generated post per platform, copied for every day
        content = content_services.content_request_generation(
            organization=owner.org,
            inp=content_services.GenerationInput(
                prompt="Autumn latte launch",
                platforms=[platform],
                brand=brand,
                media_type="video" if platform == "youtube" else "image",
            ),
        )
        content.refresh_from_db()
        assert content.status == "review", (platform, content.status_reason)
        out[platform] = content
    return out


def test_nine_profiles_publish_daily_for_90_days_and_no_token_dies_unannounced(owner, settings, monkeypatch):
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Instagram, Threads and TikTok pull media by URL
    monkeypatch.setattr(TikTokClient, "settle_timeout", 0)  # TikTok's status is read by the poller
    originals = originals_for(owner)
    run = Run(owner, settings)
    pubs: dict[str, list[int]] = {p: [] for p in PLATFORMS}
    with time_machine.travel(START, tick=False) as traveller:
        try:
            run.start()
            for day in range(DAYS):
                run.beat(f"day {day} 08:00")
                run.reconnect_the_dead(day)
                for platform in PLATFORMS:
                    content = clone(originals[platform])
                    # a caption of its own each day (no longer than the day's, which fits the platform)
                    variant = Variant.objects.get(content=content, platform=platform)
                    prefix = f"{day + 1}. "
                    caption = prefix + variant.caption[: max(len(variant.caption) - len(prefix), 0)]
                    Variant.objects.filter(pk=variant.pk).update(caption=caption)
                    services.publications_schedule(
                        content=content,
                        profiles=[run.profiles[platform]],
                        scheduled_for=timezone.now() + datetime.timedelta(minutes=5),
                        options={"board_id": BOARD} if platform == "pinterest" else OPTIONS.get(platform),
                    )
                    pubs[platform].append(Publication.objects.get(content=content).pk)
                morning = timezone.now()
                for offset in BEATS:
                    traveller.move_to(morning + offset)
                    run.beat(f"day {day} {timezone.now():%H:%M}")
                traveller.move_to(morning + datetime.timedelta(days=1))

            # every post made once, on its own platform, and every publication published
            for platform in PLATFORMS:
                rows = list(Publication.objects.filter(pk__in=pubs[platform]))
                bad = [(p.status, p.last_error) for p in rows if p.status != "published"]
                assert not bad, (platform, bad[:3])
                made = (
                    [rkey for (_did, rkey) in run.pds.records]
                    if platform == "bluesky"
                    else [p["id"] for p in run.fakes[platform].posts]
                )
                assert len(made) == DAYS == len(set(made)), (platform, len(made))
                assert {p.external_id for p in rows} <= set(made) | {
                    f"at://{run.profiles['bluesky'].external_id}/app.bsky.feed.post/{k}" for k in made
                }, platform
            assert {p["author"] for p in run.fakes["linkedin"].posts} == {"urn:li:organization:2414183"}

            # only LinkedIn's token ran out (day 60), announced ahead and at once, then reconnected
            assert [(p, at.date()) for p, at in run.reconnects] == [
                ("linkedin", (START + datetime.timedelta(days=60)).date())
            ]
            died = Event.objects.filter(type="profile.token_expired")
            assert [e.data["platform"] for e in died] == ["linkedin"]
            warnings = Event.objects.filter(type="profile.token_expiring")
            assert sorted((e.data["platform"], round(e.data["daysLeft"])) for e in warnings) == [
                ("linkedin", 1),
                ("linkedin", 7),
            ]
            # the tokens really did turn over
            refreshes = {
                p: len(
                    [
                        r
                        for r in run.providers[p].token_requests
                        if r.get("grant_type") in ("refresh_token", "ig_refresh_token", "th_refresh_token")
                    ]
                )
                for p in OAUTH
            }
            assert refreshes["youtube"] >= DAYS and refreshes["x"] >= DAYS and refreshes["tiktok"] >= DAYS - 1
            assert refreshes["instagram"] >= 1 and refreshes["threads"] >= 1 and refreshes["pinterest"] >= 2
            assert refreshes["linkedin"] == 0 and refreshes["facebook"] == 0
        finally:
            run.close()

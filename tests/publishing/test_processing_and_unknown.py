"""Posts a platform is still processing (TikTok moderation) and outcomes nobody can read back
(LinkedIn without the partner permission), through the services with the real clients
against the platforms' fakes (issue 14)."""

from __future__ import annotations

import datetime
import json

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core.errors import InvalidTransition, ValidationFailed
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.crypto import encrypt
from apps.publishing.models import Publication
from apps.publishing.platforms.tiktok import TikTokClient
from apps.webhooks.inbound_effects import _tiktok
from tests.factories import ProfileFactory
from tests.publishing.fakes import FakeClock

pytestmark = pytest.mark.django_db(transaction=True)

TIKTOK_SCOPES = "user.info.basic,video.publish,video.upload,video.list,user.info.stats"
#: what a TikTok schedule carries: the creator's privacy level and consent (no default)
TIKTOK_CHOICES = {"tiktok": {"privacyLevel": "PUBLIC_TO_EVERYONE", "consent": True}}


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


def real_profile(settings, owner, brand, fake, *, scopes: str):
    platform = fake.platform
    setattr(settings, f"{platform.upper()}_CLIENT_ID", "fake-client-id")
    setattr(settings, f"{platform.upper()}_CLIENT_SECRET", "fake-client-secret")
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        platform: {"api": fake.base_url},
    }
    token = fake.issue(f"{platform}-access-1", scopes=scopes.replace(",", " ").split())
    return ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform=platform,
        sandbox=False,
        external_id=fake.account.external_id,
        username=fake.account.username,
        access_token_enc=encrypt(token),
        token_scopes=scopes,
        token_status="valid",
        token_expires_at=timezone.now() + datetime.timedelta(days=30),
    )


def scheduled(owner, brand, profile, platform):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(prompt="Autumn latte launch", platforms=[platform], brand=brand),
    )
    when = timezone.now() + datetime.timedelta(minutes=30)
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=when, options=TIKTOK_CHOICES
    )
    return Publication.objects.get(content=content)


def run_due(pub):
    services.dispatch_due(now=pub.due_at + datetime.timedelta(seconds=1))
    pub.refresh_from_db()
    return pub


@pytest.fixture
def tiktok(settings, owner, brand, make_fake, monkeypatch):
    fake = make_fake("tiktok")
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # TikTok pulls photos from a public https URL
    fake.clock = FakeClock()
    fake.moderation_seconds = 600  # the public post id exists ten minutes after PUBLISH_COMPLETE
    fake.processing_polls = 0
    monkeypatch.setattr(TikTokClient, "settle_timeout", 0)  # hand it to the poller at once
    profile = real_profile(settings, owner, brand, fake, scopes=TIKTOK_SCOPES)
    return fake, profile


def poll_now(pub, *, after=0):
    return services.processing_poll_due(now=pub.due_at + datetime.timedelta(seconds=after))


def test_a_tiktok_post_waits_in_processing_for_its_id_and_is_never_posted_twice(owner, brand, tiktok):
    fake, profile = tiktok
    pub = scheduled(owner, brand, profile, "tiktok")
    pub = run_due(pub)

    [post] = fake.posts
    assert pub.status == "processing" and not pub.outcome_unknown and pub.external_id == ""
    assert (
        pub.platform_state["publish_id"] == post["publish_id"]
        and pub.platform_state["status"] == "PUBLISH_COMPLETE"
    )
    assert pub.due_at > timezone.now() + datetime.timedelta(seconds=15)  # the first slow read
    pub.content.refresh_from_db()
    assert pub.content.status == "publishing"
    event = Event.objects.get(type="publication.updated", data__publicationId=str(pub.pk))
    assert event.data["status"] == "processing"

    # nothing else picks it up: not the dispatcher, not the sweep, not a second publish
    assert services.dispatch_due(now=timezone.now() + datetime.timedelta(days=1)) == 0
    assert services.sweep(now=timezone.now() + datetime.timedelta(days=1)) == 0
    assert services.processing_poll_due() == 0  # not due yet

    assert poll_now(pub) == 1  # still in moderation
    pub.refresh_from_db()
    assert pub.status == "processing" and pub.platform_state["polls"] == 1

    fake.clock.advance(600)
    assert poll_now(pub) == 1
    pub.refresh_from_db()
    assert pub.status == "published" and pub.external_id == post["id"]
    assert pub.visibility == "PUBLIC_TO_EVERYONE"
    assert (
        pub.url
        == f"https://www.tiktok.com/@{fake.account.username}/{pub.platform_state['kind']}/{post['id']}"
    )
    pub.content.refresh_from_db()
    assert pub.content.status == "published"
    assert len(fake.posts) == 1 and len(fake.calls("content_init")) == 1  # a photo post, sent once
    assert [
        e.data["status"]
        for e in Event.objects.filter(type="publication.updated", data__publicationId=str(pub.pk)).order_by(
            "created_at"
        )
    ] == ["processing", "published"]


def test_a_leased_processing_row_is_read_by_one_poller_only(owner, brand, tiktok):
    fake, profile = tiktok
    pub = run_due(scheduled(owner, brand, profile, "tiktok"))
    # another poller holds it: its lease has not run out
    Publication.objects.filter(pk=pub.pk).update(lease_until=timezone.now() + datetime.timedelta(minutes=5))
    reads = len(fake.calls("status_fetch"))
    assert poll_now(pub) == 0
    assert len(fake.calls("status_fetch")) == reads
    # its poller died: once the lease is over the row is read again
    assert services.processing_poll_due(now=timezone.now() + datetime.timedelta(minutes=6)) == 1
    assert len(fake.calls("status_fetch")) == reads + 1


def test_a_rate_limited_status_read_waits_as_told_and_a_failed_post_fails(owner, brand, tiktok):
    fake, profile = tiktok
    pub = run_due(scheduled(owner, brand, profile, "tiktok"))
    fake.fail_next("rate_limit", when="status_fetch", retry_after=45)
    before = timezone.now()
    poll_now(pub)
    pub.refresh_from_db()
    assert pub.status == "processing" and pub.error_code == "rate_limit_exceeded"
    assert pub.due_at >= before + datetime.timedelta(seconds=45)

    fake.publishes[pub.platform_state["publish_id"]]["failure"] = "video_pull_failed"
    poll_now(pub)
    pub.refresh_from_db()
    assert pub.status == "failed" and "video_pull_failed" in pub.last_error
    pub.content.refresh_from_db()
    assert pub.content.status == "failed"
    assert len(fake.posts) == 1


def test_after_the_processing_window_a_completed_post_is_published_without_its_id(
    owner, brand, tiktok, settings
):
    fake, profile = tiktok
    fake.moderation_seconds = 10**9  # moderation never ends
    pub = run_due(scheduled(owner, brand, profile, "tiktok"))
    settings.PUBLISH_PROCESSING_MAX_SECONDS = 0
    poll_now(pub)
    pub.refresh_from_db()
    assert pub.status == "published" and pub.external_id == pub.platform_state["publish_id"] and pub.url == ""


def test_the_tiktok_webhook_completes_a_processing_post_with_its_id(owner, brand, tiktok):
    _fake, profile = tiktok
    pub = run_due(scheduled(owner, brand, profile, "tiktok"))
    publish_id = pub.platform_state["publish_id"]
    assert pub.due_at > timezone.now()

    def event(name, **content):
        return {
            "event": name,
            "user_openid": profile.external_id,
            "content": json.dumps({"publish_id": publish_id, **content}),
        }

    _tiktok(event("post.publish.complete"))  # no id yet: the poller reads it at once
    pub.refresh_from_db()
    assert pub.status == "processing" and pub.due_at <= timezone.now()
    _tiktok(event("post.publish.publicly_available", post_id="7311111111111111111"))
    pub.refresh_from_db()
    assert pub.status == "published" and pub.external_id == "7311111111111111111"
    assert pub.url == f"https://www.tiktok.com/@{profile.username}/photo/7311111111111111111"
    assert pub.visibility == "PUBLIC_TO_EVERYONE"  # the level the creator chose (issue 22)
    pub.content.refresh_from_db()
    assert pub.content.status == "published"
    _tiktok(event("post.publish.publicly_available", post_id="7311111111111111111"))  # replayed: no change
    assert (
        Event.objects.filter(
            type="publication.updated", data__publicationId=str(pub.pk), data__status="published"
        ).count()
        == 1
    )
    assert services.processing_poll_due(now=timezone.now() + datetime.timedelta(days=1)) == 0


# ---- LinkedIn: an unknown outcome is confirmed by a person ------------------------------------


@pytest.fixture
def linkedin(settings, owner, brand, make_fake):
    fake = make_fake("linkedin")
    profile = real_profile(settings, owner, brand, fake, scopes="openid profile email w_member_social")
    return fake, profile


def test_a_lost_linkedin_answer_without_the_read_permission_is_unknown_not_failed_nor_reposted(
    owner, brand, linkedin
):
    fake, profile = linkedin
    pub = scheduled(owner, brand, profile, "linkedin")
    fake.drop_after_create()
    pub = run_due(pub)

    assert len(fake.posts) == 1
    assert pub.status == "unknown" and pub.outcome_unknown and "confirm it in the admin" in pub.last_error
    assert not fake.calls("find_posts")  # no finder call the grant would be refused
    assert services.dispatch_due(now=timezone.now() + datetime.timedelta(days=1)) == 0
    assert services.sweep(now=timezone.now() + datetime.timedelta(days=1)) == 0
    pub.content.refresh_from_db()
    assert pub.content.status == "publishing"
    assert (
        Event.objects.get(type="publication.updated", data__publicationId=str(pub.pk)).data["status"]
        == "unknown"
    )

    # a person looks at the LinkedIn profile and confirms it went out, with the post's link
    urn = fake.posts[0]["id"]
    services.publication_resolve(
        publication=pub, posted=True, url=f"https://www.linkedin.com/feed/update/{urn}/"
    )
    pub.refresh_from_db()
    assert (
        pub.status == "published" and pub.external_id == urn and not pub.outcome_unknown
    )  # read from the link
    assert pub.url == f"https://www.linkedin.com/feed/update/{urn}/"
    updated = Event.objects.filter(type="publication.updated", data__publicationId=str(pub.pk)).order_by(
        "-created_at"
    )
    assert updated[0].data["status"] == "published" and updated[0].data["url"] == pub.url
    pub.content.refresh_from_db()
    assert pub.content.status == "published"
    with pytest.raises(InvalidTransition):
        services.publication_resolve(publication=pub, posted=False)
    assert len(fake.posts) == 1


def test_a_found_post_needs_the_platforms_link_and_a_wrong_one_changes_nothing(owner, brand, linkedin):
    _fake, profile = linkedin
    pub = scheduled(owner, brand, profile, "linkedin")
    Publication.objects.filter(pk=pub.pk).update(
        status="unknown", outcome_unknown=True, last_error="No answer."
    )
    for url, reason in (
        ("", "the post's link is required."),
        ("http://www.linkedin.com/feed/update/urn:li:share:1/", "it must start with https://."),
        ("https://x.com/acme/status/1", "the host must be linkedin.com (got x.com)."),
    ):
        with pytest.raises(ValidationFailed) as refused:
            services.publication_resolve(publication=pub, posted=True, url=url)
        assert refused.value.details == {"url": [reason]}
        pub.refresh_from_db()
        assert (
            pub.status == "unknown"
            and pub.outcome_unknown
            and pub.url == ""
            and pub.last_error == "No answer."
        )
    # a LinkedIn link without the post's URN: the link is stored, no id is made up
    activity = "https://www.linkedin.com/posts/acme_autumn-activity-7012345678901234567-abcd"
    services.publication_resolve(publication=pub, posted=True, url=activity)
    pub.refresh_from_db()
    assert (pub.status, pub.url, pub.external_id, pub.last_error) == ("published", activity, "", "")


def test_a_person_who_finds_nothing_sends_it_again(owner, brand, linkedin):
    fake, profile = linkedin
    pub = scheduled(owner, brand, profile, "linkedin")
    fake.fail_next("drop", when="/rest/posts")  # the call never reached LinkedIn
    Publication.objects.filter(pk=pub.pk).update(status="unknown", outcome_unknown=True)
    services.publication_resolve(publication=pub, posted=False)
    pub.refresh_from_db()
    assert pub.status == "scheduled" and not pub.outcome_unknown and pub.attempts == 0
    fake._faults.clear()
    pub = run_due(pub)
    assert pub.status == "published" and pub.external_id == fake.posts[0]["id"]
    assert len(fake.posts) == 1


def test_a_linkedin_answer_without_x_restli_id_is_unknown(owner, brand, linkedin):
    fake, profile = linkedin
    fake.omit_restli_id = True
    pub = run_due(scheduled(owner, brand, profile, "linkedin"))
    assert pub.status == "unknown" and "x-restli-id" in pub.last_error and len(fake.posts) == 1


def test_with_the_partner_permission_a_lost_answer_is_reconciled_from_the_posts(
    owner, brand, settings, make_fake
):
    fake = make_fake("linkedin")
    profile = real_profile(
        settings, owner, brand, fake, scopes="openid profile email w_member_social r_member_social"
    )
    pub = scheduled(owner, brand, profile, "linkedin")
    fake.drop_after_create()
    pub = run_due(pub)
    assert pub.status == "scheduled" and pub.outcome_unknown  # retried: reconciling first
    pub = run_due(pub)
    assert pub.status == "published" and pub.external_id == fake.posts[0]["id"]
    assert len(fake.posts) == 1 and len(fake.calls("find_posts")) == 1


def test_staff_confirm_an_unknown_publication_from_the_admin(owner, brand, linkedin):
    from django.contrib.auth import get_user_model
    from django.test import Client

    fake, profile = linkedin
    fake.drop_after_create()
    pub = run_due(scheduled(owner, brand, profile, "linkedin"))
    assert pub.status == "unknown"
    staff = get_user_model().objects.create_superuser("ops", "ops@postforge.test", "x")
    client = Client()
    client.force_login(staff)
    listing = client.get("/admin/publishing/publication/?status=unknown")
    assert listing.status_code == 200 and str(pub.content.prompt[:20]) in listing.content.decode()
    chosen = {"action": "confirm_posted", "_selected_action": [str(pub.pk)]}
    asked = client.post("/admin/publishing/publication/", chosen)
    assert (
        asked.status_code == 200 and f'name="pub-{pub.pk}-url"' in asked.content.decode()
    )  # the link is asked for
    pub.refresh_from_db()
    assert pub.status == "unknown"
    wrong = client.post(
        "/admin/publishing/publication/",
        {**chosen, "pf_confirm": "1", f"pub-{pub.pk}-url": "https://example.com/post/1"},
    )
    assert (
        wrong.status_code == 200
        and "the host must be linkedin.com (got example.com)." in wrong.content.decode()
    )
    pub.refresh_from_db()
    assert pub.status == "unknown"
    urn = fake.posts[0]["id"]
    answer = client.post(
        "/admin/publishing/publication/",
        {**chosen, "pf_confirm": "1", f"pub-{pub.pk}-url": f"https://www.linkedin.com/feed/update/{urn}/"},
        follow=True,
    )
    assert answer.status_code == 200 and "1 publication(s) marked published" in answer.content.decode()
    pub.refresh_from_db()
    assert pub.status == "published" and not pub.outcome_unknown and pub.external_id == urn
    assert len(fake.posts) == 1


def test_generated_media_is_marked_generated_for_the_platform_clients(owner, brand, linkedin):
    _fake, profile = linkedin
    pub = scheduled(owner, brand, profile, "linkedin")
    request = services.post_request_for(pub)
    assert request.media and all(m.generated for m in request.media)  # made by the engine, not uploaded

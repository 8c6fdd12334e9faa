"""What verified inbound webhooks change: Clerk and WorkOS sync organizations, users and
memberships; billing (Stripe's format) sets the plan and so the organization's limits;
TikTok's post.publish.* complete or fail publications. Signatures come from the providers'
own libraries where PyPI has them (`svix` for Clerk, `stripe` for billing); each effect runs
in the task after the request's commit, once however often the event is sent."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import stripe
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from svix.webhooks import Webhook as SvixWebhook
from workos import WorkOSClient

from apps.accounts.models import Membership, Organization
from apps.accounts.services import organization_get_or_create
from apps.events.models import Event
from apps.publishing.models import Publication
from apps.webhooks.models import InboundWebhook
from tests.content.factories import make_content
from tests.factories import ProfileFactory

CLERK = "whsec_" + base64.b64encode(b"k" * 32).decode()
STRIPE = "whsec_effects_stripe_secret"
WORKOS = "workos-effects-secret"
TIKTOK = "tiktok-effects-secret"
META = "meta-effects-app-secret"

User = get_user_model()
WORKOS_SDK = WorkOSClient(api_key="sk_test_unused", client_id="client_unused")  # verification only, no call


@pytest.fixture(autouse=True)
def secrets(settings):
    settings.CLERK_WEBHOOK_SECRET = CLERK
    settings.STRIPE_WEBHOOK_SECRET = STRIPE
    settings.WORKOS_WEBHOOK_SECRET = WORKOS
    settings.TIKTOK_CLIENT_SECRET = TIKTOK
    settings.META_APP_SECRET = META


def send(provider: str, payload: dict, client: Client | None = None):
    body = json.dumps(payload).encode()
    ts = int(time.time())
    if provider == "clerk":
        msg_id = "msg_" + uuid.uuid4().hex
        sig = SvixWebhook(CLERK).sign(
            msg_id, datetime.datetime.fromtimestamp(ts, tz=datetime.UTC), body.decode()
        )
        headers = {"HTTP_SVIX_ID": msg_id, "HTTP_SVIX_TIMESTAMP": str(ts), "HTTP_SVIX_SIGNATURE": sig}
    elif provider == "billing":
        header = stripe.WebhookSignature.generate_signature_header(body.decode(), STRIPE)
        assert (
            stripe.Webhook.construct_event(body.decode(), header, STRIPE).type == payload["type"]
        )  # Stripe's own check
        headers = {"HTTP_STRIPE_SIGNATURE": header}
    elif provider == "workos":
        ms = ts * 1000
        mac = hmac.new(WORKOS.encode(), f"{ms}.".encode() + body, hashlib.sha256).hexdigest()
        header = f"t={ms}, v1={mac}"
        # WorkOS's own SDK (it verifies, it does not sign) accepts the header and parses the
        # event with its schema: both the scheme and the payload shapes are WorkOS's
        WORKOS_SDK.webhooks.verify_event(event_body=body, event_signature=header, secret=WORKOS)
        headers = {"HTTP_WORKOS_SIGNATURE": header}
    elif provider == "tiktok":
        mac = hmac.new(TIKTOK.encode(), f"{ts}.".encode() + body, hashlib.sha256).hexdigest()
        headers = {"HTTP_TIKTOK_SIGNATURE": f"t={ts},s={mac}"}
    elif provider == "meta":  # X-Hub-Signature-256: hex HMAC-SHA256 of the raw body with the app secret
        headers = {
            "HTTP_X_HUB_SIGNATURE_256": "sha256=" + hmac.new(META.encode(), body, hashlib.sha256).hexdigest()
        }
    else:
        raise AssertionError(provider)
    return (client or Client()).post(
        f"/webhook/{provider}", data=body, content_type="application/json", **headers
    )


def deliver(capture, provider: str, payload: dict) -> InboundWebhook:
    """Send it and run what its commit queued (the `process_inbound` task, eager in tests)."""
    with capture(execute=True):
        response = send(provider, payload)
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "accepted"
    return InboundWebhook.objects.filter(provider=provider).order_by("-received_at").first()


# --- Clerk ---------------------------------------------------------------------------------------


def clerk_membership(kind: str, role: str, org_id="org_2clerk", user_id="user_2alice") -> dict:
    return {
        "type": f"organizationMembership.{kind}",
        "object": "event",
        "data": {
            "id": "orgmem_1",
            "role": role,
            "organization": {"id": org_id, "name": "Clerk Co", "slug": "clerk-co"},
            "public_user_data": {"user_id": user_id, "identifier": "alice@example.com"},
        },
    }


@pytest.mark.django_db
def test_clerk_events_create_update_and_delete_organizations_users_and_memberships(
    django_capture_on_commit_callbacks,
):
    capture = django_capture_on_commit_callbacks
    record = deliver(
        capture, "clerk", {"type": "organization.created", "data": {"id": "org_2clerk", "name": "Clerk Co"}}
    )
    assert record.processed_at is not None and record.outcome == "applied"
    org = Organization.objects.get(external_id="org_2clerk")
    from apps.brands.models import Brand

    assert (
        org.name == "Clerk Co" and Brand.objects.filter(organization=org).exists()
    )  # with its default brand

    deliver(
        capture,
        "clerk",
        {
            "type": "user.created",
            "data": {
                "id": "user_2alice",
                "first_name": "Alice",
                "last_name": "A",
                "primary_email_address_id": "idn_2",
                "email_addresses": [
                    {"id": "idn_1", "email_address": "old@example.com"},
                    {"id": "idn_2", "email_address": "alice@example.com"},
                ],
            },
        },
    )
    alice = User.objects.get(username="idp:user_2alice")
    assert (alice.email, alice.first_name) == ("alice@example.com", "Alice")

    deliver(capture, "clerk", clerk_membership("created", "org:admin"))
    assert Membership.objects.get(organization=org, user=alice).role == "admin"
    deliver(capture, "clerk", clerk_membership("updated", "org:member"))  # mapped as the JWT role claim is
    assert Membership.objects.get(organization=org, user=alice).role == "viewer"
    deliver(capture, "clerk", clerk_membership("updated", "org:editor"))
    assert Membership.objects.get(organization=org, user=alice).role == "editor"

    deliver(
        capture,
        "clerk",
        {"type": "organization.updated", "data": {"id": "org_2clerk", "name": "Clerk Company"}},
    )
    org.refresh_from_db()
    assert org.name == "Clerk Company"

    deliver(capture, "clerk", clerk_membership("deleted", "org:editor"))
    assert not Membership.objects.filter(organization=org, user=alice).exists()
    deliver(capture, "clerk", {"type": "user.deleted", "data": {"id": "user_2alice", "deleted": True}})
    assert not User.objects.filter(username="idp:user_2alice").exists()
    deliver(capture, "clerk", {"type": "organization.deleted", "data": {"id": "org_2clerk", "deleted": True}})
    assert not Organization.objects.filter(external_id="org_2clerk").exists()
    assert InboundWebhook.objects.filter(provider="clerk", processed_at__isnull=True).count() == 0


@pytest.mark.django_db
def test_a_membership_before_its_organization_creates_both_and_unknown_types_are_ignored(
    django_capture_on_commit_callbacks,
):
    capture = django_capture_on_commit_callbacks
    deliver(
        capture, "clerk", clerk_membership("created", "org:admin", org_id="org_early", user_id="user_early")
    )
    membership = Membership.objects.select_related("organization", "user").get(
        organization__external_id="org_early"
    )
    assert (membership.organization.name, membership.user.username, membership.role) == (
        "Clerk Co",
        "idp:user_early",
        "admin",
    )
    assert membership.user.email == "alice@example.com"
    record = deliver(capture, "clerk", {"type": "session.created", "data": {"id": "sess_1"}})
    assert record.outcome == "ignored"
    broken = deliver(
        capture, "clerk", {"type": "organizationMembership.created", "data": {"role": "org:admin"}}
    )
    assert broken.processed_at is not None and broken.outcome.startswith("malformed payload")


# --- WorkOS --------------------------------------------------------------------------------------

WHEN = "2026-11-25T12:00:00.000Z"


def workos_user(user_id="user_01B", email="bob@example.com", **extra) -> dict:
    return {
        "object": "user",
        "id": user_id,
        "email": email,
        "email_verified": True,
        "first_name": "Bob",
        "last_name": "B",
        "profile_picture_url": None,
        "last_sign_in_at": None,
        "external_id": None,
        "metadata": {},
        "created_at": WHEN,
        "updated_at": WHEN,
        **extra,
    }


def workos_org(org_id="org_01W", name="WorkOS Co") -> dict:
    return {
        "object": "organization",
        "id": org_id,
        "name": name,
        "domains": [],
        "metadata": {},
        "external_id": None,
        "allow_profiles_outside_organization": False,
        "created_at": WHEN,
        "updated_at": WHEN,
    }


def workos_membership(role="admin", status="active") -> dict:
    return {
        "object": "organization_membership",
        "id": "om_01",
        "user_id": "user_01B",
        "organization_id": "org_01W",
        "status": status,
        "role": {"slug": role},
        "custom_attributes": {},
        "directory_managed": False,
        "created_at": WHEN,
        "updated_at": WHEN,
    }


@pytest.mark.django_db
def test_workos_events_sync_the_same_way(django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks

    def event(kind, data):
        return {
            "object": "event",
            "id": f"event_{uuid.uuid4().hex}",
            "event": kind,
            "data": data,
            "created_at": WHEN,
        }

    deliver(capture, "workos", event("organization.created", workos_org()))
    deliver(capture, "workos", event("user.created", workos_user()))
    deliver(capture, "workos", event("organization_membership.created", workos_membership()))
    org = Organization.objects.get(external_id="org_01W")
    bob = User.objects.get(username="idp:user_01B")
    assert (bob.email, bob.first_name) == ("bob@example.com", "Bob")
    assert Membership.objects.get(organization=org, user=bob).role == "admin"
    deliver(capture, "workos", event("organization_membership.updated", workos_membership(role="member")))
    assert Membership.objects.get(organization=org, user=bob).role == "viewer"
    deliver(capture, "workos", event("organization_membership.updated", workos_membership(status="inactive")))
    assert not Membership.objects.filter(organization=org, user=bob).exists()
    deliver(capture, "workos", event("organization_membership.created", workos_membership(role="editor")))
    assert Membership.objects.get(organization=org, user=bob).role == "editor"
    deliver(capture, "workos", event("organization_membership.deleted", workos_membership(role="editor")))
    assert not Membership.objects.filter(organization=org, user=bob).exists()
    deliver(capture, "workos", event("organization.updated", workos_org(name="WorkOS Company")))
    org.refresh_from_db()
    assert org.name == "WorkOS Company"
    deliver(capture, "workos", event("user.updated", workos_user(email="robert@example.com")))
    bob.refresh_from_db()
    assert bob.email == "robert@example.com"
    deliver(capture, "workos", event("user.deleted", workos_user(email="robert@example.com")))
    deliver(capture, "workos", event("organization.deleted", workos_org(name="WorkOS Company")))
    assert not User.objects.filter(username="idp:user_01B").exists()
    assert not Organization.objects.filter(external_id="org_01W").exists()


# --- billing ------------------------------------------------------------------------------------


def subscription_event(
    kind: str, org, *, status="active", lookup_key="pro", created=None, customer="cus_123"
) -> dict:
    return {
        "id": f"evt_{uuid.uuid4().hex[:24]}",
        "object": "event",
        "type": f"customer.subscription.{kind}",
        "created": created or int(time.time()),
        "data": {
            "object": {
                "id": "sub_123",
                "object": "subscription",
                "customer": customer,
                "status": status,
                "metadata": {"organizationId": f"org_{org.pk.hex}"} if org is not None else {},
                "items": {
                    "object": "list",
                    "data": [
                        {"id": "si_1", "price": {"id": "price_abc", "lookup_key": lookup_key, "metadata": {}}}
                    ],
                },
            }
        },
    }


@pytest.mark.django_db
def test_subscriptions_set_the_plan_in_order_and_cancel_falls_back(
    owner, django_capture_on_commit_callbacks, settings
):
    capture = django_capture_on_commit_callbacks
    org = owner.org
    now = int(time.time())
    record = deliver(capture, "billing", subscription_event("created", org, created=now - 100))
    assert record.outcome == "plan pro"
    org.refresh_from_db()
    assert (org.plan, org.billing_status, org.billing_customer_id, org.billing_subscription_id) == (
        "pro",
        "active",
        "cus_123",
        "sub_123",
    )

    # a later event names the customer only (no metadata): found through the customer id
    settings.STRIPE_PRICE_PLANS = {"price_abc": "business"}
    deliver(capture, "billing", subscription_event("updated", None, created=now - 50, lookup_key=None))
    org.refresh_from_db()
    assert org.plan == "business"
    # an older event arriving late changes nothing
    late = deliver(capture, "billing", subscription_event("updated", org, created=now - 80, lookup_key="pro"))
    assert late.outcome == "older than the applied change"
    org.refresh_from_db()
    assert org.plan == "business"
    deliver(capture, "billing", subscription_event("deleted", org, status="canceled", created=now - 10))
    org.refresh_from_db()
    assert (org.plan, org.billing_status) == ("free", "canceled")


@pytest.mark.django_db
def test_plan_limits_refuse_with_a_clear_403_or_429_naming_the_limit(
    owner, settings, django_capture_on_commit_callbacks
):
    from apps.content.models import Content, GenerationMode

    settings.PLANS = {"tiny": {"generationsPerMonth": 2, "profiles": 1, "requestsPerMinute": 6}}
    deliver(
        django_capture_on_commit_callbacks,
        "billing",
        subscription_event("created", owner.org, lookup_key="tiny"),
    )
    profile = ProfileFactory(organization=owner.org, platform="instagram")
    for _ in range(2):
        Content.objects.create(
            organization=owner.org,
            brand=profile.brand,
            platforms=["instagram"],
            prompt="x",
            generation_mode=GenerationMode.PROMPT,
        )
    Content.objects.filter(organization=owner.org).update(created_at=timezone.now())
    body = {"prompt": "One more", "platforms": ["instagram"]}
    refused = owner.client().post("/v1/content/generate", body, format="json")
    assert refused.status_code == 403, refused.content
    error = refused.json()["error"]
    assert error["code"] == "AUTHORIZATION_ERROR" and "tiny plan allows 2" in error["message"]
    assert error["details"] == {"limit": "generationsPerMonth", "plan": "tiny", "allowed": 2, "used": 2}
    b = owner.client().post(
        "/api/content",
        {
            "socialProfileId": str(profile.pk),
            "platform": "instagram",
            "prompt": "One more",
            "generationMode": "prompt_based",
        },
        format="json",
    )
    assert b.status_code == 403 and b.json()["details"]["limit"] == "generationsPerMonth"
    assert Content.objects.filter(organization=owner.org).count() == 2

    # connected profiles: the plan's one is taken
    from apps.accounts.plans import PlanLimitExceeded
    from apps.publishing.oauth import profile_connect
    from apps.publishing.oauth_backends import TokenSet
    from apps.publishing.platforms.base import AccountInfo

    owner.org.refresh_from_db()  # the billing task changed it
    with pytest.raises(PlanLimitExceeded) as exc:
        profile_connect(
            organization=owner.org,
            platform="x",
            account=AccountInfo(
                external_id="x-1", username="x1", display_name="", picture_url="", followers=0
            ),
            tokens=TokenSet(access_token="t"),
        )
    assert exc.value.details["limit"] == "profiles"

    # requests per minute of the plan, in place of the global figure
    client = owner.client()
    statuses = [client.get("/v1/webhooks").status_code for _ in range(6)]
    assert statuses[-1] == 429 and statuses[0] == 200
    limited = client.get("/v1/webhooks")
    assert limited.status_code == 429 and "tiny plan" in limited.json()["error"]["message"]


# --- TikTok -------------------------------------------------------------------------------------


def tiktok_event(event: str, content: dict, openid="open-77") -> dict:
    return {
        "client_key": "k",
        "event": event,
        "create_time": int(time.time()),
        "user_openid": openid,
        "content": json.dumps(content),
    }


@pytest.fixture
def pending_tiktok(owner):
    """A TikTok post accepted but still in moderation: the publisher kept its publish_id."""
    profile = ProfileFactory(
        organization=owner.org, platform="tiktok", external_id="open-77", username="roastery"
    )
    content = make_content(
        owner.org, brand=profile.brand, status="published", image=False, platforms=("tiktok",)
    )
    now = timezone.now()
    return Publication.objects.create(
        organization=owner.org,
        content=content,
        profile=profile,
        platform="tiktok",
        scheduled_for=now,
        due_at=now,
        status="published",
        published_at=now,
        external_id="v_pub_file~v2-1.123",
    )


@pytest.mark.django_db
def test_tiktok_publicly_available_records_the_video_id_and_url(
    pending_tiktok, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    record = deliver(
        capture, "tiktok", tiktok_event("post.publish.complete", {"publish_id": "v_pub_file~v2-1.123"})
    )
    assert record.outcome == f"publication {pending_tiktok.pk}"
    deliver(
        capture,
        "tiktok",
        tiktok_event(
            "post.publish.publicly_available",
            {
                "publish_id": "v_pub_file~v2-1.123",
                "post_id": "7311111111111111111",
                "publish_type": "DIRECT_PUBLISH",
            },
        ),
    )
    pending_tiktok.refresh_from_db()
    assert pending_tiktok.external_id == "7311111111111111111"
    assert pending_tiktok.url == "https://www.tiktok.com/@roastery/video/7311111111111111111"
    assert Event.objects.filter(type="publication.updated", data__url=pending_tiktok.url).count() == 1
    other = deliver(capture, "tiktok", tiktok_event("post.publish.complete", {"publish_id": "v_pub_unknown"}))
    assert other.outcome == "no matching publication"


@pytest.mark.django_db(transaction=True)
def test_tiktok_failed_ten_times_at_once_fails_the_publication_once(pending_tiktok):
    payload = tiktok_event(
        "post.publish.failed",
        {
            "publish_id": "v_pub_file~v2-1.123",
            "reason": "spam_risk_too_many_posts",
            "publish_type": "DIRECT_PUBLISH",
        },
    )
    body = json.dumps(payload).encode()
    ts = int(time.time())
    header = f"t={ts},s={hmac.new(TIKTOK.encode(), f'{ts}.'.encode() + body, hashlib.sha256).hexdigest()}"

    def post(_):
        from django.db import connection

        try:  # the task runs eagerly after each request's commit
            return (
                Client()
                .post(
                    "/webhook/tiktok",
                    data=body,
                    content_type="application/json",
                    HTTP_TIKTOK_SIGNATURE=header,
                )
                .json()["status"]
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(10) as pool:
        statuses = list(pool.map(post, range(10)))
    assert sorted(statuses) == ["accepted"] + ["duplicate"] * 9
    pending_tiktok.refresh_from_db()
    assert pending_tiktok.status == "failed" and pending_tiktok.error_code == "spam_risk_too_many_posts"
    assert "spam_risk_too_many_posts" in pending_tiktok.last_error
    failed = Event.objects.filter(type="publication.failed")
    assert failed.count() == 1 and failed.get().data["error"] == pending_tiktok.last_error


@pytest.mark.django_db
def test_tiktok_failed_after_the_post_was_marked_published_fails_the_content(
    owner, pending_tiktok, django_capture_on_commit_callbacks
):
    content = pending_tiktok.content
    record = deliver(
        django_capture_on_commit_callbacks,
        "tiktok",
        tiktok_event(
            "post.publish.failed",
            {
                "publish_id": "v_pub_file~v2-1.123",
                "reason": "picture_size_check_failed",
                "publish_type": "DIRECT_PUBLISH",
            },
        ),
    )
    assert record.outcome == f"publication {pending_tiktok.pk}"
    pending_tiktok.refresh_from_db()
    content.refresh_from_db()
    assert pending_tiktok.status == "failed" and pending_tiktok.error_code == "picture_size_check_failed"
    assert content.status == "failed" and "picture_size_check_failed" in content.status_reason
    [event] = Event.objects.filter(type="content.failed")
    assert event.data["previousStatus"] == "published" and "picture_size_check_failed" in event.data["reason"]
    from apps.core import ids

    assert owner.client().get(f"/v1/content/{ids.render(content.pk, 'content')}").json()["status"] == "failed"


@pytest.mark.django_db
def test_tiktok_failed_after_published_leaves_content_published_elsewhere_published(
    pending_tiktok, django_capture_on_commit_callbacks
):
    content = pending_tiktok.content
    x = ProfileFactory(organization=content.organization, brand=content.brand, platform="x")
    now = timezone.now()
    Publication.objects.create(
        organization=content.organization,
        content=content,
        profile=x,
        platform="x",
        scheduled_for=now,
        due_at=now,
        status="published",
        published_at=now,
        external_id="1",
    )
    deliver(
        django_capture_on_commit_callbacks,
        "tiktok",
        tiktok_event(
            "post.publish.failed",
            {"publish_id": "v_pub_file~v2-1.123", "reason": "spam_risk_user_banned_from_posting"},
        ),
    )
    pending_tiktok.refresh_from_db()
    content.refresh_from_db()
    assert pending_tiktok.status == "failed" and content.status == "published"
    assert not Event.objects.filter(type="content.failed").exists()
    assert (
        Event.objects.filter(type="publication.failed", data__publicationId=str(pending_tiktok.pk)).count()
        == 1
    )


# --- Meta -----------------------------------------------------------------------------------------


def meta_comment(platform: str, post_id: str, comment_id: str = "17865799348089039") -> dict:
    """A notification as Meta sends it (its webhook reference and examples) for a comment,
    reaction or reply on a post of an app user."""
    if platform == "instagram":
        return {
            "object": "instagram",
            "entry": [
                {
                    "id": "17841405822304914",
                    "time": int(time.time()),
                    "changes": [
                        {
                            "field": "comments",
                            "value": {
                                "id": comment_id,
                                "from": {"id": "232323", "username": "fan"},
                                "text": "Love it",
                                "media": {"id": post_id, "media_product_type": "FEED"},
                            },
                        }
                    ],
                }
            ],
        }
    if platform == "facebook":
        return {
            "object": "page",
            "entry": [
                {
                    "id": "1234567890",
                    "time": int(time.time()),
                    "changes": [
                        {
                            "field": "feed",
                            "value": {
                                "item": "comment",
                                "verb": "add",
                                "post_id": post_id,
                                "comment_id": f"{post_id}_{comment_id}",
                                "message": "Nice",
                                "from": {"id": "55", "name": "A fan"},
                                "created_time": int(time.time()),
                            },
                        }
                    ],
                }
            ],
        }
    return {
        "app_id": "123456",
        "topic": "moderate",
        "target_id": "78901",
        "time": int(time.time()),
        "subscription_id": "234567",
        "has_uid_field": False,
        "values": {
            "field": "replies",
            "value": {
                "id": comment_id,
                "username": "fan",
                "text": "Reply",
                "media_type": "TEXT_POST",
                "replied_to": {"id": post_id},
                "root_post": {"id": post_id, "owner_id": "78901", "username": "us"},
                "shortcode": "Pp",
                "timestamp": "2026-11-25T10:33:16+0000",
            },
        },
    }


@pytest.mark.django_db
@pytest.mark.parametrize("platform", ["instagram", "facebook", "threads"])
def test_meta_comments_and_replies_pull_the_posts_metrics_once_per_window(
    owner, platform, django_capture_on_commit_callbacks
):
    from apps.analytics.models import PostSnapshot
    from tests.analytics.test_collection import sandbox_post

    capture = django_capture_on_commit_callbacks
    profile = ProfileFactory(organization=owner.org, platform=platform, sandbox=True, follower_count=800)
    pub = sandbox_post(owner.org, profile, datetime.timedelta(hours=3))
    record = deliver(capture, "meta", meta_comment(platform, pub.external_id))
    assert record.outcome == "metrics refresh of 1 publication(s)"
    [snap] = PostSnapshot.objects.filter(publication=pub)
    assert snap.latest and snap.views > 0  # pulled now, not at the next hourly sweep
    again = deliver(capture, "meta", meta_comment(platform, pub.external_id, comment_id="17865799348089040"))
    assert again.outcome == "metrics refresh of 1 publication(s)"
    assert PostSnapshot.objects.filter(publication=pub).count() == 1  # within ANALYTICS_PUSH_MIN_SECONDS
    other = deliver(capture, "meta", meta_comment(platform, "not-ours"))
    assert other.outcome == "no matching publication"


@pytest.mark.django_db
def test_meta_notifications_that_concern_no_post_are_recorded_and_ignored(django_capture_on_commit_callbacks):
    mention = {
        "object": "instagram",
        "entry": [
            {
                "id": "1784",
                "time": int(time.time()),
                "changes": [{"field": "mentions", "value": {"media_id": "999", "comment_id": "111"}}],
            }
        ],
    }
    assert deliver(django_capture_on_commit_callbacks, "meta", mention).outcome == "ignored"
    removed = {
        "object": "page",
        "entry": [
            {
                "id": "1",
                "time": 1,
                "changes": [
                    {"field": "feed", "value": {"item": "comment", "verb": "remove", "post_id": "1_2"}}
                ],
            }
        ],
    }
    assert deliver(django_capture_on_commit_callbacks, "meta", removed).outcome == "ignored"


@pytest.mark.django_db
def test_a_record_whose_task_was_lost_is_applied_by_the_sweep_once(owner):
    from apps.webhooks.inbound_effects import inbound_process, inbound_sweep

    response = send("clerk", {"type": "organization.created", "data": {"id": "org_swept", "name": "Swept"}})
    assert response.status_code == 200  # its on-commit task never ran (the test's transaction never commits)
    assert not Organization.objects.filter(external_id="org_swept").exists()
    InboundWebhook.objects.update(received_at=timezone.now() - datetime.timedelta(minutes=5))
    assert inbound_sweep() == 1
    assert Organization.objects.filter(external_id="org_swept").count() == 1
    record = InboundWebhook.objects.get(provider="clerk")
    assert inbound_process(provider="clerk", event_id=record.event_id) is None  # done once
    assert inbound_sweep() == 0


@pytest.mark.django_db
def test_tiktok_authorization_removed_emits_profile_disconnected(owner, django_capture_on_commit_callbacks):
    profile = ProfileFactory(
        organization=owner.org, platform="tiktok", external_id="open-9", access_token_enc="tok"
    )
    record = deliver(
        django_capture_on_commit_callbacks,
        "tiktok",
        tiktok_event("authorization.removed", {}, openid="open-9"),
    )
    assert record.outcome == "1 profile(s) disconnected"
    profile.refresh_from_db()
    assert not profile.connected and profile.token_status == "revoked"
    assert Event.objects.filter(type="profile.disconnected", data__profileId=str(profile.pk)).count() == 1


def test_organization_get_or_create_is_still_the_jwt_path(db):
    org = organization_get_or_create(name="Plain", external_id="org_plain")
    assert org.plan == "" and org.billing_customer_id is None


@pytest.mark.django_db
def test_applied_inbound_records_are_pruned_after_the_log_days_but_meta_deletions_stay():
    from apps.webhooks.services import inbound_prune

    old = timezone.now() - datetime.timedelta(days=31)
    for provider, event_id, processed in (
        ("clerk", "msg_old", True),
        ("clerk", "msg_pending", False),
        ("meta", "deletion:abc", True),
        ("tiktok", "tt_new", True),
    ):
        record = InboundWebhook.objects.create(
            provider=provider,
            event_id=event_id,
            payload={},
            processed_at=timezone.now() if processed else None,
        )
        if event_id != "tt_new":
            InboundWebhook.objects.filter(pk=record.pk).update(received_at=old)
    assert inbound_prune() == 1
    assert set(InboundWebhook.objects.values_list("event_id", flat=True)) == {
        "msg_pending",
        "deletion:abc",
        "tt_new",
    }

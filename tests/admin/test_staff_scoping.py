"""Issue 28, staff scoping: one rule for every admin page and the staff websocket. Superusers
see every organization; other staff see only the organizations they belong to; another
organization's object is a 404 (or, for a page of no organization, a 403).

The matrix: every ModelAdmin of the site (its changelist, change, history and delete pages) and
every custom admin view (the content console's actions, the review queue, the calendar and its
reschedule, the analytics and failures pages) and the socket, for a staff member of another
organization who holds *every* permission (so membership alone refuses), against the same
member's own organization (allowed, with each route's own success status).
"""

from __future__ import annotations

import asyncio
import datetime
import importlib
import json
import uuid

import pytest
from django.apps import apps as django_apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.accounts.models import ApiKey, Membership, Organization
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content.models import ReviewItem
from apps.content.services import approval_link_create
from apps.events.models import Event
from apps.media.models import MediaAsset
from apps.publishing.models import OAuthRedirectOrigin, Publication, SandboxPost
from apps.webhooks.models import InboundWebhook, WebhookDelivery, WebhookEndpoint
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db

FUTURE = datetime.datetime(2099, 1, 2, 9, 0, tzinfo=datetime.UTC)


def _objects(org: Organization, tag: str) -> dict[str, object]:
    """One row of every model the admin shows, in ``org``."""
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(organization=org, brand=brand, platform="x", username=f"{tag}-x")
    content = make_content(org, brand=brand, profile=profile, platforms=("x",), status="review")
    scheduled = make_content(org, brand=brand, profile=profile, platforms=("x",), status="scheduled")
    endpoint = WebhookEndpoint.objects.create(
        organization=org, url=f"https://{tag}.example.com/h", events=["*"], secret="whsec_" + "A" * 44
    )
    user = get_user_model().objects.create_user(f"{tag}-member", password="x")
    Membership.objects.create(organization=org, user=user, role="editor")
    return {
        "accounts.organization": org,
        "accounts.apikey": ApiKey.objects.get(pk=api_key_create(organization=org).api_key.pk),
        "auth.user": user,
        "brands.brand": brand,
        "profiles.socialprofile": profile,
        "media.mediaasset": MediaAsset.objects.filter(content=content).first(),
        "content.content": content,
        "content.reviewitem": ReviewItem.objects.get(pk=content.pk),
        "content.approvallink": approval_link_create(organization=org, contents=[content]),
        "publishing.publication": Publication.objects.create(
            organization=org, content=scheduled, profile=profile, scheduled_for=FUTURE, due_at=FUTURE
        ),
        "publishing.sandboxpost": SandboxPost.objects.create(
            organization=org, profile=profile, platform="x", reference=tag, external_id=f"sbx-{tag}"
        ),
        "publishing.oauthredirectorigin": OAuthRedirectOrigin.objects.create(
            organization=org, origin=f"https://{tag}.example.org"
        ),
        "webhooks.webhookendpoint": endpoint,
        "webhooks.webhookdelivery": WebhookDelivery.objects.create(
            organization=org,
            endpoint=endpoint,
            message_id=f"evt_{uuid.uuid4().hex}",
            event_type="webhook.test",
            payload={},
        ),
        "events.event": Event.objects.create(organization=org, type="webhook.test", data={}),
    }


#: admin pages of rows that belong to no organization: superusers only
SUPERUSER_ONLY = {
    "auth.group",
    "webhooks.inboundwebhook",
}


@pytest.fixture
def world():
    ours = organization_get_or_create(name="Ours")
    theirs = organization_get_or_create(name="Theirs")
    sam = get_user_model().objects.create_user("sam", password="pass-sam-1", is_staff=True)
    sam.user_permissions.set(Permission.objects.all())  # every permission: only membership refuses
    Membership.objects.create(organization=ours, user=sam, role="admin")
    client = Client()
    client.force_login(sam)
    return {
        "ours": _objects(ours, "ours"),
        "theirs": _objects(theirs, "theirs"),
        "client": client,
        "sam": sam,
        "inbound": InboundWebhook.objects.create(provider="stripe", event_id="evt_1", payload={}),
    }


def test_every_admin_page_is_staff_scoped():
    """One rule, in one place: every ModelAdmin of the site is a StaffScopedAdmin, and the
    matrix below covers every one of them."""
    import config.urls  # noqa: F401  (the site as served: social-auth's tables taken off)

    labels = {model._meta.label_lower for model in admin.site._registry}
    assert all(isinstance(a, StaffScopedAdmin) for a in admin.site._registry.values())
    covered = {label for label in labels if label not in SUPERUSER_ONLY}
    assert covered == set(ORG_PAGES), covered ^ set(ORG_PAGES)


ORG_PAGES = [
    "accounts.organization",
    "accounts.apikey",
    "auth.user",
    "brands.brand",
    "profiles.socialprofile",
    "media.mediaasset",
    "content.content",
    "content.reviewitem",
    "content.approvallink",
    "publishing.publication",
    "publishing.sandboxpost",
    "publishing.oauthredirectorigin",
    "webhooks.webhookendpoint",
    "webhooks.webhookdelivery",
    "events.event",
]


def _url(label: str, page: str, *args) -> str:
    app, model = label.split(".")
    return reverse(f"admin:{app}_{model}_{page}", args=args)


@pytest.mark.parametrize("label", ORG_PAGES)
def test_staff_of_another_organization_get_404_own_organization_allowed(world, label):
    client = world["client"]
    mine, other = world["ours"][label], world["theirs"][label]
    listing = client.get(_url(label, "changelist"))
    assert listing.status_code == 200
    shown = {str(o.pk) for o in listing.context["cl"].result_list}
    assert str(mine.pk) in shown and str(other.pk) not in shown, shown
    for page in ("change", "history", "delete"):
        assert client.get(_url(label, page, other.pk)).status_code == 404, page
    # the review queue's page opens the content page (a redirect), the others their own
    assert client.get(_url(label, "change", mine.pk)).status_code in (200, 302)
    assert client.get(_url(label, "history", mine.pk)).status_code == 200


@pytest.mark.parametrize("label", sorted(SUPERUSER_ONLY))
def test_pages_of_no_organization_are_for_superusers(world, label):
    assert world["client"].get(_url(label, "changelist")).status_code == 403
    if label == "webhooks.inboundwebhook":
        url = _url(label, "change", world["inbound"].pk)
        assert world["client"].get(url).status_code in (403, 404)


def test_list_filters_name_no_other_organization(world):
    page = world["client"].get(_url("content.content", "changelist")).content.decode()
    assert "Ours" in page and "Theirs" not in page


@pytest.mark.parametrize(
    "action",
    ["approve", "reject", "regenerate", "edit-image", "undo-image-edit", "schedule", "publish", "designs"],
)
def test_the_content_consoles_actions_refuse_another_organizations_content(world, action):
    client, other = world["client"], world["theirs"]["content.content"]
    base = _url("content.content", "change", other.pk).removesuffix("change/")
    assert client.get(f"{base}{action}/").status_code == 404
    assert client.post(f"{base}{action}/", {"reason": "no", "prompt": "x"}).status_code == 404
    other.refresh_from_db()
    assert other.status == "review"


def test_a_caption_edit_and_an_approval_of_another_organizations_content_are_refused(world):
    client, other, mine = (
        world["client"],
        world["theirs"]["content.content"],
        world["ours"]["content.content"],
    )
    for content, expected in ((other, 404), (mine, 302)):
        base = _url("content.content", "change", content.pk).removesuffix("change/")
        edited = client.post(f"{base}edit-variant/x/", {"caption": "Changed by sam"})
        assert edited.status_code == expected
    assert other.variants.get().caption != "Changed by sam"
    assert mine.variants.get().caption == "Changed by sam"
    approved = client.post(_url("content.content", "change", mine.pk).removesuffix("change/") + "approve/")
    assert approved.status_code == 302
    mine.refresh_from_db()
    assert mine.status == "approved"


def test_the_calendar_analytics_and_failures_refuse_another_organization(world):
    client = world["client"]
    ours, theirs = world["ours"]["accounts.organization"], world["theirs"]["accounts.organization"]
    for url in ("/admin/calendar/data/", "/admin/analytics/", "/admin/analytics/failures/"):
        assert client.get(url, {"org": str(theirs.pk)}).status_code == 404, url
        assert client.get(url, {"org": str(ours.pk)}).status_code == 200, url
    for url in ("/admin/analytics/", "/admin/calendar/"):
        names = [o["name"] for o in client.get(url).context["organizations"]]
        assert names == ["Ours"], (url, names)
    move = {"publication": str(world["theirs"]["publishing.publication"].pk), "when": "2099-01-03T09:00"}
    moved = client.post("/admin/calendar/reschedule/", json.dumps(move), content_type="application/json")
    assert moved.status_code == 404


def test_staff_without_a_membership_see_nothing(world):
    nobody = get_user_model().objects.create_user("nobody", password="x", is_staff=True)
    nobody.user_permissions.set(Permission.objects.all())
    client = Client()
    client.force_login(nobody)
    assert client.get(_url("content.content", "changelist")).context["cl"].result_count == 0
    assert client.get("/admin/calendar/data/").status_code == 404  # no organization to show
    theirs = world["theirs"]["accounts.organization"]
    assert client.get("/admin/analytics/", {"org": str(theirs.pk)}).status_code == 404


def _reviewer_as_the_readme_says(username: str) -> Client:
    """A staff user put in the Reviewer group (README, "Admin console")."""
    if not Group.objects.filter(name="Reviewer").exists():  # a transactional test flushed it
        importlib.import_module("apps.core.migrations.0002_reviewer_group").create_reviewer_group(
            django_apps, None
        )
    user = get_user_model().objects.create_user(username, password="x", is_staff=True)
    user.groups.add(Group.objects.get(name="Reviewer"))
    client = Client()
    client.force_login(user)
    return client


def test_a_reviewer_sees_only_their_organizations_content_and_cannot_touch_redirect_origins(world):
    client = _reviewer_as_the_readme_says("rita")
    listing = client.get(_url("content.content", "changelist"))
    assert listing.status_code == 200 and listing.context["cl"].result_count == 0  # not a member
    theirs = world["theirs"]["content.content"]
    assert client.get(_url("content.content", "change", theirs.pk)).status_code == 404
    origin = world["theirs"]["publishing.oauthredirectorigin"]
    assert client.get(_url("publishing.oauthredirectorigin", "changelist")).status_code == 403
    assert client.get(_url("publishing.oauthredirectorigin", "add")).status_code == 403
    assert client.get(_url("publishing.oauthredirectorigin", "delete", origin.pk)).status_code in (403, 404)
    assert "Redirect" not in client.get("/admin/").content.decode()
    # a member of the organization reviews its content
    Membership.objects.create(
        organization=world["theirs"]["accounts.organization"],
        user=get_user_model().objects.get(username="rita"),
        role="editor",
    )
    assert client.get(_url("content.content", "change", theirs.pk)).status_code == 200
    shown = client.get(_url("content.content", "changelist")).context["cl"].result_list
    assert theirs.pk in {c.pk for c in shown} and len(shown) == 2  # the review and the scheduled one
    # and still may not change the organization's OAuth redirect origins
    assert client.get(_url("publishing.oauthredirectorigin", "changelist")).status_code == 403
    assert client.get(_url("publishing.oauthredirectorigin", "delete", origin.pk)).status_code == 403
    assert (
        client.post(
            _url("publishing.oauthredirectorigin", "add"), {"origin": "https://x.example"}
        ).status_code
        == 403
    )


def test_superusers_see_every_organization(world):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client = Client()
    client.force_login(boss)
    for label in ("content.content", "publishing.publication", "accounts.organization"):
        shown = {o.pk for o in client.get(_url(label, "changelist")).context["cl"].result_list}
        assert {world["ours"][label].pk, world["theirs"][label].pk} <= shown


@pytest.mark.django_db(transaction=True)
def test_the_staff_socket_subscribes_only_to_the_staff_members_organizations(settings):
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    ours = organization_get_or_create(name="Ours")
    theirs = organization_get_or_create(name="Theirs")
    sam = get_user_model().objects.create_user("sam", password="x", is_staff=True)
    Membership.objects.create(organization=ours, user=sam, role="admin")
    mine, other = make_content(ours, status="generating"), make_content(theirs, status="generating")
    web = Client()
    web.force_login(sam)
    cookie = web.cookies["sessionid"].value

    async def scenario() -> list[dict]:
        headers = [(b"host", b"testserver"), (b"origin", b"http://testserver")]
        ws = WebsocketCommunicator(
            application, "/ws/events/", headers=[*headers, (b"cookie", f"sessionid={cookie}".encode())]
        )
        connected, _ = await ws.connect()
        assert connected
        frames = [await ws.receive_json_from()]
        for content in (other, mine):
            await ws.send_json_to({"action": "subscribe", "contentId": str(content.pk)})
            frames.append(await ws.receive_json_from())
        await ws.disconnect()
        return frames

    ready, refused, subscribed = asyncio.run(scenario())
    assert ready["data"] == {"staff": True}
    assert refused == {"type": "error", "data": {"message": "Unknown contentId."}}
    assert subscribed == {"type": "subscribed", "data": {"contentId": str(mine.pk)}}

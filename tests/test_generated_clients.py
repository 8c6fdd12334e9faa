"""Clients generated from the live schemas run a whole first session (issues 10 and 20).

openapi-python-client generates a package from `/v1/schema/` and one from `/api/schema/` of
a real uvicorn server, and any warning it prints (stdout or stderr: a skipped operation, a body
it could not type) fails the test. A user's whole first session then runs through those
packages alone (no raw HTTP) in both families: a brand, an upload, a generation, a list with
filters and pages, an edit, an approval, a schedule, the scheduled list, a publication, a
webhook and its test delivery, analytics and a delete, with a real Celery worker generating,
publishing to the sandbox and delivering webhooks on Redis.
"""

from __future__ import annotations

import datetime
import importlib
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from tests.conftest import png_bytes
from tests.content.factories import make_content
from tests.factories import ProfileFactory
from tests.live import asgi_server, celery_worker
from tests.publishing.test_oauth import REDIRECT, profile_from, sandbox_consent
from tests.webhooks.receiver import Receiver

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / ".venv" / "bin" / "openapi-python-client"


@pytest.fixture
def broker():
    """Send tasks to the Redis broker: the worker process runs the generation."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield app
    app.conf.task_always_eager = previous


def _generate(base: str, family: str, out: Path):
    """Generate the family's client from the live schema, as the README says (`--meta setup`),
    and import its package."""
    project = out / f"postforge-{family}"
    # the live schema, read here: the generator's own fetch gives up after 5 s, which building
    # the schema can take on a busy machine
    answer = requests.get(
        f"{base}/{family}/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}, timeout=120
    )
    assert answer.status_code == 200, answer.text[:500]
    schema = out / f"{family}.json"
    schema.write_bytes(answer.content)
    env = {"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin"}
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(schema),
            "--meta",
            "setup",
            "--output-path",
            str(project),
            "--overwrite",
        ],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,  # the test reads the failure
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # every schema construct was understood: the generator's warnings (a skipped endpoint, a
    # schema it could not parse) go to stderr, its notices to stdout
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    assert done.stderr.strip() == "", done.stderr
    (package,) = [p.name for p in project.iterdir() if (p / "__init__.py").exists()]
    if str(project) not in sys.path:
        sys.path.insert(0, str(project))
    return importlib.import_module(package)


def _mod(package, dotted: str):
    return importlib.import_module(f"{package.__name__}.{dotted}")


def _until(read, done, what: str, seconds: float = 90):
    """Read again until `done(value)`: a bounded poll, as a client does."""
    deadline = time.monotonic() + seconds
    value = read()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.3)
        value = read()
    assert done(value), (what, value.to_dict() if hasattr(value, "to_dict") else value)
    return value


def _hook(receiver: Receiver, kind: str) -> dict:
    """The first delivery of event `kind` the receiver got."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for request in list(receiver.requests):
            body = json.loads(request["body"])
            if body.get("type") == kind:
                return body
        time.sleep(0.2)
    raise AssertionError(f"no {kind} delivery: {receiver.requests}")


#: the server and the worker may deliver to the loopback receiver (plain http)
HOOKS_ENV = {"WEBHOOK_ALLOW_HTTP": "true", "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8"}


def _later(days: int) -> datetime.datetime:
    """9:00 (the profile's time zone) `days` from now: a posting time ahead of the clock."""
    return (datetime.datetime.now() + datetime.timedelta(days=days)).replace(
        hour=9, minute=0, second=0, microsecond=0
    )


@pytest.mark.timeout(900)  # two generations and two whole sessions through real processes
def test_generated_clients_run_a_whole_first_session_in_each_family(broker, tmp_path):
    org = organization_get_or_create(name="Generated Client Org")
    key = api_key_create(organization=org, role="owner", name="sdk").secret
    default_brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(organization=org, brand=default_brand, sandbox=True, platform="instagram")
    # an earlier post of the profile, waiting for review: the lists have two pages of one
    earlier = make_content(org, profile=profile, caption="Yesterday's roast.")

    with Receiver() as receiver, asgi_server(**HOOKS_ENV) as base, celery_worker(**HOOKS_ENV):
        a = _generate(base, "v1", tmp_path)
        # the package the README imports is the one the generator makes
        readme = (ROOT / "README.md").read_text()
        assert f"from {a.__name__} import AuthenticatedClient" in readme, a.__name__
        _family_a(a, base, key, profile=profile, earlier=earlier, receiver=receiver)
        b = _generate(base, "api", tmp_path)
        _family_b(b, base, key, org=org, receiver=receiver)


def _family_a(a, base: str, key: str, *, profile, earlier, receiver: Receiver) -> None:
    from apps.core import ids

    models = _mod(a, "models")
    types = _mod(a, "types")
    client = a.AuthenticatedClient(base_url=f"{base}/v1", token=key, raise_on_unexpected_status=True)
    profile_id = ids.render(profile.pk, "profile")
    earlier_id = ids.render(earlier.pk, "content")

    # a brand, and its logo uploaded (multipart)
    brand = _mod(a, "api.brands.v1_brands_create").sync(
        client=client,
        body=models.BrandInputRequest.from_dict(
            {
                "name": "Sunrise Coffee",
                "description": "Small-batch roasters",
                "guidelines": {
                    "voice": "warm, witty",
                    "tone": ["friendly"],
                    "colors": {"primary": "#AA3300"},
                    "hashtags": ["coffee"],
                },
            }
        ),
    )
    assert isinstance(brand, models.BrandOutput), brand
    assert brand.name == "Sunrise Coffee" and brand.guidelines.voice == "warm, witty"
    logo = _mod(a, "api.brands.v1_brand_assets_create").sync(
        brand.id,
        client=client,
        body=models.V1BrandAssetsCreateBody(
            file=types.File(
                payload=io.BytesIO(png_bytes((120, 80))), file_name="logo.png", mime_type="image/png"
            ),
            type_=models.V1BrandAssetsCreateBodyType("logo"),
        ),
    )
    assert isinstance(logo, models.AssetOutput), logo
    assert logo.type_ == models.MediaTypeEnum.IMAGE and logo.asset_id.startswith("ast_")
    assert logo.metadata.to_dict()["dimensions"] == {"width": 120, "height": 80}

    profiles = _mod(a, "api.profiles.v1_profiles_list").sync(client=client)
    assert [p.id for p in profiles.data] == [profile_id]
    assert profiles.data[0].platform == models.ProfilePlatformEnum.INSTAGRAM

    # generate, waiting for the result
    content = _mod(a, "api.content.v1_content_generate").sync(
        client=client,
        wait=30,
        body=models.GenerateInputRequest.from_dict(
            {
                "prompt": "Our new Ethiopian single origin, bright and floral",
                "platforms": ["instagram", "x"],
                "settings": {"tone": "friendly", "includeHashtags": True, "hashtagCount": 3},
            }
        ),
    )
    assert isinstance(content, models.ContentOutput), content
    assert content.status == models.ContentStatusEnum.GENERATED, content.to_dict()
    assert models.ContentActionEnum.APPROVE in content.allowed_actions

    # the list, filtered and in pages of one
    listing = _mod(a, "api.content.v1_content_list")
    pages = [
        listing.sync(
            client=client,
            status="generated",
            platform=models.V1ContentListPlatform("instagram"),
            sort_by=models.V1ContentListSortBy("createdAt"),
            sort_order=models.V1ContentListSortOrder("asc"),
            limit=1,
            page=page,
        )
        for page in (1, 2)
    ]
    assert [[c.id for c in p.data] for p in pages] == [[earlier_id], [content.id]]
    assert [(p.pagination.page, p.pagination.total, p.pagination.pages) for p in pages] == [
        (1, 2, 2),
        (2, 2, 2),
    ]

    updated = _mod(a, "api.content.v1_content_update").sync(
        content.id,
        client=client,
        body=models.UpdateInputRequest.from_dict(
            {"content": {"instagram": {"caption": "Bright, floral, ours."}}}
        ),
    )
    assert updated.content.to_dict()["instagram"]["caption"] == "Bright, floral, ours."
    approved = _mod(a, "api.content.v1_content_approve").sync(content.id, client=client)
    assert approved.status == models.ContentStatusEnum.APPROVED

    # schedule it on the profile, in the profile's time zone
    when = _later(2)
    scheduled = _mod(a, "api.content.v1_content_schedule").sync(
        content.id,
        client=client,
        body=models.ScheduleInputRequest(
            scheduled_for=when,
            profiles=[profile_id],
            options=models.ScheduleOptionsRequest(
                timezone=models.Timezone("Europe/Paris"), first_comment="Link in bio"
            ),
        ),
    )
    assert isinstance(scheduled, models.ContentOutput), scheduled
    assert scheduled.status == models.ContentStatusEnum.SCHEDULED
    (publication,) = scheduled.publications
    assert (
        publication.status == models.PublicationStatusEnum.SCHEDULED and publication.profile_id == profile_id
    )
    paris = datetime.datetime.fromisoformat(str(publication.scheduled_for)).astimezone(
        datetime.timezone(datetime.timedelta(hours=1))
    )
    assert (paris.hour, paris.minute) == (9, 0)  # 09:00 in Paris (winter time: UTC+1)
    on_schedule = listing.sync(client=client, status="scheduled")
    assert [c.id for c in on_schedule.data] == [content.id]

    # publish the earlier post now: the worker posts it to the sandbox
    _mod(a, "api.content.v1_content_approve").sync(earlier_id, client=client)
    accepted = _mod(a, "api.content.v1_content_publish").sync_detailed(
        earlier_id, client=client, body=models.PublishInputRequest(profiles=[profile_id])
    )
    # accepted: the worker posts it (it may be done by the time the answer is written)
    assert accepted.status_code == 202
    assert accepted.parsed.status in (models.ContentStatusEnum.PUBLISHING, models.ContentStatusEnum.PUBLISHED)
    retrieve = _mod(a, "api.content.v1_content_retrieve")
    published = _until(
        lambda: retrieve.sync(earlier_id, client=client),
        lambda c: c.status == models.ContentStatusEnum.PUBLISHED,
        "published",
    )
    assert published.publications[0].status == models.PublicationStatusEnum.PUBLISHED
    assert published.publications[0].url and published.publications[0].external_id

    _a_webhook_and_analytics(a, client, receiver, profile_id)

    # and a delete: gone
    deleted = _mod(a, "api.content.v1_content_destroy").sync_detailed(content.id, client=client)
    assert deleted.status_code == 204
    missing = retrieve.sync_detailed(
        content.id, client=a.AuthenticatedClient(base_url=f"{base}/v1", token=key)
    )
    assert missing.status_code == 404 and missing.parsed.error.code == "NOT_FOUND"


def _a_webhook_and_analytics(a, client, receiver: Receiver, profile_id: str) -> None:
    models = _mod(a, "models")
    # a webhook, and its test event delivered by the worker
    hook = _mod(a, "api.webhooks.v1_webhooks_create").sync(
        client=client,
        body=models.WebhookInputRequest(
            url=f"{receiver.url}/a", events=[models.EventsEnum("content.published")]
        ),
    )
    assert isinstance(hook, models.WebhookOutput), hook
    assert hook.secret.startswith("whsec_") and hook.events == [models.EventsEnum("content.published")]
    delivery = _mod(a, "api.webhooks.v1_webhooks_test").sync(hook.id, client=client)
    assert delivery.event_type == models.EventTypeEnum.WEBHOOK_TEST and delivery.webhook_id == hook.id
    assert _hook(receiver, "webhook.test")["type"] == "webhook.test"

    # analytics of the period and of the profile
    today = datetime.date.today()
    report = _mod(a, "api.analytics.v1_analytics_content").sync(
        client=client, start_date=today - datetime.timedelta(days=7), end_date=today
    )
    assert "metrics" in report.to_dict() and "period" in report.to_dict(), report.to_dict()
    mine = _mod(a, "api.analytics.v1_analytics_profile").sync(profile_id, client=client)
    assert mine.to_dict()["profile"]["id"] == profile_id, mine.to_dict()
    # typed reports (issue 28): fields of their own, not an untyped dict
    assert isinstance(report.metrics.total_posts, int) and isinstance(report.breakdown, list)
    assert mine.profile.id == profile_id and isinstance(mine.metrics.followers, int)


def _family_b(b, base: str, key: str, *, org, receiver: Receiver) -> None:
    bm = _mod(b, "models")
    types = _mod(b, "types")
    bclient = b.AuthenticatedClient(base_url=f"{base}/api", token=key, raise_on_unexpected_status=True)

    # a brand with its generation settings, and a reference image uploaded for it
    bbrand = (
        _mod(b, "api.brands.api_brands_create")
        .sync(
            client=bclient,
            body=bm.BrandInputRequest.from_dict(
                {"name": "Harbour Bakery", "settings": {"require_approval": False}}
            ),
        )
        .data
    )
    assert bbrand.name == "Harbour Bakery"
    put = _mod(b, "api.brands.api_brands_settings_put").sync(
        bbrand.id,
        client=bclient,
        body=bm.GenerationSettingsInputRequest.from_dict(
            {"brand_voice": "cosy", "hashtags": ["bread"], "guidelines": {"do": ["say good morning"]}}
        ),
    )
    assert isinstance(put, bm.ApiBrandsSettingsPutResponse200), put.to_dict()
    assert put.data.to_dict()["brand_voice"] == "cosy"
    uploaded = (
        _mod(b, "api.media.api_media_upload")
        .sync(
            client=bclient,
            body=bm.ApiMediaUploadBody(
                file=types.File(
                    payload=io.BytesIO(png_bytes((90, 60))), file_name="loaf.png", mime_type="image/png"
                ),
                brand_id=str(bbrand.id),
                kind=bm.ApiMediaUploadBodyKind("reference"),
            ),
        )
        .data
    )
    assert (uploaded.kind, uploaded.type_) == (bm.KindEnum.REFERENCE, bm.MediaTypeEnum.IMAGE)
    assert (uploaded.width, uploaded.height, str(uploaded.brand_id)) == (90, 60, str(bbrand.id))

    # connect a profile through the sandbox's consent page (the browser step)
    authorize = _mod(b, "api.oauth.api_oauth_authorize").sync(
        "instagram",
        client=bclient,
        body=bm.AuthorizeInputRequest.from_dict({"redirectUri": REDIRECT, "brandId": str(bbrand.id)}),
    )
    connected = profile_from(sandbox_consent(authorize.data.auth_url, username="harbour_bakery"))
    bprofile = _mod(b, "api.profiles.api_profiles_retrieve").sync(str(connected.pk), client=bclient).data
    assert bprofile.username == "harbour_bakery" and bprofile.token_status == bm.TokenStatusEnum.VALID
    assert bprofile.sandbox is True

    # generate for it, then wait for review
    created = _mod(b, "api.content.api_content_create").sync(
        client=bclient,
        body=bm.CreateInputRequest.from_dict(
            {"socialProfileId": str(bprofile.id), "prompt": "Sourdough fresh at 7"}
        ),
    )
    retrieve = _mod(b, "api.content.api_content_retrieve")
    item = _until(
        lambda: retrieve.sync(str(created.data.id), client=bclient).data,
        lambda c: c.status == bm.ContentStatusBEnum.REVIEWING,
        "reviewing",
    )
    earlier = make_content(org, profile=connected, caption="Rye on Sundays.")

    # the profile's content, in pages of one
    listing = _mod(b, "api.content.api_content_list")
    pages = [
        listing.sync(
            client=bclient,
            profile_id=bprofile.id,
            platform=bm.ApiContentListPlatform("instagram"),
            sort=bm.ApiContentListSort("createdAt:asc"),
            limit=1,
            page=page,
        )
        for page in (1, 2)
    ]
    assert [[str(c.id) for c in p.data] for p in pages] == [[str(item.id)], [str(earlier.pk)]]
    first, second = (p.pagination for p in pages)
    assert (first.total, first.has_next, first.has_prev, second.offset, second.has_next) == (
        2,
        True,
        False,
        1,
        False,
    )

    updated = (
        _mod(b, "api.content.api_content_update")
        .sync(
            item.id,
            client=bclient,
            body=bm.UpdateInputRequest.from_dict(
                {"content": {"instagram": {"caption": "Warm sourdough, 7 sharp."}}}
            ),
        )
        .data
    )
    assert updated.content.to_dict()["instagram"]["caption"] == "Warm sourdough, 7 sharp."
    approved = _mod(b, "api.content.api_content_approve").sync(item.id, client=bclient).data
    assert approved.status == bm.ContentStatusBEnum.APPROVED

    # schedule it, and find it in the scheduled posts
    scheduled = (
        _mod(b, "api.posts.api_posts_schedule")
        .sync(
            client=bclient,
            body=bm.PostScheduleInputRequest(
                content_id=item.id,
                profile_ids=[bprofile.id],
                scheduled_for=_later(3),
                timezone=bm.Timezone("Europe/Paris"),
            ),
        )
        .data
    )
    assert scheduled.status == bm.ContentStatusBEnum.SCHEDULED
    queue = _mod(b, "api.posts.api_posts_scheduled_list").sync(client=bclient, profile_id=bprofile.id)
    assert [str(p.content_id) for p in queue.data] == [str(item.id)]
    # Family B's publication ids are UUIDs in the client too (format: uuid, issue 28)
    assert queue.data[0].content_id == item.id and str(queue.data[0].profile_id) == str(bprofile.id)
    assert queue.data[0].status == bm.PublicationStatusEnum.SCHEDULED

    # publish the other now: the worker posts it to the sandbox
    publishing = (
        _mod(b, "api.posts.api_posts_publish")
        .sync(client=bclient, body=bm.PublishInputRequest(content_id=earlier.pk, profile_ids=[bprofile.id]))
        .data
    )
    assert publishing.status in (bm.ContentStatusBEnum.PUBLISHING, bm.ContentStatusBEnum.PUBLISHED)
    published = _until(
        lambda: retrieve.sync(str(earlier.pk), client=bclient).data,
        lambda c: c.status == bm.ContentStatusBEnum.PUBLISHED,
        "published",
    )
    assert published.publications[0].status == bm.PublicationStatusEnum.PUBLISHED

    # a webhook and its test event
    hook = (
        _mod(b, "api.webhooks.api_webhooks_create")
        .sync(
            client=bclient,
            body=bm.WebhookInputRequest(url=f"{receiver.url}/b", events=[bm.EventsEnum("*")]),
        )
        .data
    )
    assert hook.secret.startswith("whsec_")
    receiver.requests.clear()
    delivery = _mod(b, "api.webhooks.api_webhooks_test").sync(hook.id, client=bclient).data
    assert delivery.event_type == bm.EventTypeEnum.WEBHOOK_TEST
    assert _hook(receiver, "webhook.test")["type"] == "webhook.test"

    # analytics: the overview and the profile's
    overview = _mod(b, "api.analytics.api_analytics_overview").sync(client=bclient, period="30d")
    assert "data" in overview.to_dict(), overview.to_dict()
    assert isinstance(overview.data.posts.current, int) and isinstance(overview.data.failures, int)
    mine = _mod(b, "api.analytics.api_analytics_profiles").sync(
        client=bclient, profile_id=bprofile.id, period="7d"
    )
    assert "data" in mine.to_dict(), mine.to_dict()

    # a delete
    gone = _mod(b, "api.content.api_content_destroy").sync_detailed(item.id, client=bclient)
    assert gone.status_code == 204
    missing = retrieve.sync_detailed(
        str(item.id), client=b.AuthenticatedClient(base_url=f"{base}/api", token=key)
    )
    assert missing.status_code == 404

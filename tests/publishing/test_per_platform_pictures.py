"""Issue 30, each platform its own picture: a content for X, LinkedIn, Pinterest and an
Instagram story gets one render per platform shape (16:9, 1.91:1, 2:3, 9:16), each publication
sends the picture made for its platform (read back from what each platform fake received),
an upload stays shared by every platform, both API families say which media goes where, and
`regenerate` gives each platform a new design."""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content import states
from apps.content.models import Content
from apps.media.models import MediaAsset
from apps.platforms.rules import ratio_value
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.services.clients import post_request_for
from tests.factories import ProfileFactory
from tests.publishing.test_processing_and_unknown import real_profile, run_due

pytestmark = pytest.mark.django_db(transaction=True)

BRIEF = (
    "Spring sale at Crumb Co: 20% off every sourdough loaf with code SPRING20 until Sunday. "
    "Book a table at crumbco.example."
)
BOARD = "1022106146619699000"
SCOPES = {
    "x": "tweet.read tweet.write users.read offline.access media.write",
    "linkedin": "openid profile email w_member_social",
    "pinterest": "boards:read pins:read pins:write user_accounts:read",
    "instagram": "instagram_business_basic,instagram_business_content_publish,"
    "instagram_business_manage_comments,instagram_business_manage_insights",
}
#: each platform's own shape (width / height), as the platform data gives it
SHAPES = {"x": 16 / 9, "linkedin": 1200 / 628, "pinterest": 2 / 3, "instagram": 9 / 16}


def _size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as img:
        return img.size


def _file_bytes(asset: MediaAsset) -> bytes:
    with asset.file.open("rb") as fh:
        return bytes(fh.read())


def _content(owner, platforms=("x", "linkedin", "pinterest", "instagram")) -> Content:
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt=BRIEF, platforms=list(platforms), brand=brand, post_type="story"
        ),
    )
    content.refresh_from_db()
    assert content.status == states.REVIEW, content.status_reason
    return content


def _by_ratio(content: Content) -> dict[str, MediaAsset]:
    assets = MediaAsset.objects.filter(content=content, kind="generated")
    return {a.ratio: a for a in assets}


def test_each_platform_gets_its_own_picture_in_its_own_shape_and_publishes_it(settings, owner, make_fake):
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Instagram and Pinterest fetch by URL
    content = _content(owner)
    variants = {v.platform: v.ratio for v in content.variants.all()}
    assert variants == {"x": "16:9", "linkedin": "1.91:1", "pinterest": "2:3", "instagram": "9:16"}
    pictures = _by_ratio(content)
    assert set(pictures) == {"16:9", "1.91:1", "2:3", "9:16"}  # one render per distinct ratio
    for platform, ratio in variants.items():
        width, height = _size(_file_bytes(pictures[ratio]))  # the file itself, not the columns
        assert abs(width / height - SHAPES[platform]) < 0.01, (platform, width, height)
    assert len({a.sha256 for a in pictures.values()}) == 4  # four different files

    brand = Brand.objects.get(organization=owner.org, is_default=True)
    fakes = {p: make_fake(p) for p in SCOPES}
    profiles = [real_profile(settings, owner, brand, fakes[p], scopes=SCOPES[p]) for p in SCOPES]
    services.publications_schedule(
        content=content,
        profiles=profiles,
        scheduled_for=timezone.now() + datetime.timedelta(minutes=30),
        options={"board_id": BOARD},
    )
    now = timezone.now()
    Publication.objects.filter(content=content).update(scheduled_for=now, due_at=now)
    for due in Publication.objects.filter(content=content):
        pub = run_due(due)
        assert pub.status == "published", (pub.profile.platform, pub.last_error)

    # X and LinkedIn were sent the bytes: each its own picture
    [x_media] = [m for m in fakes["x"].media.values() if "bytes" in m]
    assert x_media["bytes"] == _file_bytes(pictures["16:9"])
    [li_asset] = [a for a in fakes["linkedin"].assets.values() if a["bytes"]]
    assert li_asset["bytes"] == _file_bytes(pictures["1.91:1"])
    # Pinterest and Instagram fetch a URL: each got the URL of its own picture
    [pin] = fakes["pinterest"].posts
    assert pin["media_source"]["url"].endswith(pictures["2:3"].file.name)
    [story] = fakes["instagram"].posts
    assert story["media_product_type"] == "STORY"
    sent = [c.json or c.params for c in fakes["instagram"].calls("create_container")]
    assert sent and str(sent[0].get("image_url", "")).endswith(pictures["9:16"].file.name)


def test_regenerate_gives_each_platform_a_new_design(owner):
    content = _content(owner, platforms=("x", "pinterest"))
    before = {r: a.sha256 for r, a in _by_ratio(content).items()}
    content = content_services.content_regenerate(content=content)
    content.refresh_from_db()
    assert content.status == states.REVIEW, content.status_reason
    after = {r: a.sha256 for r, a in _by_ratio(content).items()}
    assert set(after) == set(before) == {"16:9", "2:3"}
    assert all(after[r] != before[r] for r in before)  # another design in each shape


def test_both_families_say_which_picture_goes_to_which_platform(owner, api):
    content = _content(owner, platforms=("x", "linkedin", "pinterest"))
    api_items = api.get(f"/api/content/{content.pk}").json()["data"]["mediaAssets"]
    v1_items = api.get(f"/v1/content/cnt_{content.pk.hex}").json()["media"]
    for items in (api_items, v1_items):
        assert {m["ratio"]: m["platforms"] for m in items} == {
            "16:9": ["x"],
            "1.91:1": ["linkedin"],
            "2:3": ["pinterest"],
        }
        for m in items:  # the representation's size is the file's own shape
            assert abs(m["dimensions"]["width"] / m["dimensions"]["height"] - ratio_value(m["ratio"])) < 0.01


def test_an_upload_is_still_shared_by_every_platform(owner, api, django_capture_on_commit_callbacks):
    buf = io.BytesIO()
    Image.new("RGB", (800, 800), (30, 120, 90)).save(buf, "PNG")
    upload = api.post(
        "/api/media/upload",
        {"file": SimpleUploadedFile("mine.png", buf.getvalue(), content_type="image/png")},
        format="multipart",
    ).json()["data"]
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Our new mugs",
            platforms=["x", "linkedin", "pinterest"],
            brand=brand,
            generation_mode="manual_upload",
            source_media=MediaAsset.objects.get(pk=upload["id"]),
        ),
    )
    content.refresh_from_db()
    assert content.status == states.REVIEW, content.status_reason
    profiles = [
        ProfileFactory(organization=owner.org, brand=brand, platform=p)
        for p in ("x", "linkedin", "pinterest")
    ]
    services.publications_schedule(
        content=content,
        profiles=profiles,
        scheduled_for=timezone.now() + datetime.timedelta(minutes=30),
        options={"board_id": BOARD},
    )
    for pub in Publication.objects.filter(content=content).select_related("profile", "content"):
        [sent] = post_request_for(pub).media  # the upload, and only it, on every platform
        assert sent.loader() == buf.getvalue()
        assert not sent.generated and (sent.width, sent.height) == (800, 800)
    for items in (
        api.get(f"/api/content/{content.pk}").json()["data"]["mediaAssets"],
        api.get(f"/v1/content/cnt_{content.pk.hex}").json()["media"],
    ):
        assert [(m["ratio"], m["platforms"]) for m in items] == [(None, ["linkedin", "pinterest", "x"])]

"""The staff console in a real headless Chromium: review queue, content page, actions, publications."""

from __future__ import annotations

import datetime
import io
import re

import pytest
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content.models import Content
from apps.core.errors import PlatformFailure
from apps.media.models import Kind, MediaAsset
from apps.publishing import services as publishing
from apps.publishing.models import Publication, SandboxPost
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def org():
    return organization_get_or_create(name="Acme")


@pytest.fixture
def brand(org):
    return Brand.objects.get(organization=org, is_default=True)


@pytest.fixture
def profile(org, brand):
    return ProfileFactory(
        organization=org, brand=brand, platform="instagram", sandbox=True, username="acme_ig"
    )


def page_of(live_server, content) -> str:
    return f"{live_server.url}/admin/content/content/{content.pk}/change/"


def messages_text(page) -> str:
    page.wait_for_selector(".messagelist")
    return page.locator(".messagelist").inner_text()


def image_loaded(page, selector: str) -> None:
    page.wait_for_function(
        "sel => { const i = document.querySelector(sel); return !!i && i.complete && i.naturalWidth > 0; }",
        arg=selector,
    )


def run_bulk_action(page, contents, action: str) -> None:
    for content in contents:
        page.check(f"input[name=_selected_action][value='{content.pk}']")
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")


def test_the_review_queue_lists_content_in_review_with_its_thumbnail(admin_page, live_server, org, brand):
    waiting = make_content(org, brand=brand, platforms=("instagram", "x"))
    make_content(org, brand=brand, status="approved", caption="Already approved")
    admin_page.goto(f"{live_server.url}/admin/content/reviewitem/")
    rows = admin_page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    # each platform's caption excerpt (issue 21)
    expect(rows.first.locator(".pf-q-line")).to_have_count(2)
    expect(rows.first.locator('.pf-q-line[data-platform="x"]')).to_contain_text("X")
    image_loaded(admin_page, "#result_list img.pf-thumb")

    rows.first.locator("a").first.click()
    admin_page.wait_for_url(re.compile(rf"/admin/content/content/{waiting.pk}/change/\?queue=1"))
    variants = admin_page.locator(".pf-variant")
    expect(variants).to_have_count(2)
    expect(variants.nth(0)).to_contain_text("Fresh autumn roast, out today.")
    expect(variants.nth(0)).to_contain_text("#coffee")
    left, right = variants.nth(0).bounding_box(), variants.nth(1).bounding_box()
    assert abs(left["y"] - right["y"]) < 1 and right["x"] >= left["x"] + left["width"]  # side by side
    assert [variants.nth(i).get_attribute("data-platform") for i in range(2)] == ["instagram", "x"]
    image_loaded(admin_page, "#pf-media img")

    admin_page.click("#pf-approve")
    assert "Approved." in messages_text(admin_page)
    waiting.refresh_from_db()
    assert waiting.status == "approved" and waiting.approved_by == "staff"
    # approved from the queue: on to the next item, here the (now empty) queue
    admin_page.wait_for_url(re.compile(r"/admin/content/reviewitem/"))
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(0)


def test_staff_reject_one_item_with_a_reason(admin_page, live_server, org, brand):
    content = make_content(org, brand=brand)
    admin_page.goto(page_of(live_server, content))
    admin_page.click("#pf-reject")
    admin_page.fill("#id_reason", "Off-brand colours")
    admin_page.click("#pf-reject-submit")
    assert "Rejected." in messages_text(admin_page)
    content.refresh_from_db()
    assert content.status == "rejected" and content.status_reason == "Off-brand colours"
    expect(admin_page.locator("#pf-reason")).to_have_text("Off-brand colours")


def test_bulk_approve_and_bulk_reject_with_a_reason(admin_page, live_server, org, brand):
    first, second, third = (make_content(org, brand=brand, caption=f"Post {n}") for n in range(3))
    admin_page.goto(f"{live_server.url}/admin/content/content/?status=review")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(3)
    run_bulk_action(admin_page, [first, second], "approve_selected")
    assert "2 item(s) approved." in messages_text(admin_page)
    assert {c.status for c in Content.objects.filter(pk__in=[first.pk, second.pk])} == {"approved"}

    admin_page.goto(f"{live_server.url}/admin/content/reviewitem/")
    run_bulk_action(admin_page, [third], "reject_selected")
    admin_page.fill("#id_reason", "Wrong campaign")
    admin_page.click("#pf-reject-submit")
    assert "1 item(s) rejected." in messages_text(admin_page)
    third.refresh_from_db()
    assert third.status == "rejected" and third.status_reason == "Wrong campaign"


def test_staff_edit_an_image_by_prompt_and_undo_it(admin_page, live_server, org, brand):
    content = make_content(org, brand=brand)
    original = content_services.current_media(content).get()
    admin_page.goto(page_of(live_server, content))
    admin_page.fill("#pf-edit-prompt", "black and white")
    admin_page.click("#pf-edit-image")
    assert "Image edited" in messages_text(admin_page)
    edited = content_services.current_media(content).get()
    assert edited.pk != original.pk and edited.metadata["editedFrom"] == str(original.pk)
    assert MediaAsset.objects.get(pk=original.pk).kind == Kind.BACKUP  # the previous image is kept
    with edited.file.open("rb") as fh:
        pixels = Image.open(io.BytesIO(fh.read())).convert("RGB").getdata()
    assert all(r == g == b for r, g, b in pixels)  # really black and white
    image_loaded(admin_page, "#pf-media img")
    image_loaded(admin_page, "#pf-backups img")

    admin_page.click("#pf-undo-edit")
    assert "Image edit undone" in messages_text(admin_page)
    restored = content_services.current_media(content).get()
    assert restored.pk == original.pk and restored.kind == Kind.GENERATED
    assert not MediaAsset.objects.filter(pk=edited.pk).exists()
    expect(admin_page.locator("#pf-undo-edit")).to_have_count(0)


def test_staff_schedule_one_item_and_publish_another_now(admin_page, live_server, org, profile):
    later = make_content(org, profile=profile)
    now = make_content(org, profile=profile, caption="Out right now")
    when = (timezone.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)

    admin_page.goto(page_of(live_server, later))
    admin_page.click("#pf-schedule")
    admin_page.fill("#id_scheduled_for", when.strftime("%Y-%m-%dT%H:%M"))
    admin_page.fill("#id_timezone", "UTC")
    admin_page.get_by_label(re.compile("instagram: acme_ig")).check()
    admin_page.click("#pf-publish-submit")
    assert "Scheduled." in messages_text(admin_page)
    later.refresh_from_db()
    assert later.status == "scheduled"
    pub = Publication.objects.get(content=later)
    assert pub.status == "scheduled" and pub.profile == profile and pub.scheduled_for == when
    expect(admin_page.locator("#pf-publications tbody tr")).to_have_count(1)

    admin_page.goto(page_of(live_server, now))
    admin_page.click("#pf-publish")
    admin_page.get_by_label(re.compile("instagram: acme_ig")).check()
    admin_page.click("#pf-publish-submit")
    assert "published" in messages_text(admin_page)
    pub = Publication.objects.get(content=now)
    assert pub.status == "published"
    post = SandboxPost.objects.get(reference=str(pub.pk))
    assert post.caption.startswith("Out right now")
    now.refresh_from_db()
    assert now.status == "published"
    row = admin_page.locator("#pf-publications tbody tr")
    expect(row).to_have_attribute("data-status", "published")
    expect(row).to_contain_text(pub.url)

    admin_page.goto(f"{live_server.url}/admin/publishing/sandboxpost/")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(1)
    expect(admin_page.locator("#result_list")).to_contain_text(post.external_id)


def test_a_failed_publication_is_retried_from_the_publications_list(admin_page, live_server, org, brand):
    flaky = ProfileFactory(
        organization=org,
        brand=brand,
        platform="instagram",
        sandbox=True,
        username="flaky_ig",
        settings={"timezone": "UTC", "sandbox": {"fail": "permanent", "times": 1}},
    )
    content = make_content(org, profile=flaky)
    with pytest.raises(PlatformFailure):
        publishing.publications_publish_now(content=content, profiles=[flaky])
    pub = Publication.objects.get(content=content)
    assert pub.status == "failed"

    admin_page.goto(f"{live_server.url}/admin/publishing/publication/?status=failed")
    rows = admin_page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Sandbox: this post was refused")
    admin_page.check(f"input[name=_selected_action][value='{pub.pk}']")
    admin_page.select_option("select[name=action]", "retry_failed")
    admin_page.click("button[name=index]")
    assert "1 publication(s) back on schedule" in messages_text(admin_page)
    pub.refresh_from_db()
    assert pub.status == "scheduled" and pub.due_at <= timezone.now() and pub.attempts == 0
    content.refresh_from_db()
    assert content.status == "scheduled"

    assert publishing.dispatch_due() == 1  # what beat does every few seconds
    pub.refresh_from_db()
    content.refresh_from_db()
    assert pub.status == "published" and content.status == "published"
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1
    admin_page.goto(f"{live_server.url}/admin/publishing/publication/?status=published")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(1)


def test_a_service_refusal_is_an_error_message_not_a_500(admin_page, live_server, org, brand):
    draft = make_content(org, brand=brand, status="draft")
    admin_page.goto(f"{live_server.url}/admin/content/content/")
    run_bulk_action(admin_page, [draft], "approve_selected")
    text = messages_text(admin_page)
    assert "Cannot approve content that is draft." in text and "Allowed now: edit, regenerate." in text
    expect(admin_page.locator(".messagelist .error")).to_have_count(1)
    draft.refresh_from_db()
    assert draft.status == "draft"

    # another member approved it while this page was open: the button is refused by the service
    stale = make_content(org, brand=brand)
    admin_page.goto(page_of(live_server, stale))
    content_services.content_approve(content=stale)
    admin_page.click("#pf-approve")
    assert "Cannot approve content that is approved." in messages_text(admin_page)
    expect(admin_page.locator(".messagelist .error")).to_have_count(1)
    stale.refresh_from_db()
    assert stale.status == "approved"


def test_video_content_is_previewed_with_a_player_and_a_generating_item_with_a_progress_bar(
    admin_page, live_server, org, brand
):
    from apps.media.services import media_create_from_bytes
    from tests.conftest import png_bytes

    video = make_content(org, brand=brand, platforms=("tiktok",), image=False)
    Content.objects.filter(pk=video.pk).update(media_type="video", post_type="short", dimensions="9:16")
    media_create_from_bytes(
        organization=org,
        data=b"\x00\x00\x00\x18ftypmp42",
        content_type="video/mp4",
        kind=Kind.GENERATED,
        brand=brand,
        width=1080,
        height=1920,
        duration=6.0,
        thumbnail=png_bytes((90, 160)),
        content=video,
    )
    admin_page.goto(f"{live_server.url}/admin/content/reviewitem/")
    image_loaded(admin_page, "#result_list img.pf-thumb")  # the video's thumbnail in the queue
    admin_page.goto(page_of(live_server, video))
    player = admin_page.locator("#pf-media video")
    expect(player).to_have_count(1)
    assert player.get_attribute("src").endswith(".mp4") and player.get_attribute("poster")
    expect(admin_page.locator("#pf-media")).to_contain_text("6.0 s")

    generating = make_content(org, brand=brand, status="generating")
    Content.objects.filter(pk=generating.pk).update(progress=30)
    admin_page.goto(page_of(live_server, generating))
    expect(admin_page.locator("#pf-live")).to_have_attribute("data-content-id", str(generating.pk))
    expect(admin_page.locator("#pf-progress")).to_have_attribute("value", "30")
    expect(admin_page.locator("#pf-approve")).to_have_count(0)  # nothing to approve while it generates


def test_the_content_page_shows_each_platform_its_own_picture(admin_page, live_server, org, brand, tmp_path):
    """Issue 30: a content for X, LinkedIn, Pinterest and an Instagram story has a picture per
    platform shape; the page names the shape and platforms of each picture, and each
    variant's preview shows its own."""
    content = content_services.content_request_generation(
        organization=org,
        inp=content_services.GenerationInput(
            prompt="Spring sale at Crumb Co: 20% off every sourdough loaf with code SPRING20 until Sunday.",
            platforms=["x", "linkedin", "pinterest", "instagram"],
            brand=brand,
            post_type="story",
        ),
    )
    pictures = {m.ratio: m for m in MediaAsset.objects.filter(content=content, kind=Kind.GENERATED)}
    assert set(pictures) == {"16:9", "1.91:1", "2:3", "9:16"}
    admin_page.goto(page_of(live_server, content))
    captions = admin_page.locator("#pf-media figcaption").all_inner_texts()
    for expected in ("16:9 for X", "1.91:1 for LinkedIn", "2:3 for Pinterest", "9:16 for Instagram"):
        assert any(expected in c for c in captions), (expected, captions)
    for platform, ratio in (
        ("x", "16:9"),
        ("linkedin", "1.91:1"),
        ("pinterest", "2:3"),
        ("instagram", "9:16"),
    ):
        card = admin_page.locator(f"#pf-v-{platform}")
        srcs = card.locator(".pf-preview-box img").evaluate_all("els => els.map(e => e.getAttribute('src'))")
        assert pictures[ratio].file.url in srcs, (platform, srcs)
        assert not any(pictures[r].file.url in srcs for r in pictures if r != ratio), (platform, srcs)
    image_loaded(admin_page, "#pf-media img")
    admin_page.screenshot(path=str(tmp_path / "per-platform.png"), full_page=True)

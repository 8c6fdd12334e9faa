"""Issue 32: the pre-flight check, through both families, and scheduling refusing what would fail.

Each profile's report names machine codes with their subject, the platform's rule and its source:
text in the platform's unit, media (type, size, duration, aspect ratio, frame rate, codec) as the
upload's probe read them, the grant (first comment, alt text), the token's expiry before the
scheduled time, TikTok's creator_info (a fake TikTok speaking its wire format) and the app gates.
"""

from __future__ import annotations

import datetime
import subprocess

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content, Variant
from apps.core import ids
from apps.core.errors import PermissionDenied
from apps.media.models import MediaAsset
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.services.preflight import PreflightFailed
from tests.conftest import png_bytes
from tests.factories import ProfileFactory
from tests.publishing.test_processing_and_unknown import TIKTOK_SCOPES, real_profile

pytestmark = pytest.mark.django_db(transaction=True)

IG_PUBLISH_ONLY = "instagram_business_basic,instagram_business_content_publish"


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


def later(days: float = 0, hours: float = 2) -> str:
    return (timezone.now() + datetime.timedelta(days=days, hours=hours)).isoformat()


def instagram(owner, brand, scopes: str = IG_PUBLISH_ONLY):
    return ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="instagram",
        sandbox=False,
        token_scopes=scopes,
        token_expires_at=timezone.now() + datetime.timedelta(days=50),
        refresh_token_enc="",
    )


def upload(owner, name: str, data: bytes, content_type: str) -> MediaAsset:
    response = owner.client().post(
        "/api/media/upload",
        {"file": SimpleUploadedFile(name, data, content_type=content_type)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return MediaAsset.objects.get(pk=response.json()["data"]["id"])


def bad_instagram_content(owner, brand) -> Content:
    """A caption past Instagram's 2,200, a first comment the grant does not allow, a PNG."""
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["instagram"], prompt="Launch", status=states.APPROVED
    )
    Variant.objects.create(
        content=content, platform="instagram", caption="x" * 2300, first_comment="More in bio"
    )
    asset = upload(owner, "square.png", png_bytes((600, 600)), "image/png")
    MediaAsset.objects.filter(pk=asset.pk).update(content=content)
    return content


def by_code(report: dict) -> dict[str, dict]:
    return {p["code"]: p for p in report["problems"]}


def test_a_contents_preflight_names_each_problem_in_both_families(owner, brand):
    profile = instagram(owner, brand)
    content = bad_instagram_content(owner, brand)

    a = owner.client().post(f"/v1/content/{ids.render(content.pk, 'content')}/preflight", {}, format="json")
    assert a.status_code == 200, a.content
    body = a.json()
    assert body["ok"] is False
    [report] = body["profiles"]
    assert report["profileId"] == ids.render(profile.pk, "profile") and report["platform"] == "instagram"
    assert report["ok"] is False
    problems = by_code(report)
    assert set(problems) == {"text_rule", "feature_not_granted", "media_type"}, problems
    assert problems["text_rule"]["subject"] == "caption" and "2200" in problems["text_rule"]["rule"].replace(
        ",", ""
    )
    assert problems["text_rule"]["source"].startswith("https://developers.facebook.com/")
    assert problems["feature_not_granted"]["subject"] == "firstComment"
    assert "instagram_business_manage_comments" in problems["feature_not_granted"]["rule"]
    assert problems["media_type"]["subject"] == "media[0]" and "png" in problems["media_type"]["rule"]

    b = owner.client().post(f"/api/content/{content.pk}/preflight", {}, format="json")
    assert b.status_code == 200, b.content
    [b_report] = b.json()["data"]["profiles"]
    assert b_report["profileId"] == str(profile.pk)
    assert b_report["problems"] == report["problems"]  # one service, one answer


def test_a_preflight_with_no_profile_to_check_asks_for_them_in_both_families(owner, brand):
    # no profiles in the body and none connected for the content's platforms: which profiles
    # would it be checked against? The same 400 as publishing without targets, never a 500
    content = bad_instagram_content(owner, brand)

    a = owner.client().post(f"/v1/content/{ids.render(content.pk, 'content')}/preflight", {}, format="json")
    assert a.status_code == 400, a.content
    assert a.json()["error"]["details"] == {"profiles": ["At least one profile id is required."]}

    b = owner.client().post(f"/api/content/{content.pk}/preflight", {}, format="json")
    assert b.status_code == 400, b.content
    assert "profiles" in str(b.json())


def test_scheduling_refuses_what_would_fail_with_the_report_unless_an_admin_forces_it(owner, editor, brand):
    profile = instagram(owner, brand)
    content = bad_instagram_content(owner, brand)
    prf = ids.render(profile.pk, "profile")
    url = f"/v1/content/{ids.render(content.pk, 'content')}/schedule"

    refused = owner.client().post(url, {"scheduledFor": later(), "profiles": [prf]}, format="json")
    assert refused.status_code == 409, refused.content
    error = refused.json()["error"]
    assert error["code"] == "CONFLICT" and "pre-flight" in error["message"]
    assert {p["code"] for p in error["details"]["profiles"][0]["problems"]} >= {"text_rule", "media_type"}

    b_refused = owner.client().post(
        "/api/posts/scheduled",
        {"contentId": str(content.pk), "profileIds": [str(profile.pk)], "scheduledFor": later()},
        format="json",
    )
    assert b_refused.status_code == 409, b_refused.content
    assert b_refused.json()["details"]["profiles"][0]["profileId"] == str(profile.pk)
    assert not Publication.objects.filter(content=content).exists()

    # the service refuses a non-admin's force; the API's POSTING policy already wants an admin
    with pytest.raises(PermissionDenied):
        services.publications_schedule(
            content=content, profiles=[profile], scheduled_for=later(), actor=_Actor("editor"), force=True
        )

    forced = owner.client().post(
        url, {"scheduledFor": later(), "profiles": [prf], "force": True}, format="json"
    )
    assert forced.status_code == 200, forced.content
    assert forced.json()["status"] == "scheduled"
    # moving it in time re-checks what a time changes (the token), not the post it was forced with
    moved = owner.client().post(url, {"scheduledFor": later(days=1), "profiles": [prf]}, format="json")
    assert moved.status_code == 200, moved.content

    # fixed: the caption fits, no first comment, a JPEG: the check passes and schedule needs no force
    Variant.objects.filter(content=content).update(caption="Launch day", first_comment="")
    MediaAsset.objects.filter(content=content).update(content_type="image/jpeg")
    ok = owner.client().post(f"/api/content/{content.pk}/preflight", {}, format="json").json()["data"]
    assert ok["ok"] is True and ok["profiles"][0]["problems"] == []


class _Actor:
    def __init__(self, role: str):
        self.role = role

    def has_role(self, minimum: str) -> bool:
        return self.role in ("admin", "owner") or minimum == "viewer"


def test_a_drafts_preflight_counts_text_in_each_platforms_unit_in_both_families(owner, brand):
    x = ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=True)
    bluesky = ProfileFactory(organization=owner.org, brand=brand, platform="bluesky", sandbox=True)
    # 150 CJK characters: X weighs each 2 (300 > 280); Bluesky counts 150 graphemes (<= 300)
    text = "日" * 150
    a = owner.client().post(
        "/v1/content/preflight",
        {"profiles": [ids.render(x.pk, "profile"), ids.render(bluesky.pk, "profile")], "text": text},
        format="json",
    )
    assert a.status_code == 200, a.content
    reports = {r["platform"]: r for r in a.json()["profiles"]}
    assert reports["bluesky"]["ok"] is True
    assert reports["x"]["ok"] is False
    [problem] = reports["x"]["problems"]
    assert problem["code"] == "text_rule" and problem["subject"] == "caption"

    b = owner.client().post(
        "/api/content/preflight",
        {"profileIds": [str(x.pk)], "variants": {"x": {"caption": "Short and sweet"}}},
        format="json",
    )
    assert b.status_code == 200, b.content
    assert b.json()["data"]["ok"] is True

    # bad input is a 4xx in each family's format, never a 500
    unknown = owner.client().post(
        "/api/content/preflight", {"profileIds": [str(x.pk)], "mediaIds": ["nope"]}, format="json"
    )
    assert unknown.status_code == 400 and "details" in unknown.json()
    stray = owner.client().post(
        "/v1/content/preflight",
        {"profiles": [ids.render(x.pk, "profile")], "variants": {"tiktok": {"caption": "hi"}}},
        format="json",
    )
    assert stray.status_code == 400 and stray.json()["error"]["code"] == "VALIDATION_ERROR"


def _video(tmp_path, *, fps: int, seconds: float, codec: str, size: str = "360x640") -> bytes:
    out = tmp_path / "clip.mp4"
    subprocess.run(
        [
            "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi",
            "-i", f"testsrc=size={size}:rate={fps}", "-t", str(seconds),
            "-c:v", codec, "-pix_fmt", "yuv420p", str(out),
        ],
        check=True,
    )  # fmt: skip
    return out.read_bytes()


def test_media_is_held_against_the_platform_data_as_the_probe_read_it(owner, brand, tmp_path):
    profile = instagram(owner, brand, scopes=IG_PUBLISH_ONLY + ",instagram_business_manage_comments")
    video = upload(owner, "clip.mp4", _video(tmp_path, fps=15, seconds=2, codec="mpeg4"), "video/mp4")
    assert video.metadata["codec"] == "mpeg4" and video.metadata["frame_rate"] == 15

    body = {
        "profiles": [ids.render(profile.pk, "profile")],
        "postType": "reel",
        "mediaType": "video",
        "text": "Behind the scenes",
        "mediaIds": [ids.render(video.pk, "media")],
    }
    response = owner.client().post("/v1/content/preflight", body, format="json")
    assert response.status_code == 200, response.content
    problems = by_code(response.json()["profiles"][0])
    assert set(problems) == {"media_frame_rate", "media_codec", "media_duration"}, problems
    assert "23-60" in problems["media_frame_rate"]["rule"]
    assert "h264" in problems["media_codec"]["rule"]
    assert "3-900 s" in problems["media_duration"]["rule"]

    good = upload(owner, "good.mp4", _video(tmp_path, fps=30, seconds=4, codec="libx264"), "video/mp4")
    body["mediaIds"] = [str(good.pk)]
    # Family B names the profiles `profileIds`: Family A's `profiles` is an unknown field there
    wrong = owner.client().post("/api/content/preflight", body, format="json")
    assert wrong.status_code == 400 and "profiles" in wrong.json()["details"]
    del body["profiles"]
    fine = owner.client().post(
        "/api/content/preflight", {**body, "profileIds": [str(profile.pk)]}, format="json"
    )
    assert fine.status_code == 200, fine.content
    assert fine.json()["data"]["profiles"][0]["ok"] is True


def test_a_token_that_expires_before_the_scheduled_time_is_named(owner, brand):
    linkedin = ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="linkedin",
        sandbox=False,
        refresh_token_enc="",
        token_expires_at=timezone.now() + datetime.timedelta(days=3),
    )
    prf = ids.render(linkedin.pk, "profile")
    soon = owner.client().post(
        "/v1/content/preflight",
        {"profiles": [prf], "text": "Hiring", "scheduledFor": later(days=1)},
        format="json",
    )
    assert soon.json()["profiles"][0]["ok"] is True, soon.json()
    late = owner.client().post(
        "/v1/content/preflight",
        {"profiles": [prf], "text": "Hiring", "scheduledFor": later(days=5)},
        format="json",
    )
    [problem] = late.json()["profiles"][0]["problems"]
    assert problem["code"] == "token_expires_before_schedule" and problem["subject"] == "scheduledFor"


def test_tiktoks_creator_info_and_the_app_gate_are_checked(owner, brand, settings, make_fake, monkeypatch):
    from apps.publishing.platforms.tiktok import TikTokClient

    fake = make_fake("tiktok")
    settings.PUBLIC_BASE_URL = "https://postforge.test"
    monkeypatch.setattr(TikTokClient, "settle_timeout", 0)
    profile = real_profile(settings, owner, brand, fake, scopes=TIKTOK_SCOPES)
    settings.TIKTOK_APP_AUDITED = True
    fake.max_video_post_duration_sec = 3
    fake.privacy_level_options = ["SELF_ONLY", "FOLLOWER_OF_CREATOR"]
    settings_clip = _video_bytes_for_tiktok()
    video = upload(owner, "tt.mp4", settings_clip, "video/mp4")
    body = {
        "profileIds": [str(profile.pk)],
        "mediaType": "video",
        "text": "New drop",
        "mediaIds": [str(video.pk)],
        "tiktok": {"privacyLevel": "PUBLIC_TO_EVERYONE", "consent": True, "disableStitch": False},
    }
    response = owner.client().post("/api/content/preflight", body, format="json")
    assert response.status_code == 200, response.content
    problems = by_code(response.json()["data"]["profiles"][0])
    assert set(problems) == {"tiktok_privacy_level", "tiktok_duration", "tiktok_interaction_disabled"}, (
        problems
    )
    assert "SELF_ONLY, FOLLOWER_OF_CREATOR" in problems["tiktok_privacy_level"]["rule"]
    assert problems["tiktok_duration"]["source"].endswith("content-posting-api-reference-query-creator-info")

    settings.TIKTOK_APP_AUDITED = False  # the gate: an unaudited app posts SELF_ONLY only
    body["tiktok"] = {"privacyLevel": "FOLLOWER_OF_CREATOR", "consent": True}
    gated = owner.client().post(
        "/v1/content/preflight",
        {
            "profiles": [ids.render(profile.pk, "profile")],
            "mediaType": "video",
            "text": "New drop",
            "options": {"tiktok": body["tiktok"]},
        },
        format="json",
    )
    codes = {p["code"] for p in gated.json()["profiles"][0]["problems"]}
    assert codes == {"app_gate"}, gated.json()


def _video_bytes_for_tiktok() -> bytes:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        return _video(Path(d), fps=30, seconds=5, codec="libx264", size="360x640")


def test_the_schedule_failing_is_the_same_check_at_the_service(owner, brand):
    profile = instagram(owner, brand)
    content = bad_instagram_content(owner, brand)
    with pytest.raises(PreflightFailed) as refused:
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    assert refused.value.details["profiles"][0]["ok"] is False

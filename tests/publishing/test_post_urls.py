"""A found post's link, checked against its platform's site (platforms.yaml `post_urls`), and
the post id read from it."""

from __future__ import annotations

import pytest

from apps.core.errors import ValidationFailed
from apps.publishing.post_urls import post_link_parse


@pytest.mark.parametrize(
    ("platform", "url", "external_id"),
    [
        ("x", "https://x.com/acmecoffee/status/1790000000000000001", "1790000000000000001"),
        ("x", "https://twitter.com/i/web/status/1790000000000000002?s=20", "1790000000000000002"),
        ("x", "https://mobile.twitter.com/acmecoffee/status/1790000000000000003/", "1790000000000000003"),
        (
            "tiktok",
            "https://www.tiktok.com/@acme.coffee/video/7301234567890123456?lang=en",
            "7301234567890123456",
        ),
        ("tiktok", "https://www.tiktok.com/@acme.coffee/photo/7301234567890123457", "7301234567890123457"),
        ("youtube", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("youtube", "https://www.youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=3", "dQw4w9WgXcQ"),
        ("youtube", "https://youtube.com/shorts/abcDEF12345", "abcDEF12345"),
        ("youtube", "https://youtu.be/abcDEF12345", "abcDEF12345"),
        (
            "linkedin",
            "https://www.linkedin.com/feed/update/urn:li:share:7012345678901234567/",
            "urn:li:share:7012345678901234567",
        ),
        (
            "linkedin",
            "https://www.linkedin.com/feed/update/urn%3Ali%3AugcPost%3A7012345678901234568",
            "urn:li:ugcPost:7012345678901234568",
        ),
        ("pinterest", "https://www.pinterest.com/pin/987654321012345678/", "987654321012345678"),
        ("pinterest", "https://fr.pinterest.com/pin/987654321012345679/", "987654321012345679"),
        (
            "facebook",
            "https://www.facebook.com/acmecoffee/posts/123456789012345",
            "1122334455_123456789012345",
        ),
        ("facebook", "https://www.facebook.com/permalink.php?story_fbid=555&id=999", "999_555"),
        # links that carry no API id: the link is stored, the id is not guessed
        ("instagram", "https://www.instagram.com/p/C1a2B3c4D5e/", ""),
        ("threads", "https://www.threads.net/@acme.coffee/post/C1a2B3c4D5e", ""),
        ("facebook", "https://www.facebook.com/reel/123456789", ""),
        ("linkedin", "https://www.linkedin.com/posts/acme_coffee-activity-7012345678901234567-abcd", ""),
    ],
)
def test_a_platform_link_is_accepted_and_its_post_id_read(platform, url, external_id):
    link = post_link_parse(platform=platform, url=f"  {url} ", account="1122334455")
    assert link.url == url and link.external_id == external_id


@pytest.mark.parametrize(
    ("platform", "url", "reason"),
    [
        ("x", "", "the post's link is required."),
        ("x", "http://x.com/acme/status/1", "it must start with https://."),
        (
            "x",
            "https://x.com.evil.example/acme/status/1",
            "the host must be x.com or twitter.com (got x.com.evil.example).",
        ),
        ("x", "https://evilx.com/acme/status/1", "the host must be x.com or twitter.com (got evilx.com)."),
        (
            "x",
            "https://www.tiktok.com/@acme/video/1",
            "the host must be x.com or twitter.com (got www.tiktok.com).",
        ),
        ("x", "https://user:pw@x.com/acme/status/1", "a post link has no user name, password or port."),
        ("x", "https://x.com:8443/acme/status/1", "a post link has no user name, password or port."),
        ("x", "https://x.com:99999/acme/status/1", "not a valid URL."),
        ("instagram", "javascript:alert(1)", "it must start with https://."),
        ("youtube", "https://" + "a" * 2000, "at most 2000 characters."),
    ],
)
def test_a_link_off_the_platform_is_refused_with_the_reason(platform, url, reason):
    with pytest.raises(ValidationFailed) as refused:
        post_link_parse(platform=platform, url=url)
    assert refused.value.details == {"url": [reason]}
    assert refused.value.message == f"Not a link to a {platform} post: {reason}"


def test_a_sandbox_profiles_link_is_this_servers_sandbox_page(settings):
    settings.PUBLIC_BASE_URL = "http://localhost:8000"
    link = post_link_parse(
        platform="x", url="http://localhost:8000/sandbox/x/acmecoffee/sb_123", sandbox=True
    )
    assert link.external_id == "sb_123"
    with pytest.raises(ValidationFailed) as refused:
        post_link_parse(platform="x", url="https://x.com/acme/status/1", sandbox=True)
    assert refused.value.details == {
        "url": ["a sandbox post's link starts with http://localhost:8000/sandbox/x/."]
    }

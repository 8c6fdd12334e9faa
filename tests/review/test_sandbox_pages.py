"""Item 1 of issue 21: connecting a sandbox profile in a browser, and the sandbox post page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from .conftest import shot

pytestmark = pytest.mark.services


def _connect(serve, platform: str) -> dict:
    answer = serve.v1(
        "POST",
        "/profiles/connect",
        json={"platform": platform, "redirectUri": f"http://localhost:{serve.port}/connected"},
    )
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def _consent(browser, serve, platform: str, button: str):
    """Open the consent page's authUrl in Chromium and press a button; the posted request and
    where the browser landed."""
    started = _connect(serve, platform)
    assert started["authUrl"].startswith(f"http://localhost:{serve.port}/oauth/sandbox/{platform}/authorize")
    context = browser.new_context()
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    consent = page.goto(started["authUrl"])
    assert consent.status == 200
    assert consent.headers["referrer-policy"] == "same-origin"
    shot(page, f"sandbox-consent-{platform}")
    with page.expect_navigation(url=lambda u: "/connected" in u):
        page.click(f"button[value={button}]")
    landed = urlsplit(page.url)
    context.close()
    return started, posts[0], landed


def test_authorize_in_chromium_connects_the_profile(browser, serve):
    started, post, landed = _consent(browser, serve, "x", "authorize")
    # the form post carried the page's real origin (not "null"), so the CSRF check passed
    assert post.headers["origin"] == f"http://localhost:{serve.port}"
    query = parse_qs(landed.query)
    assert landed.path == "/connected"
    assert query["state"] == [started["state"]]
    assert query["profileId"][0].startswith("prf_")
    profile = serve.v1("GET", f"/profiles/{query['profileId'][0]}").json()
    assert profile["platform"] == "x"


def test_deny_in_chromium_returns_access_denied(browser, serve):
    started, post, landed = _consent(browser, serve, "bluesky", "deny")
    assert post.headers["origin"] == f"http://localhost:{serve.port}"
    query = parse_qs(landed.query)
    assert query["error"] == ["access_denied"] and query["state"] == [started["state"]]
    assert "profileId" not in query


def test_a_sandbox_post_link_opens_the_post_as_the_platform_shows_it(browser, serve):
    content = serve.generate(
        "Our new Ethiopian single origin, bright and floral, roasted on Tuesday in small batches "
        "for the café on the corner: jasmine, bergamot and a long honey finish. https://example.com/beans",
        ["instagram"],
        media={"generate": True, "count": 1},
    )
    assert serve.v1("POST", f"/content/{content['id']}/approve").status_code == 200
    profiles = serve.v1("GET", "/profiles").json()["data"]
    demo = next(p for p in profiles if p["platform"] == "instagram")
    published = serve.v1("POST", f"/content/{content['id']}/publish", json={"profiles": [demo["id"]]})
    assert published.status_code in (200, 202), published.text
    pub = published.json()["publications"][0]
    assert pub["status"] == "published"
    url = pub["url"]
    assert url.startswith(f"http://localhost:{serve.port}/sandbox/instagram/demo.sandbox/")

    # stored as a path: an answer made under another PUBLIC_BASE_URL (a port change) points there
    stored = serve.python(
        "from apps.publishing.models import Publication\n"
        f"print(Publication.objects.get(external_id={pub['externalId']!r}).url)"
    ).strip()
    assert stored == url.removeprefix(f"http://localhost:{serve.port}")
    moved = serve.python(
        "from django.conf import settings; settings.PUBLIC_BASE_URL = 'http://localhost:9123'\n"
        "from apps.publishing.models import Publication\n"
        "from apps.content.serializers import present_publication\n"
        f"print(present_publication(Publication.objects.get(external_id={pub['externalId']!r}), family='v1')['url'])"
    ).strip()
    assert moved == f"http://localhost:9123{stored}"

    assert requests.get(url.replace("localhost", "127.0.0.1"), timeout=10).status_code == 200
    assert requests.get(url + "0", timeout=10).status_code == 404

    context = browser.new_context(viewport={"width": 600, "height": 900})
    page = context.new_page()
    page.goto(url)
    post = page.locator("article.pv-instagram")
    assert post.locator(".pv-name").inner_text() == "Demo (sandbox)"
    assert post.locator(".pv-handle").inner_text() == "@demo.sandbox"
    img = post.locator(".pv-media img")
    img.wait_for()
    assert page.evaluate("(el) => el.complete && el.naturalWidth > 0", img.element_handle())
    # Instagram folds a long caption behind "… more" at about 125 characters
    assert post.locator("label.pv-more").inner_text() == "… more"
    assert not post.locator(".pv-rest").is_visible()
    shown = post.locator(".pv-text").evaluate("(el) => el.firstChild ? el.innerText : ''")
    assert len(shown.split("… more")[0]) <= 130
    assert post.locator(".pv-hashtag").count() >= 1
    shot(page, "sandbox-post-instagram-folded")
    post.locator("label.pv-more").click()
    assert post.locator(".pv-rest").is_visible() and not post.locator("label.pv-more").is_visible()
    rest = post.locator(".pv-rest").inner_text().strip()
    assert rest and rest in post.locator(".pv-text").inner_text()
    assert "#postforge" in rest  # the hashtags come last, after the fold
    shot(page, "sandbox-post-instagram-open")
    context.close()

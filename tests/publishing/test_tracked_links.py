"""Tracked links (issue 32): a brand's UTM templates and Postforge short links applied at
publish time, the `/l/<code>` redirect counting day-level clicks, and the clicks in both
analytics families and the export.

The post goes out through the X fake (tests/publishing/fakes.py: the real X client, a local
server speaking X's wire format); the redirect runs through Django's test client here and
against the real server process in test_tracked_links_live.py."""

from __future__ import annotations

import csv
import datetime
import io
import re
import secrets
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Campaign, Content, Variant
from apps.publishing import services
from apps.publishing.links import links_track, referrer_platform, url_tag
from apps.publishing.models import LinkClickDay, Publication, ShortLink
from tests.publishing.test_platform_limits import X_PUBLISH
from tests.publishing.test_processing_and_unknown import real_profile, run_due

pytestmark = pytest.mark.django_db(transaction=True)

CAPTION = "Our autumn menu is out: https://shop.example.com/menu?lang=en#latte (and more)."
TRACKING = {
    "enabled": True,
    "utm": {"utm_source": "{platform}", "utm_medium": "social", "utm_campaign": "{campaign}"},
    "platforms": {"x": {"utm_content": "{content_id}", "utm_term": "{brand}"}},
    "shortLinks": True,
}


def published(owner, x_fake, settings, *, tracking=TRACKING, caption=CAPTION) -> tuple[Publication, Brand]:
    settings.PUBLIC_BASE_URL = "https://pf.example.test"
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    answer = owner.client().put(f"/v1/brands/brd_{brand.pk.hex}", {"linkTracking": tracking}, format="json")
    assert answer.status_code == 200, answer.json()
    brand.refresh_from_db()
    profile = real_profile(settings, owner, brand, x_fake, scopes=" ".join(sorted(X_PUBLISH)))
    campaign = Campaign.objects.create(organization=owner.org, name="Autumn Launch")
    content = Content.objects.create(
        organization=owner.org,
        brand=brand,
        platforms=["x"],
        prompt="Autumn",
        status=states.REVIEW,
        media_type="text" if "text" in Content._meta.get_field("media_type").choices else "image",
        campaign=campaign,
    )
    Variant.objects.create(content=content, platform="x", caption=caption)
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=timezone.now() + datetime.timedelta(minutes=5)
    )
    pub = run_due(Publication.objects.get(content=content))
    assert pub.status == "published", (pub.status, pub.last_error)
    return pub, brand


def test_a_published_post_carries_the_short_link_to_the_utm_tagged_url(owner, x_fake, settings):
    pub, brand = published(owner, x_fake, settings)
    [post] = x_fake.posts
    link = ShortLink.objects.get(publication=pub)
    short = f"https://pf.example.test/l/{link.code}"
    # what X received: the short link in place of the URL, the sentence's punctuation kept
    assert post["text"] == f"Our autumn menu is out: {short} (and more)."
    target = urlsplit(link.target_url)
    assert (target.scheme, target.netloc, target.path, target.fragment) == (
        "https",
        "shop.example.com",
        "/menu",
        "latte",
    )
    assert parse_qs(target.query) == {
        "lang": ["en"],
        "utm_source": ["x"],
        "utm_medium": ["social"],
        "utm_campaign": ["autumn-launch"],
        "utm_content": [str(pub.content_id)],
        "utm_term": [brand.slug],
    }
    # the approved caption is stored as written
    assert Variant.objects.get(content=pub.content).caption == CAPTION


def test_without_short_links_the_post_carries_the_utm_tagged_url_itself(owner, x_fake, settings):
    pub, _ = published(owner, x_fake, settings, tracking={**TRACKING, "shortLinks": False})
    [post] = x_fake.posts
    prefix, url, suffix = re.split(r"(https://\S+)", post["text"])
    assert (prefix, suffix) == ("Our autumn menu is out: ", " (and more).")
    parts = urlsplit(url)
    assert (parts.netloc, parts.path, parts.fragment) == ("shop.example.com", "/menu", "latte")
    query = parse_qs(parts.query)
    assert query["lang"] == ["en"] and query["utm_source"] == ["x"] and query["utm_medium"] == ["social"]
    assert query["utm_content"] == [str(pub.content_id)]
    assert not ShortLink.objects.exists()


def test_a_brand_with_tracking_off_publishes_links_untouched(owner, x_fake, settings):
    published(owner, x_fake, settings, tracking={"enabled": False, "shortLinks": True})
    assert x_fake.posts[0]["text"] == CAPTION and not ShortLink.objects.exists()


def test_the_redirect_counts_a_day_level_click_and_analytics_show_it(owner, x_fake, settings):
    pub, _ = published(owner, x_fake, settings)
    link = ShortLink.objects.get(publication=pub)
    client = owner.client()
    for referer, country in (("https://t.co/abc", "DE"), ("https://t.co/abc", "DE"), ("", "")):
        answer = client.get(f"/l/{link.code}", HTTP_REFERER=referer, HTTP_CF_IPCOUNTRY=country)
        assert answer.status_code == 302 and answer["Location"] == link.target_url
        assert answer["Cache-Control"] == "private, no-store"
    assert client.head(f"/l/{link.code}").status_code == 302  # a HEAD is no click
    rows = {(r.day, r.referrer, r.country): r.count for r in LinkClickDay.objects.all()}
    today = timezone.localdate()
    assert rows == {(today, "x", "DE"): 2, (today, "direct", ""): 1}
    # nothing about the visitor: the row's fields are the link, the day, the two labels, a count
    assert {f.name for f in LinkClickDay._meta.get_fields()} == {
        "id",
        "link",
        "day",
        "referrer",
        "country",
        "count",
    }

    a = client.get("/v1/analytics/content", {"contentId": f"cnt_{pub.content_id.hex}", "period": "7d"})
    assert a.status_code == 200, a.json()
    assert a.json()["clicks"] == {
        "total": 3,
        "source": "postforge_short_link",
        "byReferrer": {"x": 2, "direct": 1},
        "byCountry": {"DE": 2},
    }
    b = client.get("/api/analytics/content")
    assert b.status_code == 200, b.json()
    [row] = [r for r in b.json()["data"] if r["contentId"] == str(pub.content_id)]
    assert (row["clicks"], row["clicksSource"]) == (3, "postforge_short_link")
    for prefix in ("/v1", "/api"):
        export = client.get(f"{prefix}/analytics/export", {"format": "csv"})
        assert export.status_code == 200
        lines = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
        [line] = [
            r for r in lines if r["publicationId"].endswith(pub.pk.hex) or r["publicationId"] == str(pub.pk)
        ]
        assert (line["shortLinkClicks"], line["shortLinkClicksSource"]) == ("3", "postforge_short_link")


@pytest.mark.parametrize(
    "path",
    ["/l/zzzzzzzz", "/l/short", "/l/" + "a" * 300, "/l/%00%ff", "/l/..%2f..%2fadmin", "/l/AAAA%20AAA"],
)
def test_junk_and_unknown_codes_are_404_never_a_redirect(client, path):
    answer = client.get(path)
    assert answer.status_code == 404 and "Location" not in answer


def test_the_redirect_is_rate_limited_per_client(owner, x_fake, settings):
    settings.SHORT_LINK_RATE_LIMIT = 3
    pub, _ = published(owner, x_fake, settings)
    code = ShortLink.objects.get(publication=pub).code
    client = owner.client()
    address = f"127.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"
    statuses = [client.get(f"/l/{code}", REMOTE_ADDR=address).status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]
    assert LinkClickDay.objects.get().count == 3


@pytest.mark.parametrize("prefix", ["/v1", "/api"])
def test_brand_endpoints_read_and_validate_link_tracking(owner, prefix):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    ident = f"brd_{brand.pk.hex}" if prefix == "/v1" else str(brand.pk)
    client = owner.client()
    before = client.get(f"{prefix}/brands/{ident}").json()
    before = before.get("data", before)
    assert before["linkTracking"]["enabled"] is False
    assert before["linkTracking"]["utm"]["utm_source"] == "{platform}"
    answer = client.put(
        f"{prefix}/brands/{ident}",
        {"linkTracking": {"enabled": True, "platforms": {"linkedin": {"utm_medium": "organic"}}}},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    body = answer.json().get("data", answer.json())
    assert body["linkTracking"]["enabled"] is True
    assert body["linkTracking"]["platforms"] == {"linkedin": {"utm_medium": "organic"}}
    for bad in (
        {"utm": {"utm_source": "{nope}"}},
        {"platforms": {"myspace": {}}},
        {"shortLinks": "yes"},
        {"colour": 1},
        "on",
    ):
        refused = client.put(f"{prefix}/brands/{ident}", {"linkTracking": bad}, format="json")
        assert refused.status_code == 400, (bad, refused.status_code, refused.content[:300])
        assert "linkTracking" in refused.content.decode()


def test_utm_parameters_replace_the_same_keys_and_keep_the_rest():
    assert (
        url_tag("https://a.example/p?utm_source=old&x=1#f", {"utm_source": "x"})
        == "https://a.example/p?x=1&utm_source=x#f"
    )
    assert referrer_platform("https://l.facebook.com/l.php?u=1") == "facebook"
    assert referrer_platform("https://evil-x.com/") == "other"
    assert referrer_platform("https://x.com.evil.example/") == "other"
    assert referrer_platform("not a url") == "other"
    assert referrer_platform("") == "direct"


def test_own_short_links_are_not_tracked_twice(owner, x_fake, settings):
    pub, _ = published(owner, x_fake, settings)
    text = x_fake.posts[0]["text"]
    assert links_track(text=text, publication=pub) == text


def test_the_admin_edits_a_brands_link_tracking_and_refuses_bad_templates(owner, admin_client):
    import json

    brand = Brand.objects.get(organization=owner.org, is_default=True)
    url = f"/admin/brands/brand/{brand.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and "link_tracking" in page.content.decode()
    form = {
        "organization": str(owner.org.pk),
        "name": brand.name,
        "slug": brand.slug,
        "tone": "[]",
        "hashtags": "[]",
        "fonts": "[]",
        "generation_settings": "{}",
        "settings": "{}",
        "metadata": "{}",
    }
    bad = admin_client.post(url, {**form, "link_tracking": json.dumps({"utm": {"utm_source": "{who}"}})})
    assert bad.status_code == 200 and "Unknown placeholder {who}" in bad.content.decode()
    good = admin_client.post(
        url, {**form, "link_tracking": json.dumps({"enabled": True, "shortLinks": True})}
    )
    assert good.status_code == 302, good.content.decode()[:2000]
    brand.refresh_from_db()
    assert brand.link_tracking["enabled"] is True and brand.link_tracking["utm"]["utm_source"] == "{platform}"

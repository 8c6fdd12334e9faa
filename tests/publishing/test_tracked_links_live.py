"""Tracked links against the real server process (uvicorn on config.asgi, as `serve` runs it):
a post published through the X fake carries a short link; `GET /l/<code>` on the server
redirects to the UTM-tagged URL, and the click shows in that post's analytics in both families
and in the CSV export. Services mode: the server shares the test's PostgreSQL database."""

from __future__ import annotations

import csv
import io

import pytest
import requests

from apps.publishing.models import LinkClickDay, ShortLink
from tests.live import asgi_server
from tests.publishing.test_tracked_links import published

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_short_link_on_the_real_server_redirects_and_its_click_reaches_analytics(owner, x_fake, settings):
    pub, _ = published(owner, x_fake, settings)
    link = ShortLink.objects.get(publication=pub)
    assert f"/l/{link.code}" in x_fake.posts[0]["text"]
    auth = {"Authorization": f"Bearer {owner.key}"}
    with asgi_server(PUBLIC_BASE_URL=settings.PUBLIC_BASE_URL) as base:
        answer = requests.get(
            f"{base}/l/{link.code}",
            headers={"Referer": "https://www.linkedin.com/feed/", "CF-IPCountry": "fr"},
            allow_redirects=False,
            timeout=30,
        )
        assert answer.status_code == 302 and answer.headers["Location"] == link.target_url
        assert "utm_source=x" in answer.headers["Location"]
        for junk in ("zzzzzzzz", "%2e%2e", "a" * 500):
            assert requests.get(f"{base}/l/{junk}", allow_redirects=False, timeout=30).status_code == 404

        content_a = f"cnt_{pub.content_id.hex}"
        a = requests.get(
            f"{base}/v1/analytics/content", params={"contentId": content_a}, headers=auth, timeout=30
        )
        assert a.status_code == 200, a.text
        assert a.json()["clicks"]["total"] == 1 and a.json()["clicks"]["source"] == "postforge_short_link"
        assert a.json()["clicks"]["byReferrer"] == {"linkedin": 1} and a.json()["clicks"]["byCountry"] == {
            "FR": 1
        }
        b = requests.get(f"{base}/api/analytics/content", headers=auth, timeout=30)
        assert b.status_code == 200, b.text
        [row] = [r for r in b.json()["data"] if r["contentId"] == str(pub.content_id)]
        assert (row["clicks"], row["clicksSource"]) == (1, "postforge_short_link")
        export = requests.get(
            f"{base}/api/analytics/export", params={"format": "csv"}, headers=auth, timeout=30
        )
        assert export.status_code == 200
        lines = list(csv.DictReader(io.StringIO(export.text)))
        [line] = [r for r in lines if str(pub.pk) in r["publicationId"] or pub.pk.hex in r["publicationId"]]
        assert (line["shortLinkClicks"], line["shortLinkClicksSource"]) == ("1", "postforge_short_link")
    [day] = LinkClickDay.objects.all()
    assert (day.referrer, day.country, day.count) == ("linkedin", "FR", 1)

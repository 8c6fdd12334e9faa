"""Family B analytics, export, best times and the failures feed, on the hand-computed fixture."""

from __future__ import annotations

import csv
import datetime
import io
import json

import pytest
from django.utils import timezone

from apps.core import ids
from apps.publishing.models import Publication
from tests.analytics.fixtures import build, publish
from tests.factories import ProfileFactory
from tests.openapi_check import assert_conforms, declared, media_types

pytestmark = pytest.mark.django_db
PERIOD = "startDate=2026-03-01&endDate=2026-04-30"


@pytest.fixture
def posts(owner, outsider):
    return build(owner.org, outsider.org)


def test_content_metrics_sorted_by_engagement_and_paginated(owner, posts):
    client = owner.token_client()
    body = client.get(f"/api/analytics/content?{PERIOD}&sort=engagement:desc&limit=2").json()
    assert [r["engagement"] for r in body["data"]] == [50, 40]
    assert body["pagination"]["total"] == 4 and body["pagination"]["hasNext"]
    assert_conforms("api", "/analytics/content", "get", 200, body)
    rest = client.get(f"/api/analytics/content?{PERIOD}&sort=engagement:desc&limit=2&page=2").json()["data"]
    assert [r["engagement"] for r in rest] == [20, 0]
    assert (
        rest[1]["views"] is None and rest[1]["engagementRate"] is None
    )  # no snapshot: no figures, not zeros
    assert_conforms("api", "/analytics/content", "get", 200, {"data": rest, "pagination": body["pagination"]})
    only_x = client.get(f"/api/analytics/content?{PERIOD}&platform=x").json()["data"]
    assert sorted(r["engagement"] for r in only_x) == [0, 50]
    assert client.get("/api/analytics/content?sort=virality:desc").status_code in (400, 422)


def test_profile_report_and_period_validation(owner, posts):
    client = owner.token_client()
    pid = ids.render(posts["ig"].pk, "profile")
    # the fixture's posts are in spring 2026; a 730-day period from now covers them
    body = client.get(f"/api/analytics/profiles?profileId={pid}&period=730d").json()["data"]
    # a prf_ id is read too, and the answer names the profile the Family B way: a UUID (issue 20)
    assert body["profileId"] == str(posts["ig"].pk) and body["period"] == "730d"
    assert body["metrics"]["publishedContent"] == 2
    assert body["metrics"]["engagement"] == {"total": 60, "average": 30.0}
    for bad in ("0d", "731d", "30", "month"):
        assert client.get(f"/api/analytics/profiles?profileId={pid}&period={bad}").status_code in (400, 422)
    other = ids.render(posts["other"].pk, "profile")
    assert client.get(f"/api/analytics/profiles?profileId={other}").status_code == 404
    assert client.get(f"/api/analytics/best-times?profileId={other}").status_code == 404


def test_overview_puts_the_previous_period_beside_the_current(owner):
    ig = ProfileFactory(organization=owner.org, platform="instagram")
    now = timezone.now()
    publish(owner.org, ig, now - datetime.timedelta(days=3), reach=100, likes=30)
    publish(owner.org, ig, now - datetime.timedelta(days=10), reach=100, likes=10)
    publish(owner.org, ig, now - datetime.timedelta(days=40), reach=50, likes=20)
    body = owner.token_client().get("/api/analytics/overview?period=30d").json()["data"]
    assert body["engagement"] == {"current": 40, "previous": 20, "changePercent": 100.0}
    assert body["reach"] == {"current": 200, "previous": 50, "changePercent": 300.0}
    assert body["topPosts"][0]["engagement"] == 30 and body["topPosts"][0]["engagementRateBasis"] == "reach"


@pytest.mark.parametrize("path", ["/api/analytics/export", "/v1/analytics/export"])
def test_export_streams_every_post_with_every_stored_metric(owner, posts, path):
    client = owner.token_client() if path.startswith("/api") else owner.client()
    response = client.get(f"{path}?format=csv&{PERIOD}")
    assert response.status_code == 200 and response.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 4  # the other organization's post is not there
    by_id = {r["publicationId"]: r for r in rows}
    # each family's ids, as its REST answers them: pub_/cnt_/prf_ in A, UUIDs in B (issue 28)
    b = path.startswith("/api")
    pub_id = (lambda p: str(p.pk)) if b else (lambda p: ids.render(p.pk, "publication"))
    a = by_id[pub_id(posts["A"])]
    assert (a["contentId"], a["profileId"]) == (
        (str(posts["A"].content_id), str(posts["A"].profile_id))
        if b
        else (ids.render(posts["A"].content_id, "content"), ids.render(posts["A"].profile_id, "profile"))
    )
    assert (a["reach"], a["likes"], a["engagement"], a["engagementRateBasis"]) == ("200", "10", "20", "reach")
    d = by_id[pub_id(posts["D"])]
    assert d["likes"] == "" and "no snapshot" in d["unavailable"]
    as_json = client.get(f"{path}?format=json&{PERIOD}")
    assert as_json["Content-Type"] == "application/json"
    body = json.loads(b"".join(as_json.streaming_content))
    assert len(body["data"]) == 4
    assert {r["publicationId"] for r in body["data"]} == set(by_id)  # the same ids as the CSV
    # the schema declares both bodies as they are streamed, CSV columns in the JSON rows' order
    family = path.split("/")[1]
    assert_conforms(family, "/analytics/export", "get", 200, body)
    assert (
        list(rows[0])
        == declared(family, "/analytics/export", "get", 200)["properties"]["data"]["items"]["required"]
    )
    assert media_types(family, "/analytics/export", "get", 200) == ["text/csv", "application/json"]
    assert response["Content-Type"].split(";")[0] == "text/csv"
    bad = client.get(f"{path}?format=xml")
    assert bad.status_code in (400, 422)
    assert_conforms(family, "/analytics/export", "get", bad.status_code, bad.json())


def test_best_times_from_history_or_the_platform_default_said_so(owner):
    ig = ProfileFactory(organization=owner.org, platform="instagram", settings={"timezone": "Europe/Paris"})
    pid = ids.render(ig.pk, "profile")
    client = owner.token_client()
    thin = client.get(f"/api/analytics/best-times?profileId={pid}").json()["data"]
    assert thin["source"] == "platform-default" and thin["sampleSize"] == 0 and "defaults" in thin["note"]
    monday_9_paris = datetime.datetime(2026, 6, 1, 7, 0, tzinfo=datetime.UTC)
    for week in range(10):
        publish(owner.org, ig, monday_9_paris - datetime.timedelta(weeks=week), reach=100, likes=50)
        publish(owner.org, ig, monday_9_paris - datetime.timedelta(weeks=week, hours=-5), reach=100, likes=5)
    body = client.get(f"/api/analytics/best-times?profileId={pid}").json()["data"]
    assert body["source"] == "history" and body["sampleSize"] == 20
    assert body["slots"][0] == {"weekday": 1, "hour": 9, "posts": 10, "avgEngagement": 50.0}


def test_monitoring_feed_groups_failures_by_cause(owner, outsider, posts):
    for pub in (posts["B"], posts["C"], posts["D"]):
        Publication.objects.filter(pk=pub.pk).update(
            status="failed", error_code="rate_limited", last_error="Too many calls"
        )
    Publication.objects.filter(pk=posts["E"].pk).update(
        status="failed", error_code="secret", last_error="other org"
    )
    ig = posts["ig"]
    ig.token_status = "revoked"
    ig.save(update_fields=["token_status"])
    client = owner.token_client()
    groups = client.get("/api/monitoring/errors").json()["data"]["errors"]
    publishing = [g for g in groups if g["kind"] == "publishing"]
    assert sorted((g["platform"], g["count"]) for g in publishing) == [("instagram", 1), ("x", 2)]
    # Family B's ids, as GET /api/content answers them (not Family A's cnt_/prf_, issue 28)
    contents = {str(posts[letter].content_id) for letter in "BCD"}
    assert all(g["object"]["id"] in contents for g in publishing), publishing
    assert all(g["object"]["url"] == f"/api/content/{g['object']['id']}" for g in publishing)
    assert "other org" not in json.dumps(groups)
    assert "cnt_" not in json.dumps(groups) and "prf_" not in json.dumps(groups)
    token = [g for g in groups if g["kind"] == "token_refresh"]
    assert token and token[0]["object"]["id"] == str(ig.pk)
    assert token[0]["object"]["url"] == f"/api/profiles/{ig.pk}"
    only_x = client.get("/api/monitoring/errors?kind=publishing&platform=x").json()["data"]["errors"]
    assert [g["count"] for g in only_x] == [2]
    assert client.get("/api/monitoring/errors?kind=nope").status_code in (400, 422)


def test_unknown_outcomes_are_their_own_kind_in_the_selector(owner, outsider, posts):
    from apps.analytics import monitoring

    for pub in (posts["C"], posts["D"]):
        Publication.objects.filter(pk=pub.pk).update(
            status="unknown",
            outcome_unknown=True,
            error_code="timeout",
            last_error="No answer (the post may exist)",
        )
    Publication.objects.filter(pk=posts["A"].pk).update(status="unknown", outcome_unknown=True)
    Publication.objects.filter(pk=posts["E"].pk).update(status="unknown", outcome_unknown=True)  # another org
    Publication.objects.filter(pk=posts["B"].pk).update(status="failed", error_code="rate_limited")
    groups = monitoring.errors(owner.org, kind="publishing_unknown")
    assert sorted((g["platform"], g["count"], g["cause"]) for g in groups) == [
        ("instagram", 1, "outcome_unknown"),
        ("x", 2, "outcome_unknown"),
    ]
    by_platform = {g["platform"]: g for g in groups}
    assert by_platform["instagram"]["object"] == {
        "type": "publication",
        "id": str(posts["A"].pk),  # Family B's ids (issue 28)
        "url": f"/api/content/{posts['A'].content_id}",
    }
    x_example = by_platform["x"]["object"]
    assert x_example["type"] == "publication"
    example = {str(posts[k].pk): posts[k] for k in ("C", "D")}[x_example["id"]]
    assert x_example["url"] == f"/api/content/{example.content_id}"  # its own content
    assert "2 publications on x may have been posted" in by_platform["x"]["message"]
    # not mixed into the failures, and filtered like them
    assert [g["cause"] for g in monitoring.errors(owner.org, kind="publishing")] == ["rate_limited"]
    assert [g["count"] for g in monitoring.errors(owner.org, kind="publishing_unknown", platform="x")] == [2]
    assert [
        g["count"] for g in monitoring.errors(owner.org, kind="publishing_unknown", profile_id=posts["ig"].pk)
    ] == [1]
    assert {g["kind"] for g in monitoring.errors(owner.org)} == {"publishing", "publishing_unknown"}
    assert [g["count"] for g in monitoring.errors(outsider.org, kind="publishing_unknown")] == [1]


def test_unknown_outcomes_are_in_the_feed_endpoint_for_their_organization_only(owner, outsider, posts):
    Publication.objects.filter(pk=posts["C"].pk).update(status="unknown", outcome_unknown=True)
    Publication.objects.filter(pk=posts["E"].pk).update(status="unknown", outcome_unknown=True)
    client = owner.token_client()
    body = client.get("/api/monitoring/errors").json()
    [group] = [g for g in body["data"]["errors"] if g["kind"] == "publishing_unknown"]
    pid, cid = str(posts["C"].pk), str(posts["C"].content_id)  # Family B's ids (issue 28)
    assert group == {
        "kind": "publishing_unknown",
        "platform": "x",
        "cause": "outcome_unknown",
        "message": "1 publication on x may have been posted and could not be checked: look on the "
        "platform and confirm each in the admin.",
        "count": 1,
        "lastAt": group["lastAt"],
        "object": {"type": "publication", "id": pid, "url": f"/api/content/{cid}"},
    }
    assert_conforms("api", "/monitoring/errors", "get", 200, body)
    # the URL reads the content, and the publication is among its publications
    content = client.get(group["object"]["url"])
    assert content.status_code == 200
    assert [p["status"] for p in content.json()["data"]["publications"]] == ["unknown"]
    only = client.get("/api/monitoring/errors?kind=publishing_unknown&platform=instagram").json()["data"][
        "errors"
    ]
    assert only == []
    # the outsider sees its own unknown publication, never Acme's
    theirs = (
        outsider.token_client().get("/api/monitoring/errors?kind=publishing_unknown").json()["data"]["errors"]
    )
    assert [g["object"]["id"] for g in theirs] == [str(posts["E"].pk)]
    acme_profile = ids.render(posts["x"].pk, "profile")
    assert outsider.token_client().get(f"/api/monitoring/errors?profileId={acme_profile}").status_code == 404


def test_failed_webhook_deliveries_are_in_the_feed(owner, outsider):
    from apps.webhooks.models import WebhookDelivery, WebhookEndpoint

    endpoint = WebhookEndpoint.objects.create(
        organization=owner.org, url="https://hooks.example.com/pf", events=["*"], secret="whsec_x"
    )
    for n in range(3):
        WebhookDelivery.objects.create(
            organization=owner.org,
            endpoint=endpoint,
            message_id=f"evt_{n}",
            event_type="content.published",
            status="failed",
            last_status_code=503,
        )
    groups = owner.token_client().get("/api/monitoring/errors?kind=webhook_delivery").json()["data"]["errors"]
    assert len(groups) == 1 and groups[0]["count"] == 3 and groups[0]["cause"] == "http_503"
    delivery = WebhookDelivery.objects.filter(endpoint=endpoint).order_by("pk").first()
    assert groups[0]["object"] == {  # Family B's ids (issue 28)
        "type": "delivery",
        "id": str(delivery.pk),
        "url": f"/api/webhooks/{endpoint.pk}/deliveries/{delivery.pk}",
    }
    assert outsider.token_client().get("/api/monitoring/errors").json()["data"]["errors"] == []

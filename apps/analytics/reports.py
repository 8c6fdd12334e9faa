"""Family B reports, the export and best times (reads; all aggregation in the database)."""

from __future__ import annotations

import csv
import datetime
import io
import json

from django.db.models import Count, F, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce, ExtractHour, ExtractIsoWeekDay
from django.utils import timezone

from apps.content import states
from apps.content.models import Content
from apps.core import ids
from apps.publishing.models import Publication

from . import selectors as sel
from .models import POST_METRICS, PostSnapshot


def _window(days: int, now=None):
    now = now or timezone.now()
    return now - datetime.timedelta(days=days), now


def profile_report(profile, days: int) -> dict:
    """One query: content counts by status and engagement of the period's posts."""
    start, end = _window(days)
    qs = sel.with_latest(
        Publication.objects.filter(profile=profile).filter(
            Q(scheduled_for__gte=start, scheduled_for__lt=end)
            | Q(published_at__gte=start, published_at__lt=end)
        )
    )
    agg = qs.aggregate(
        total=Count("content", distinct=True),
        published=Count("content", distinct=True, filter=Q(status=Publication.PUBLISHED)),
        scheduled=Count(
            "content", distinct=True, filter=Q(status__in=(Publication.SCHEDULED, Publication.QUEUED))
        ),
        engagement=Sum(sel.engagement_expr(), filter=Q(snap__publication__isnull=False)),
        measured=Count("id", filter=Q(snap__publication__isnull=False)),
        rate_sum=Sum(sel.rate_expr()),
        rated=Count(sel.rate_expr()),
    )
    total_eng = int(agg["engagement"] or 0)
    return {
        "profileId": str(profile.pk),  # Family B's reports: a UUID, as everywhere in /api
        "period": f"{days}d",
        "metrics": {
            "totalContent": agg["total"],
            "publishedContent": agg["published"],
            "scheduledContent": agg["scheduled"],
            "engagement": {
                "total": total_eng,
                "average": round(total_eng / agg["measured"], 2) if agg["measured"] else 0.0,
            },
            "avgEngagementRate": round(agg["rate_sum"] / agg["rated"], 4) if agg["rated"] else None,
        },
        "engagementRateBasis": {"formula": sel.RATE_FORMULA, "average": "mean of per-post rates (percent)"},
    }


def overview(organization, days: int) -> dict:
    """The organization at a glance: this period beside the previous one of the same length.

    Four queries: content by status, publications by platform and status (failures among
    them), this and the previous period's totals, the top posts."""
    start, end = _window(days)
    prev_start = start - (end - start)
    by_status = dict(
        Content.objects.for_organization(organization)
        .filter(created_at__gte=start, created_at__lt=end)
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    pubs = list(
        Publication.objects.filter(organization=organization, updated_at__gte=start)
        .values("profile__platform", "status")
        .annotate(n=Count("id"))
        .order_by("profile__platform", "status")
    )
    posts = sel.with_latest(
        Publication.objects.filter(
            organization=organization,
            status=Publication.PUBLISHED,
            published_at__gte=prev_start,
            published_at__lt=end,
        )
    )
    cur, prev = Q(published_at__gte=start), Q(published_at__lt=start)
    agg = posts.aggregate(
        reach=Sum(sel.reach_expr(), filter=cur),
        prev_reach=Sum(sel.reach_expr(), filter=prev),
        engagement=Sum(sel.engagement_expr(), filter=cur),
        prev_engagement=Sum(sel.engagement_expr(), filter=prev),
        posts=Count("id", filter=cur),
        prev_posts=Count("id", filter=prev),
    )
    top = list(
        posts.filter(cur, snap__publication__isnull=False)
        .annotate(eng=sel.engagement_expr(), rate=sel.rate_expr(), basis=sel.basis_expr())
        .values("content_id", "profile__platform", "eng", "rate", "basis")
        .order_by("-eng")[:5]
    )
    # the same rows as `pubs` (changed in the period): its failed ones, without another query
    failures = sum(p["n"] for p in pubs if p["status"] == Publication.FAILED)

    def pair(now_value, before):
        now_value, before = int(now_value or 0), int(before or 0)
        trend = None if before == 0 else round((now_value - before) * 100.0 / before, 2)
        return {"current": now_value, "previous": before, "changePercent": trend}

    return {
        "period": {
            "days": days,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "previousStart": prev_start.isoformat(),
        },
        "contentByStatus": {states.word_b(status): n for status, n in by_status.items()},
        "publications": [
            {"platform": p["profile__platform"], "status": p["status"], "count": p["n"]} for p in pubs
        ],
        "posts": pair(agg["posts"], agg["prev_posts"]),
        "reach": pair(agg["reach"], agg["prev_reach"]),
        "engagement": pair(agg["engagement"], agg["prev_engagement"]),
        "topPosts": [
            {
                "contentId": str(t["content_id"]),  # Family B's id, as GET /api/content answers it
                "platform": t["profile__platform"],
                "engagement": int(t["eng"]),
                "engagementRate": t["rate"],
                "engagementRateBasis": t["basis"],
            }
            for t in top
        ],
        "failures": failures,
    }


# --- per-content metrics ------------------------------------------------------------------

CONTENT_SORTS = {
    "engagement": "engagement",
    "views": "views",
    "reach": "reach",
    "likes": "likes",
    "publishedAt": "published_at",
    "createdAt": "created_at",
}


def _snap_sum(expr):
    return Subquery(
        PostSnapshot.objects.filter(content=OuterRef("pk"), latest=True)
        .order_by()
        .values("content")
        .annotate(v=Sum(expr))
        .values("v")[:1]
    )


def content_metric_rows():
    """Content with a published post, with its posts' latest figures summed (the list of
    `GET /api/analytics/content`: the view scopes it to the caller's organization and its
    FilterSet, apps.analytics.filters, narrows it)."""
    eng = F("engagement")
    return (
        Content.objects.filter(publications__status=Publication.PUBLISHED)
        .distinct()
        .annotate(
            views=_snap_sum(F("views")),
            reach=_snap_sum(Coalesce(F("reach"), F("impressions"), F("views"))),
            likes=_snap_sum(F("likes")),
            comments=_snap_sum(F("comments")),
            shares=_snap_sum(F("shares")),
            engagement=Coalesce(_snap_sum(eng), 0),
            clicks=sel.clicks_expr("publication__content"),
        )
    )


def present_content_metrics(c) -> dict:
    rate = round(c.engagement * 100.0 / c.reach, 4) if c.reach else None
    return {
        # Family B's id and status word, as GET /api/content answers for the same content
        "contentId": str(c.pk),
        "status": states.word_b(c.status),
        "platforms": list(c.platforms),
        "publishedAt": c.published_at.isoformat() if c.published_at else None,
        "views": c.views,
        "reach": c.reach,
        "likes": c.likes,
        "comments": c.comments,
        "shares": c.shares,
        "engagement": int(c.engagement),
        "engagementRate": rate,
        "engagementRateBasis": "reach (else impressions, else views), summed over the content's posts"
        if rate is not None
        else None,
        "clicks": c.clicks,
        "clicksSource": sel.CLICKS_SOURCE,
    }


# --- export ---------------------------------------------------------------------------------

EXPORT_COLUMNS = (
    "publicationId",
    "contentId",
    "platform",
    "profileId",
    "publishedAt",
    "metricsUpdatedAt",
    *POST_METRICS,
    "engagement",
    "engagementRate",
    "engagementRateBasis",
    "unavailable",
    # Postforge's short-link clicks (issue 32); `clicks` above is the platform's own count
    "shortLinkClicks",
    "shortLinkClicksSource",
)


def _keyset_pages(qs, size: int):
    """The rows of `qs` (ordered by published_at, id; values_list with id first and published_at
    fifth) a page of `size` at a time, each page its own query after the last row's key: memory
    stays flat without a server-side cursor, which PgBouncer in transaction mode cannot keep
    (issue 33), and no transaction stays open while a slow client reads."""
    last = None
    while True:
        page = (
            qs
            if last is None
            else qs.filter(Q(published_at__gt=last[0]) | Q(published_at=last[0], id__gt=last[1]))
        )
        rows = list(page[:size])
        yield from rows
        if len(rows) < size:
            return
        last = (rows[-1][4], rows[-1][0])


def export_rows(organization, start, end, *, family: str = "v1"):
    """Per-post rows, read in keyset pages (memory stays flat, PgBouncer-safe); ids in
    `family`'s form (`pub_...` in Family A, UUIDs in B, as each family's REST answers them)."""
    render = ids.render if family == "v1" else (lambda value, kind: str(value))
    qs = (
        sel.with_latest(
            Publication.objects.filter(
                organization=organization,
                status=Publication.PUBLISHED,
                published_at__gte=start,
                published_at__lt=end,
            )
        )
        .annotate(
            eng=sel.engagement_expr(),
            rate=sel.rate_expr(),
            basis=sel.basis_expr(),
            link_clicks=sel.clicks_expr("publication"),
        )
        .order_by("published_at", "id")
        .values_list(
            "id",
            "content_id",
            "profile__platform",
            "profile_id",
            "published_at",
            "snap__taken_at",
            *[f"snap__{m}" for m in POST_METRICS],
            "eng",
            "rate",
            "basis",
            "snap__unavailable",
            "link_clicks",
        )
    )
    for row in _keyset_pages(qs, 2000):
        pub, content, platform, profile, published, taken, *rest = row
        *metrics, eng, rate, basis, unavailable, clicks = rest
        measured = taken is not None
        yield [
            render(pub, "publication"),
            render(content, "content"),
            platform,
            render(profile, "profile"),
            published.isoformat(),
            taken.isoformat() if taken else None,
            *metrics,
            int(eng) if measured else None,
            round(rate, 4) if rate is not None and measured else None,
            basis if measured else None,
            unavailable if measured else {"all": "no snapshot yet"},
            clicks,
            sel.CLICKS_SOURCE,
        ]


def stream_export(rows, fmt: str):
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(EXPORT_COLUMNS)
        yield buf.getvalue()
        for row in rows:
            buf.seek(0)
            buf.truncate()
            writer.writerow([json.dumps(v) if isinstance(v, dict) else ("" if v is None else v) for v in row])
            yield buf.getvalue()
        return
    yield '{"data": ['
    first = True
    for row in rows:
        yield ("" if first else ",") + json.dumps(dict(zip(EXPORT_COLUMNS, row, strict=True)))
        first = False
    yield "]}"


# --- best times -------------------------------------------------------------------------------

MIN_SAMPLE = 10
#: platform-wide defaults (ISO weekday 1=Monday, local hour), from the platforms' own published guidance
PLATFORM_DEFAULTS = {
    "instagram": [(2, 11), (3, 11), (4, 12), (5, 10)],
    "facebook": [(2, 9), (3, 9), (4, 13), (5, 9)],
    "x": [(2, 9), (3, 9), (4, 10)],
    "linkedin": [(2, 8), (3, 9), (4, 10)],
    "tiktok": [(2, 17), (4, 19), (5, 16)],
    "pinterest": [(5, 20), (6, 20), (7, 14)],
    "youtube": [(4, 15), (5, 15), (6, 11)],
    "threads": [(2, 9), (3, 12)],
}


def _best_rows(profiles, tz_name: str):
    """(profile, weekday, hour, posts, engagement) of measured posts, in one time zone."""
    import zoneinfo

    tz = zoneinfo.ZoneInfo(tz_name)
    return (
        sel.with_latest(Publication.objects.filter(profile__in=profiles, status=Publication.PUBLISHED))
        .filter(snap__publication__isnull=False)
        .annotate(
            dow=ExtractIsoWeekDay("published_at", tzinfo=tz), hour=ExtractHour("published_at", tzinfo=tz)
        )
        .values_list("profile_id", "dow", "hour")
        .annotate(posts=Count("id"), engagement=Sum(sel.engagement_expr()))
        .order_by()
    )


def _rank(profile, rows, limit: int) -> dict:
    """Best slots from the profile's own (weekday, hour, posts, engagement) rows, or the
    platform's defaults below MIN_SAMPLE measured posts."""
    sample = sum(r[2] for r in rows)
    if sample >= MIN_SAMPLE:
        ranked = sorted(rows, key=lambda r: (-(r[3] or 0) / r[2], -r[2]))[:limit]
        return {
            "source": "history",
            "sampleSize": sample,
            "slots": [
                {"weekday": d, "hour": h, "posts": n, "avgEngagement": round((e or 0) / n, 2)}
                for d, h, n, e in ranked
            ],
        }
    defaults = PLATFORM_DEFAULTS.get(profile.platform, [(2, 10), (3, 10), (4, 10)])
    return {
        "source": "platform-default",
        "sampleSize": sample,
        "note": f"Fewer than {MIN_SAMPLE} measured posts: these are platform-wide defaults, not this profile's history.",
        "slots": [{"weekday": d, "hour": h, "posts": 0, "avgEngagement": None} for d, h in defaults[:limit]],
    }


def best_times(profile, limit: int = 5) -> dict:
    rows = [r[1:] for r in _best_rows([profile], profile.timezone_name)]
    return {
        "profileId": str(profile.pk),  # Family B's reports: a UUID, as everywhere in /api
        "timezone": profile.timezone_name,
        **_rank(profile, rows, limit),
    }


def best_times_for(profiles, limit: int = 5) -> dict:
    """{profile pk: (source, [(weekday, hour), ...])} for /api/posts/queue's profiles without
    posting times: one query per time zone among them."""
    by_tz: dict[str, list] = {}
    for p in profiles:
        by_tz.setdefault(p.timezone_name, []).append(p)
    out = {}
    for tz_name, group in by_tz.items():
        rows: dict = {p.pk: [] for p in group}
        for profile_id, *row in _best_rows(group, tz_name):
            rows[profile_id].append(tuple(row))
        for p in group:
            ranked = _rank(p, rows[p.pk], limit)
            out[p.pk] = (ranked["source"], [(s["weekday"], s["hour"]) for s in ranked["slots"]])
    return out

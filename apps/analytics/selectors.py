"""Analytics reads. Every aggregate response is one SQL query (GROUP BY in the database).

A publication counts in the period of its ``published_at`` and contributes its newest
snapshot's counters; a published post with no snapshot yet counts as a post with no
figures (its counters add nothing and it has no rate), never as zeros invented for it.
"""

from __future__ import annotations

import datetime
import zoneinfo
from dataclasses import dataclass

from django.db.models import (
    Case,
    Count,
    DateField,
    F,
    FilteredRelation,
    FloatField,
    Max,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Trunc

from apps.core.timezones import rfc3339_local
from apps.publishing.models import LinkClickDay, Publication

from .models import PostSnapshot, ProfileSnapshot
from .registry import RATE_BASES

GROUP_BY = ("day", "week", "month")
#: `metric=` values (camelCase of our vocabulary, plus engagement)
METRIC_PARAMS = {
    "views": "views",
    "reach": "reach",
    "impressions": "impressions",
    "likes": "likes",
    "comments": "comments",
    "shares": "shares",
    "saves": "saves",
    "clicks": "clicks",
    "replies": "replies",
    "reposts": "reposts",
    "quotes": "quotes",
    "watchTime": "watch_time",
    "engagement": "engagement",
}
RATE_FORMULA = (
    "engagement (likes + comments + shares + saves + replies + reposts + quotes) / reach; "
    "else / impressions; else / views; else / followers"
)

S = "snap__"


def engagement_expr():
    """The post's engagement (0 without a snapshot): the snapshot's generated column."""
    return Coalesce(F(S + "engagement"), Value(0))


def reach_expr():
    """Reach where the platform reports it, else impressions, else views."""
    return Coalesce(F(S + "reach"), F(S + "impressions"), F(S + "views"), Value(0))


def _measured() -> Q:
    return Q(**{f"{S}publication__isnull": False})


def _by_followers() -> Q:
    """A measured post without reach, impressions or views: its rate is over followers."""
    return _measured() & Q(**{f"{S}rate_basis__isnull": True}, profile__follower_count__gt=0)


def basis_expr():
    return Coalesce(
        F(S + "rate_basis"),
        Case(When(profile__follower_count__gt=0, then=Value("followers")), default=Value(None)),
    )


def _rated_basis():
    """The denominator of the post's rate, None for a post without one (no snapshot yet, or
    nothing to divide by)."""
    return Case(
        When(**{f"{S}rate_basis__isnull": False}, then=F(S + "rate_basis")),
        When(_by_followers(), then=Value("followers")),
        default=Value(None),
    )


def rate_expr():
    by_followers = (
        Cast(F(S + "engagement"), FloatField())
        * Value(100.0)
        / Cast(F("profile__follower_count"), FloatField())
    )
    return Case(
        When(**{f"{S}rate__isnull": False}, then=F(S + "rate")),
        When(_by_followers(), then=by_followers),
        default=Value(None),
        output_field=FloatField(),
    )


def _bucket(field: str, group_by: str, tz):
    """The local date the day, ISO week (Monday) or month of ``field`` starts on in ``tz``."""
    return Trunc(field, group_by, tzinfo=tz, output_field=DateField())


def with_latest(qs):
    return qs.annotate(snap=FilteredRelation("snapshots", condition=Q(snapshots__latest=True)))


# --- parameters ---------------------------------------------------------------------


@dataclass
class Period:
    start: datetime.datetime
    end: datetime.datetime  # exclusive
    tz: zoneinfo.ZoneInfo


# --- content analytics (A) ----------------------------------------------------------


def published_publications(organization, period: Period, *, platform=None, content_id=None, profile_id=None):
    qs = Publication.objects.filter(
        organization=organization,
        status=Publication.PUBLISHED,
        published_at__gte=period.start,
        published_at__lt=period.end,
    )
    if platform:
        qs = qs.filter(profile__platform=platform)
    if content_id:
        qs = qs.filter(content_id=content_id)
    if profile_id:
        qs = qs.filter(profile_id=profile_id)
    return with_latest(qs)


def content_analytics(
    organization,
    period: Period,
    *,
    group_by: str = "day",
    metric: str | None = None,
    platform=None,
    content_id=None,
) -> dict:
    column = METRIC_PARAMS.get(metric) if metric else None
    rows = _content_rows(
        organization, period, group_by=group_by, column=column, platform=platform, content_id=content_id
    )
    # rows come as (ISO date, basis, posts, reach, engagement, rate sum[, metric]) with ints and
    # a float: this loop runs once per bucket and denominator, so it only adds
    buckets: dict = {}
    bases = dict.fromkeys(RATE_BASES, 0)
    rate_sum = 0.0
    total_posts = total_reach = total_engagement = 0
    for bucket, basis, posts, reach, engagement, rate, *value in rows:
        total_posts += posts
        total_reach += reach
        total_engagement += engagement
        item = buckets.get(bucket)
        if item is None:
            item = buckets[bucket] = {
                "date": bucket,
                "posts": posts,
                "reach": reach,
                "engagement": engagement,
            }
            if column:
                item[metric] = value[0]
        else:
            item["posts"] += posts
            item["reach"] += reach
            item["engagement"] += engagement
            if column and value[0] is not None:
                item[metric] = (item[metric] or 0) + value[0]
        if basis:
            bases[basis] += posts
            rate_sum += rate or 0.0
    rated = sum(bases.values())
    used = {b: n for b, n in bases.items() if n}
    return {
        "period": {"start": rfc3339_local(period.start), "end": rfc3339_local(period.end)},
        "metrics": {
            "totalPosts": total_posts,
            "totalReach": total_reach,
            "totalEngagement": total_engagement,
            "avgEngagementRate": round(rate_sum / rated, 4) if rated else 0.0,
        },
        "engagementRateBasis": basis_summary(used),
        "breakdown": list(buckets.values()),
        "clicks": clicks_summary(organization, period, platform=platform, content_id=content_id),
    }


#: where `clicks` come from: Postforge's own short links (README "Tracked links")
CLICKS_SOURCE = "postforge_short_link"


def clicks_summary(organization, period: Period, *, platform=None, content_id=None) -> dict:
    """Short-link clicks on the posts published in `period` (all their clicks to date), with
    the referrer platforms and countries: one query."""
    qs = LinkClickDay.objects.filter(
        link__publication__organization=organization,
        link__publication__status=Publication.PUBLISHED,
        link__publication__published_at__gte=period.start,
        link__publication__published_at__lt=period.end,
    )
    if platform:
        qs = qs.filter(link__publication__profile__platform=platform)
    if content_id:
        qs = qs.filter(link__publication__content_id=content_id)
    total = 0
    by_referrer: dict[str, int] = {}
    by_country: dict[str, int] = {}
    for referrer, country, n in (
        qs.order_by()
        .values("referrer", "country")
        .annotate(n=Sum("count"))
        .values_list("referrer", "country", "n")
    ):
        total += n
        by_referrer[referrer] = by_referrer.get(referrer, 0) + n
        if country:
            by_country[country] = by_country.get(country, 0) + n
    return {"total": total, "source": CLICKS_SOURCE, "byReferrer": by_referrer, "byCountry": by_country}


def clicks_expr(publication_path: str):
    """The short-link clicks of the publication(s) at `publication_path` from the row (a subquery)."""
    return Coalesce(
        Subquery(
            LinkClickDay.objects.filter(**{f"link__{publication_path}": OuterRef("pk")})
            .order_by()
            .values(f"link__{publication_path}")
            .annotate(v=Sum("count"))
            .values("v")[:1]
        ),
        0,
    )


def _content_rows(organization, period: Period, *, group_by: str, column: str | None, platform, content_id):
    """(bucket date, rate denominator, posts, reach, engagement, rate sum[, metric sum]) per
    bucket and denominator: the hottest read of the API, written as the SQL it is.

    The ORM form of the same query (``published_publications`` with ``_bucket``,
    ``_rated_basis``, ``reach_expr`` and ``rate_expr``, as ``series_by_platform`` uses) spent
    more time building and compiling the statement than PostgreSQL spent running it; this
    text is the statement it produced, for PostgreSQL; other databases (SQLite, the embedded
    default) run the ORM form. ``tests/analytics`` checks both against hand-computed figures.
    ``group_by`` and ``column`` come from fixed lists (GROUP_BY, METRIC_PARAMS)."""
    from django.db import connection

    from apps.profiles.models import SocialProfile

    if group_by not in GROUP_BY or (column is not None and column not in METRIC_PARAMS.values()):
        raise ValueError(f"unknown groupBy or metric: {group_by!r}, {column!r}")
    if connection.vendor != "postgresql":
        return _content_rows_orm(
            organization, period, group_by=group_by, column=column, platform=platform, content_id=content_id
        )
    org_id = getattr(organization, "pk", organization)
    where, params = [], [str(period.tz), org_id, Publication.PUBLISHED, period.start, period.end]
    if platform:
        where.append("AND pr.platform = %s")
        params.append(platform)
    if content_id:
        where.append("AND p.content_id = %s")
        params.append(content_id)
    # bigint sums and text dates: psycopg loads ints and strings much faster than numerics
    # (SUM of bigint) and dates, and the dates are wanted as text anyway
    value = f", SUM(s.{column})::bigint" if column else ""
    followers = "s.publication_id IS NOT NULL AND s.rate_basis IS NULL AND pr.follower_count > 0"
    sql = f"""
        SELECT TO_CHAR(DATE_TRUNC('{group_by}', p.published_at AT TIME ZONE %s), 'YYYY-MM-DD') AS bucket,
               COALESCE(s.rate_basis, CASE WHEN {followers} THEN 'followers' END) AS basis,
               COUNT(p.id), COALESCE(SUM(COALESCE(s.reach, s.impressions, s.views, 0)), 0)::bigint,
               COALESCE(SUM(s.engagement), 0)::bigint,
               SUM(CASE WHEN s.rate IS NOT NULL THEN s.rate
                        WHEN {followers} THEN s.engagement * 100.0 / pr.follower_count END)::float8{value}
        FROM {Publication._meta.db_table} p
        JOIN {SocialProfile._meta.db_table} pr ON pr.id = p.profile_id
        LEFT JOIN {PostSnapshot._meta.db_table} s ON s.publication_id = p.id AND s.latest
        WHERE p.organization_id = %s AND p.status = %s
          AND p.published_at >= %s AND p.published_at < %s {" ".join(where)}
        GROUP BY 1, 2 ORDER BY 1"""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def _content_rows_orm(
    organization, period: Period, *, group_by: str, column: str | None, platform, content_id
):
    """``_content_rows`` in the ORM, for any database: the same rows."""
    qs = published_publications(organization, period, platform=platform, content_id=content_id)
    aggregates = {
        "posts": Count("id"),
        "reach": Sum(reach_expr()),
        "engagement": Sum(S + "engagement"),
        "rate_sum": Sum(rate_expr()),
    }
    if column:
        aggregates["value"] = Sum(S + column)
    # one row per bucket and rate denominator (usually one denominator per platform), as the
    # SQL text gives them: ISO dates, ints, a float
    rows = (
        qs.annotate(bucket=_bucket("published_at", group_by, period.tz), basis=_rated_basis())
        .values_list("bucket", "basis")
        .annotate(**aggregates)
        .order_by("bucket")
    )
    return [
        (
            bucket.isoformat(),
            basis,
            posts,
            int(reach or 0),
            int(engagement or 0),
            None if rate is None else float(rate),
            *(None if v is None else int(v) for v in value),
        )
        for bucket, basis, posts, reach, engagement, rate, *value in rows
    ]


def basis_summary(used: dict[str, int]) -> dict:
    if not used:
        kind = None
    elif len(used) == 1:
        kind = next(iter(used))
    else:
        kind = "mixed"
    return {
        "denominator": kind,
        "postsByDenominator": used,
        "formula": RATE_FORMULA,
        "average": "mean of per-post rates (percent)",
    }


# --- one content item's latest analytics ------------------------------------------------


def latest_for_content(content) -> dict:
    """Sum of the newest snapshot of each of its publications (one query)."""
    agg = PostSnapshot.objects.filter(content=content, latest=True).aggregate(
        views=Sum("views"),
        likes=Sum("likes"),
        comments=Sum("comments"),
        shares=Sum("shares"),
        saves=Sum("saves"),
        reach=Sum("reach"),
        impressions=Sum("impressions"),
        replies=Sum("replies"),
        reposts=Sum("reposts"),
        quotes=Sum("quotes"),
        updated=Max("taken_at"),
    )
    out: dict[str, object] = {k: int(agg[k] or 0) for k in ("views", "likes", "comments", "shares")}
    out["metricsUpdatedAt"] = agg["updated"].isoformat().replace("+00:00", "Z") if agg["updated"] else None
    from .registry import engagement_rate

    rate, basis = engagement_rate(agg)
    out["engagementRate"] = rate
    out["engagementRateBasis"] = basis
    return out


# --- profile analytics (A) ---------------------------------------------------------------


def profile_analytics(profile, period: Period) -> dict:
    """Followers from stored snapshots; engagement from the period's posts (two queries:
    one over snapshots of followers, one over posts)."""
    snaps = ProfileSnapshot.objects.filter(profile=profile, followers__isnull=False)
    first = snaps.filter(taken_at__gte=period.start, taken_at__lt=period.end).order_by("taken_at")
    last = snaps.filter(taken_at__lt=period.end).order_by("-taken_at")
    before = snaps.filter(taken_at__lt=period.start).order_by("-taken_at")
    from apps.profiles.models import SocialProfile

    row = (
        SocialProfile.objects.filter(pk=profile.pk)
        .annotate(
            last=Subquery(last.values("followers")[:1]),
            earlier=Coalesce(
                Subquery(before.values("followers")[:1]), Subquery(first.values("followers")[:1])
            ),
            earlier_at=Coalesce(
                Subquery(before.values("taken_at")[:1]), Subquery(first.values("taken_at")[:1])
            ),
            last_at=Subquery(last.values("taken_at")[:1]),
        )
        .values("last", "earlier", "earlier_at", "last_at")
        .first()
    )
    followers = row["last"] if row and row["last"] is not None else profile.follower_count
    growth = None
    if row and row["earlier"] and row["last_at"] and row["earlier_at"] and row["earlier_at"] < row["last_at"]:
        growth = round((row["last"] - row["earlier"]) * 100.0 / row["earlier"], 2)
    posts = published_publications(profile.organization_id, period, profile_id=profile.pk)
    per_post = list(
        posts.annotate(eng=engagement_expr(), rate=rate_expr(), basis=basis_expr())
        .values("content_id", "content__media_type", "eng", "rate", "basis", "snap__publication")
        .order_by(F("eng").desc(nulls_last=True), "-published_at")
    )
    weeks = max((period.end - period.start).total_seconds() / (7 * 86400), 1 / 7)
    with_snap = [p for p in per_post if p["snap__publication"] is not None]
    rates = [p["rate"] for p in with_snap if p["rate"] is not None]
    from apps.core import ids

    return {
        "profile": {
            "id": ids.render(profile.pk, "profile"),
            "platform": profile.platform,
            "username": profile.username,
        },
        "metrics": {
            "followers": int(followers or 0),
            "followersGrowth": growth,
            "avgEngagement": round(sum(p["eng"] for p in with_snap) / len(with_snap), 2)
            if with_snap
            else 0.0,
            "postsPerWeek": round(len(per_post) / weeks, 2),
            "avgEngagementRate": round(sum(rates) / len(rates), 4) if rates else None,
        },
        "engagementRateBasis": basis_summary(_count_bases(with_snap)),
        "topContent": [
            {
                "id": ids.render(p["content_id"], "content"),
                "engagement": int(p["eng"]),
                "type": p["content__media_type"],
                "engagementRate": p["rate"],
                "engagementRateBasis": p["basis"],
            }
            for p in with_snap[:5]
        ],
    }


def _count_bases(rows) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        if r["basis"]:
            out[r["basis"]] = out.get(r["basis"], 0) + 1
    return out


# --- the admin's charts ------------------------------------------------------------------


def bucket_starts(period: Period, group_by: str) -> list[datetime.date]:
    """Every bucket of the period, as the local date it starts on (weeks on Monday)."""
    first = period.start.astimezone(period.tz).date()
    last = (period.end - datetime.timedelta(microseconds=1)).astimezone(period.tz).date()
    if group_by == "week":
        first -= datetime.timedelta(days=first.weekday())
    elif group_by == "month":
        first = first.replace(day=1)
    out, day = [], first
    while day <= last:
        out.append(day)
        if group_by == "day":
            day += datetime.timedelta(days=1)
        elif group_by == "week":
            day += datetime.timedelta(days=7)
        else:
            day = (day.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
    return out


def series_by_platform(organization, period: Period, *, group_by: str = "day") -> list[dict]:
    """Posts, reach and engagement per bucket and platform, with the same expressions as
    ``content_analytics`` (one GROUP BY query)."""
    qs = published_publications(organization, period)
    rows = (
        qs.annotate(bucket=_bucket("published_at", group_by, period.tz))
        .values("bucket", "profile__platform")
        .annotate(posts=Count("id"), reach=Sum(reach_expr()), engagement=Sum(engagement_expr()))
        .order_by("bucket", "profile__platform")
    )
    return [
        {
            "date": r["bucket"],
            "platform": r["profile__platform"],
            "posts": r["posts"],
            "reach": int(r["reach"] or 0),
            "engagement": int(r["engagement"] or 0),
        }
        for r in rows
    ]


def followers_series(
    organization, period: Period, *, group_by: str = "day", profiles: int | None = 8
) -> dict:
    """The last follower count of each bucket, per profile (the ``profiles`` largest; None:
    all), from stored snapshots: {(platform, username): {date: followers}} (one query)."""
    rows = (
        ProfileSnapshot.objects.filter(
            organization=organization,
            followers__isnull=False,
            taken_at__gte=period.start,
            taken_at__lt=period.end,
        )
        .annotate(bucket=_bucket("taken_at", group_by, period.tz))
        .values_list("profile__platform", "profile__username", "bucket", "followers")
        .order_by("taken_at")
    )
    series: dict = {}
    for platform, username, bucket, followers in rows:
        series.setdefault((platform, username), {})[bucket] = followers
    largest = sorted(series, key=lambda k: -max(series[k].values()))[:profiles]
    return {k: series[k] for k in sorted(largest)}


def followers_profile_count(organization, period: Period) -> int:
    """How many profiles have a follower snapshot in the period (what the chart could show)."""
    return (
        ProfileSnapshot.objects.filter(
            organization=organization,
            followers__isnull=False,
            taken_at__gte=period.start,
            taken_at__lt=period.end,
        )
        .values("profile_id")
        .distinct()
        .count()
    )

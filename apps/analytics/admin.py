"""The admin's analytics and failures pages (/admin/analytics/, /admin/analytics/failures/).

Both read the API's own selectors (``selectors.series_by_platform`` and ``content_analytics``
buckets, ``reports.overview``, ``monitoring.errors``) for one organization at a time; the
charts are SVG drawn on the server (``charts``). Staff who may view publications see them.
"""

from __future__ import annotations

import datetime

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from apps.accounts.staff import staff_organization_ids, staff_organizations
from apps.core import ids
from apps.core.admin_site import register_page
from apps.core.errors import ValidationFailed

from . import charts, monitoring, permissions, reports
from . import selectors as sel
from .parameters import parse_choice, parse_tz

DAYS = (7, 30, 90, 365)
ORG_CHOICES = 200
#: follower lines drawn by default (the largest profiles); ``followers=all`` draws every one
FOLLOWER_LINES = 8


def _organization(request, context):
    """``?org=<uuid>``, else the organization that published last (else the first by name);
    with a name search (``orgq``), the first match unless the chosen one matches."""
    raw = request.GET.get("org")
    listed = context["organizations"]
    allowed = staff_organizations(request.user)  # another organization is a 404
    if context["orgq"] and listed and not any(str(o["pk"]) == raw for o in listed):
        return allowed.get(pk=listed[0]["pk"])
    if raw:
        pk = ids.parse(raw)
        org = allowed.filter(pk=pk).first() if pk else None
        if org is None:
            raise Http404("No such organization.")
        return org
    from apps.publishing.models import Publication

    published = Publication.objects.filter(status=Publication.PUBLISHED, published_at__isnull=False)
    visible = staff_organization_ids(request.user)
    if visible is not None:
        published = published.filter(organization_id__in=visible)
    last = published.order_by("-published_at").values_list("organization_id", flat=True).first()
    org = allowed.filter(pk=last).first() if last else None
    return org or allowed.first()


def _context(request, title: str) -> dict:
    """The organization selector: every organization, or those whose name contains ``orgq``
    (at most ORG_CHOICES listed, the count said when there are more)."""
    if not request.user.has_perm(permissions.STAFF_VIEW_PERMISSION):
        raise PermissionDenied
    query = (request.GET.get("orgq") or "").strip()
    organizations = staff_organizations(request.user)
    if query:
        organizations = organizations.filter(name__icontains=query)
    listed = list(organizations.values("pk", "name")[: ORG_CHOICES + 1])
    return {
        **admin.site.each_context(request),
        "title": title,
        "orgq": query,
        "organizations": listed[:ORG_CHOICES],
        "organizations_total": organizations.count() if len(listed) > ORG_CHOICES else len(listed),
    }


def analytics_view(request):
    context = _context(request, "Analytics")
    org = _organization(request, context)
    errors: list[str] = []
    try:
        days = int(request.GET.get("days") or 30)
        if days not in DAYS:
            raise ValueError
    except ValueError:
        errors.append(f"days must be one of {', '.join(map(str, DAYS))}; showing 30.")
        days = 30
    try:
        group_by = parse_choice(request.GET, "groupBy", sel.GROUP_BY) or ("day" if days <= 90 else "week")
        # default: the zone the organization's profiles post in (not UTC)
        tz = parse_tz(request.GET.get("timezone") or _home_zone(org))
    except ValidationFailed as exc:
        errors.extend(m for msgs in (exc.details or {}).values() for m in msgs)
        group_by, tz = "day", parse_tz(_home_zone(org))
    all_followers = request.GET.get("followers") == "all"
    context.update(
        {
            "org": org,
            "days": days,
            "days_choices": DAYS,
            "group_by": group_by,
            "all_followers": all_followers,
            "follower_lines": FOLLOWER_LINES,
            "group_by_choices": sel.GROUP_BY,
            "tz_name": str(tz),
            "errors": errors,
        }
    )
    if org is None:
        return TemplateResponse(request, "admin/analytics/index.html", context)
    end = timezone.now()
    period = sel.Period(start=end - datetime.timedelta(days=days), end=end, tz=tz)
    buckets = sel.bucket_starts(period, group_by)
    series = sel.series_by_platform(org, period, group_by=group_by)
    totals = sel.content_analytics(org, period, group_by=group_by)
    overview = reports.overview(org, days)
    followers = sel.followers_series(
        org, period, group_by=group_by, profiles=None if all_followers else FOLLOWER_LINES
    )
    names = _post_names(overview["topPosts"])
    for post in overview["topPosts"]:
        post["adminUrl"] = _admin_url("content", "content", ids.parse(post["contentId"], "content"))
        post["name"] = names.get((post["contentId"], post["platform"])) or post["contentId"]
    context.update(
        {
            "totals": totals["metrics"],
            "basis": totals["engagementRateBasis"],
            "overview": overview,
            "charts": {
                "posts": mark_safe(
                    charts.over_time(
                        series,
                        buckets,
                        figure="posts",
                        title="Posts published, by platform",
                        group_by=group_by,
                    )
                ),
                "reach": mark_safe(
                    charts.over_time(
                        series,
                        buckets,
                        figure="reach",
                        title="Reach of the posts published, by platform",
                        group_by=group_by,
                    )
                ),
                "engagement": mark_safe(
                    charts.over_time(
                        series,
                        buckets,
                        figure="engagement",
                        title="Engagement of the posts published, by platform",
                        group_by=group_by,
                    )
                ),
                "followers": mark_safe(charts.followers(followers, buckets, group_by=group_by)),
            },
            "followers_shown": len(followers),
            "followers_total": sel.followers_profile_count(org, period),
            "followers_toggle": _with(request, followers=None if all_followers else "all"),
            "formula": sel.RATE_FORMULA,
        }
    )
    return TemplateResponse(request, "admin/analytics/index.html", context)


def failures_view(request):
    context = _context(request, "Failures")
    org = _organization(request, context)
    kind = request.GET.get("kind") or None
    errors = []
    if kind not in (None, *monitoring.KINDS):
        errors.append(f"Unknown kind '{kind}': one of {', '.join(monitoring.KINDS)}.")
        kind = None
    groups = monitoring.errors(org, kind=kind) if org else []
    admin_of = {
        "content": ("content", "content"),
        "profile": ("profiles", "socialprofile"),
        "delivery": ("webhooks", "webhookdelivery"),
        "publication": ("publishing", "publication"),
    }
    for g in groups:
        obj = g["object"]
        app_label, model = admin_of.get(obj["type"], (None, None))
        g["adminUrl"] = _admin_url(app_label, model, ids.parse(obj["id"])) if app_label else None
        g["lastAtDisplay"] = g["lastAt"][:16].replace("T", " ") + " UTC"
    context.update(
        {
            "org": org,
            "kind": kind or "",
            "kinds": monitoring.KINDS,
            "groups": groups,
            "errors": errors,
            "total": sum(g["count"] for g in groups),
        }
    )
    return TemplateResponse(request, "admin/analytics/failures.html", context)


def _home_zone(org) -> str | None:
    from apps.profiles.selectors import organization_timezone

    return organization_timezone(organization_id=org.pk) if org is not None else None


#: how much of a caption names a top post
POST_NAME = 70


def _post_names(posts: list[dict]) -> dict[tuple[str, str], str]:
    """(content id, platform) -> what names the post for a person: the variant's title, else
    its caption's first words, else the content's prompt (one query)."""
    from apps.content.models import Variant

    wanted = {p["contentId"] for p in posts}
    if not wanted:
        return {}
    names: dict[tuple[str, str], str] = {}
    rows = Variant.objects.filter(content_id__in=wanted).values_list(
        "content_id", "platform", "title", "caption", "content__prompt"
    )
    for content_id, platform, title, caption, prompt in rows:
        text = " ".join((title or caption or prompt or "").split())
        names[(str(content_id), platform)] = text[:POST_NAME] + ("…" if len(text) > POST_NAME else "")
    return names


def _with(request, **params) -> str:
    """This page's query string with ``params`` set (None: removed)."""
    query = request.GET.copy()
    for key, value in params.items():
        query.pop(key, None)
        if value is not None:
            query[key] = value
    return "?" + query.urlencode()


def _admin_url(app_label, model, pk):
    if pk is None:
        return None
    try:
        return reverse(f"admin:{app_label}_{model}_change", args=[pk])
    except NoReverseMatch:
        return None


# the two pages on the one admin site (apps.core.admin_site)
register_page("analytics/", analytics_view, name="analytics")
register_page("analytics/failures/", failures_view, name="analytics_failures")

"""The failures feed: generation, publishing, token-refresh and webhook-delivery failures,
grouped by cause, and the publications whose outcome on the platform is unknown (a person
has to look on the platform and answer in the admin)."""

from __future__ import annotations

import datetime
import uuid

from django.db.models import CharField, Count, Max, Min, Value
from django.db.models.functions import Cast, Concat

from apps.content import states
from apps.content.models import Content
from apps.profiles.models import SocialProfile
from apps.publishing.models import Publication


def _id(value: object) -> str:
    """An object's id as Family B writes it (a UUID): the feed is `/api`'s (and the admin's,
    which reads either form)."""
    return str(uuid.UUID(str(value)))


KINDS = ("generation", "publishing", "publishing_unknown", "token_refresh", "webhook_delivery")


def errors(
    organization, *, kind=None, platform=None, profile_id=None, since=None, until=None, limit=100
) -> list[dict]:
    groups: list[dict] = []
    if kind in (None, "publishing"):
        qs = Publication.objects.filter(organization=organization, status=Publication.FAILED)
        if platform:
            qs = qs.filter(profile__platform=platform)
        if profile_id:
            qs = qs.filter(profile_id=profile_id)
        qs = _dated(qs, "updated_at", since, until)
        for g in (
            qs.values("profile__platform", "error_code", "last_error")
            .annotate(count=Count("id"), last=Max("updated_at"), sample=Min(Cast("content_id", CharField())))
            .order_by("-last")[:limit]
        ):
            cid = _id(uuid.UUID(g["sample"]))
            groups.append(
                {
                    "kind": "publishing",
                    "platform": g["profile__platform"],
                    "cause": g["error_code"] or "error",
                    "message": g["last_error"],
                    "count": g["count"],
                    "lastAt": g["last"],
                    "object": {"type": "content", "id": cid, "url": f"/api/content/{cid}"},
                }
            )
    if kind in (None, "publishing_unknown"):
        groups.extend(
            _unknown_publications(
                organization, platform=platform, profile_id=profile_id, since=since, until=until, limit=limit
            )
        )
    if kind in (None, "generation") and not platform and not profile_id:
        qs = _dated(
            Content.objects.for_organization(organization).filter(status=states.FAILED),
            "updated_at",
            since,
            until,
        )
        for g in (
            qs.values("status_reason")
            .annotate(count=Count("id"), last=Max("updated_at"), sample=Min(Cast("id", CharField())))
            .order_by("-last")[:limit]
        ):
            cid = _id(uuid.UUID(g["sample"]))
            groups.append(
                {
                    "kind": "generation",
                    "platform": None,
                    "cause": "generation_failed",
                    "message": g["status_reason"],
                    "count": g["count"],
                    "lastAt": g["last"],
                    "object": {"type": "content", "id": cid, "url": f"/api/content/{cid}"},
                }
            )
    if kind in (None, "token_refresh"):
        profiles = SocialProfile.objects.for_organization(organization).filter(
            token_status__in=("expired", "revoked")
        )
        if platform:
            profiles = profiles.filter(platform=platform)
        if profile_id:
            profiles = profiles.filter(pk=profile_id)
        qs = _dated(profiles, "updated_at", since, until)
        for g in (
            qs.values("platform", "token_status", "token_error")
            .annotate(count=Count("id"), last=Max("updated_at"), sample=Min(Cast("id", CharField())))
            .order_by("-last")[:limit]
        ):
            pid = _id(uuid.UUID(g["sample"]))
            groups.append(
                {
                    "kind": "token_refresh",
                    "platform": g["platform"],
                    "cause": f"token_{g['token_status']}",
                    # the platform's reason when it gave one (a dead Facebook Page token's 190/460)
                    "message": g["token_error"]
                    or f"The {g['platform']} token is {g['token_status']}: reconnect the profile.",
                    "count": g["count"],
                    "lastAt": g["last"],
                    "object": {"type": "profile", "id": pid, "url": f"/api/profiles/{pid}"},
                }
            )
        groups.extend(_tokens_expiring(organization, platform=platform, profile_id=profile_id))
    if kind in (None, "webhook_delivery") and not platform and not profile_id:
        from apps.webhooks.models import DeliveryStatus, WebhookDelivery

        qs = _dated(
            WebhookDelivery.objects.filter(organization=organization, status=DeliveryStatus.FAILED),
            "updated_at",
            since,
            until,
        )
        for g in (
            qs.values("endpoint_id", "endpoint__url", "last_status_code")
            .annotate(count=Count("id"), last=Max("updated_at"), sample=Min(Cast("id", CharField())))
            .order_by("-last")[:limit]
        ):
            wid = _id(g["endpoint_id"])
            did = _id(uuid.UUID(g["sample"]))
            code = g["last_status_code"]
            groups.append(
                {
                    "kind": "webhook_delivery",
                    "platform": None,
                    "cause": f"http_{code}" if code else "no_response",
                    "message": f"{g['endpoint__url']} " + (f"answered {code}" if code else "did not answer"),
                    "count": g["count"],
                    "lastAt": g["last"],
                    "object": {"type": "delivery", "id": did, "url": f"/api/webhooks/{wid}/deliveries/{did}"},
                }
            )
    groups.sort(key=lambda g: g["lastAt"], reverse=True)
    for g in groups:
        g["lastAt"] = g["lastAt"].isoformat()
    return groups[:limit]


def _unknown_publications(organization, *, platform, profile_id, since, until, limit) -> list[dict]:
    """`unknown` publications by platform: the post may exist and nobody can tell without looking.
    The example is one publication of the group (its content's API URL shows it among the
    content's publications; the admin's failures page links its change page, where the
    "I found the post" and "not on the platform" actions are)."""
    qs = Publication.objects.filter(organization=organization, status=Publication.UNKNOWN)
    if platform:
        qs = qs.filter(profile__platform=platform)
    if profile_id:
        qs = qs.filter(profile_id=profile_id)
    qs = _dated(qs, "updated_at", since, until)
    # one example per group: the publication with the smallest id, and its content (ids are unique,
    # so the smallest "publication/content" string names one row)
    pair = Concat(
        Cast("id", CharField()), Value("/"), Cast("content_id", CharField()), output_field=CharField()
    )
    groups = []
    for g in (
        qs.values("profile__platform")
        .annotate(count=Count("id"), last=Max("updated_at"), sample=Min(pair))
        .order_by("-last")[:limit]
    ):
        pub_raw, content_raw = g["sample"].split("/")
        pid = _id(uuid.UUID(pub_raw))
        cid = _id(uuid.UUID(content_raw))
        n = g["count"]
        groups.append(
            {
                "kind": "publishing_unknown",
                "platform": g["profile__platform"],
                "cause": "outcome_unknown",
                "message": (
                    f"{n} publication{'s' if n != 1 else ''} on {g['profile__platform']} may have been posted "
                    f"and could not be checked: look on the platform and confirm each in the admin."
                ),
                "count": n,
                "lastAt": g["last"],
                "object": {"type": "publication", "id": pid, "url": f"/api/content/{cid}"},
            }
        )
    return groups


def _dated(qs, field: str, since: datetime.datetime | None, until: datetime.datetime | None):
    if since:
        qs = qs.filter(**{f"{field}__gte": since})
    if until:
        qs = qs.filter(**{f"{field}__lt": until})
    return qs


def _tokens_expiring(organization, *, platform=None, profile_id=None) -> list[dict]:
    """Profiles whose token nothing can renew and which expires within 7 days (LinkedIn's day 60):
    one entry each, with the date, before any post fails."""
    import datetime

    from django.utils import timezone

    from apps.profiles.services import TOKEN_WARN_DAYS, token_expiring_soon

    profiles = SocialProfile.objects.for_organization(organization).filter(
        connected=True,
        sandbox=False,
        token_status="valid",
        token_expires_at__lte=timezone.now() + datetime.timedelta(days=max(TOKEN_WARN_DAYS)),
    )
    if platform:
        profiles = profiles.filter(platform=platform)
    if profile_id:
        profiles = profiles.filter(pk=profile_id)
    out = []
    for p in profiles.order_by("token_expires_at")[:100]:
        if not token_expiring_soon(p):
            continue
        pid = _id(p.pk)
        out.append(
            {
                "kind": "token_refresh",
                "platform": p.platform,
                "cause": "token_expiring",
                "message": f"The {p.platform} token of {p.username} expires on "
                f"{p.token_expires_at:%Y-%m-%d %H:%M} UTC and cannot be renewed: reconnect the profile before then.",
                "count": 1,
                "lastAt": p.token_expires_at,
                "object": {"type": "profile", "id": pid, "url": f"/api/profiles/{pid}"},
            }
        )
    return out

"""What a verified inbound webhook changes (run by the `process_inbound` task).

Each record is processed once: `inbound_process` marks it processed in the same transaction
as its effect (a conditional update), so a repeated task, or the sweep picking up a record
whose task was lost, changes nothing twice. Every effect goes through the owning app's
services (accounts for identity and billing, publishing and profiles for TikTok; Meta's
comments and replies hand the posts to analytics' queue by task name)."""

from __future__ import annotations

import datetime
import json
import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import InboundWebhook

logger = logging.getLogger(__name__)


# --- identity providers: Clerk (Svix) and WorkOS ---------------------------------------------


def _clerk_email(data: dict) -> str:
    primary = data.get("primary_email_address_id")
    emails = data.get("email_addresses") or []
    found = next((e for e in emails if e.get("id") == primary), emails[0] if emails else None)
    return str((found or {}).get("email_address") or "")


def _clerk(payload: dict) -> str:
    from apps.accounts import services as accounts

    kind, data = str(payload.get("type") or ""), payload.get("data") or {}
    if kind in ("user.created", "user.updated"):
        accounts.user_sync_from_identity_event(
            subject=str(data["id"]),
            email=_clerk_email(data),
            first_name=str(data.get("first_name") or ""),
            last_name=str(data.get("last_name") or ""),
        )
    elif kind == "user.deleted":
        accounts.user_delete_from_identity(subject=str(data["id"]))
    elif kind in ("organization.created", "organization.updated"):
        accounts.organization_sync_from_identity(
            external_id=str(data["id"]), name=str(data.get("name") or "")
        )
    elif kind == "organization.deleted":
        accounts.organization_delete_from_identity(external_id=str(data["id"]))
    elif kind in ("organizationMembership.created", "organizationMembership.updated"):
        org, member = data.get("organization") or {}, data.get("public_user_data") or {}
        accounts.membership_sync_from_identity(
            org_external_id=str(org["id"]),
            org_name=str(org.get("name") or ""),
            subject=str(member["user_id"]),
            role=str(data.get("role") or ""),
            email=str(member.get("identifier") or ""),
        )
    elif kind == "organizationMembership.deleted":
        accounts.membership_delete_from_identity(
            org_external_id=str((data.get("organization") or {})["id"]),
            subject=str((data.get("public_user_data") or {})["user_id"]),
        )
    else:
        return "ignored"
    return "applied"


def _workos_role(data: dict) -> str:
    role = data.get("role")
    return str(role.get("slug") if isinstance(role, dict) else role or "")


def _workos(payload: dict) -> str:
    from apps.accounts import services as accounts

    kind, data = str(payload.get("event") or ""), payload.get("data") or {}
    if kind in ("user.created", "user.updated"):
        accounts.user_sync_from_identity_event(
            subject=str(data["id"]),
            email=str(data.get("email") or ""),
            first_name=str(data.get("first_name") or ""),
            last_name=str(data.get("last_name") or ""),
        )
    elif kind == "user.deleted":
        accounts.user_delete_from_identity(subject=str(data["id"]))
    elif kind in ("organization.created", "organization.updated"):
        accounts.organization_sync_from_identity(
            external_id=str(data["id"]), name=str(data.get("name") or "")
        )
    elif kind == "organization.deleted":
        accounts.organization_delete_from_identity(external_id=str(data["id"]))
    elif kind in ("organization_membership.created", "organization_membership.updated"):
        if data.get("status") == "inactive":  # deactivated in WorkOS: no access here
            accounts.membership_delete_from_identity(
                org_external_id=str(data["organization_id"]), subject=str(data["user_id"])
            )
        else:
            accounts.membership_sync_from_identity(
                org_external_id=str(data["organization_id"]),
                subject=str(data["user_id"]),
                role=_workos_role(data),
            )
    elif kind == "organization_membership.deleted":
        accounts.membership_delete_from_identity(
            org_external_id=str(data["organization_id"]), subject=str(data["user_id"])
        )
    else:
        return "ignored"
    return "applied"


# --- billing (Stripe's format) -----------------------------------------------------------------

#: subscription statuses that keep the plan; any other (canceled, unpaid, incomplete_expired,
#: paused) falls back to PLAN_AFTER_CANCEL
_PAYING = ("active", "trialing", "past_due")


def _subscription_plan(sub: dict) -> str:
    """The plan a subscription buys: its `plan` metadata, else its first price's `plan`
    metadata or lookup_key, else STRIPE_PRICE_PLANS[price id]."""
    plans = settings.PLANS
    named = str((sub.get("metadata") or {}).get("plan") or "")
    if named in plans:
        return named
    for item in (sub.get("items") or {}).get("data") or []:
        price = item.get("price") or item.get("plan") or {}
        for candidate in (
            str((price.get("metadata") or {}).get("plan") or ""),
            str(price.get("lookup_key") or ""),
            str(settings.STRIPE_PRICE_PLANS.get(str(price.get("id") or ""), "")),
        ):
            if candidate in plans:
                return candidate
    return ""


def _billing_organization(sub: dict):
    from apps.accounts.models import Organization
    from apps.core import ids

    ref = str((sub.get("metadata") or {}).get("organizationId") or "")
    if ref:
        pk = ids.parse(ref, "organization")
        org = Organization.objects.filter(pk=pk).first() if pk else None
        org = org or Organization.objects.filter(external_id=ref).first()
        if org is not None:
            return org
    customer = sub.get("customer")
    customer = str(customer.get("id") if isinstance(customer, dict) else customer or "")
    return Organization.objects.filter(billing_customer_id=customer).first() if customer else None


def _billing(payload: dict) -> str:
    from apps.accounts.services import organization_plan_set

    kind = str(payload.get("type") or "")
    if kind not in (
        "customer.subscription.created",
        "customer.subscription.updated",
        "customer.subscription.deleted",
    ):
        return "ignored"
    sub = (payload.get("data") or {}).get("object") or {}
    org = _billing_organization(sub)
    if org is None:
        logger.warning(
            "billing event %s: no organization for subscription %s", payload.get("id"), sub.get("id")
        )
        return "no organization"
    status = str(sub.get("status") or ("canceled" if kind.endswith("deleted") else ""))
    plan = _subscription_plan(sub) if kind != "customer.subscription.deleted" and status in _PAYING else ""
    if not plan:
        if status in _PAYING and kind != "customer.subscription.deleted":
            logger.warning(
                "billing event %s: subscription %s names no known plan", payload.get("id"), sub.get("id")
            )
            return "unknown plan"
        plan = settings.PLAN_AFTER_CANCEL
    created = payload.get("created")
    changed_at = (
        datetime.datetime.fromtimestamp(int(created), tz=datetime.UTC)
        if isinstance(created, (int, float))
        else timezone.now()
    )
    customer = sub.get("customer")
    applied = organization_plan_set(
        organization=org,
        plan=plan,
        status=status,
        changed_at=changed_at,
        customer_id=str(customer.get("id") if isinstance(customer, dict) else customer or ""),
        subscription_id=str(sub.get("id") or ""),
    )
    return f"plan {plan}" if applied else "older than the applied change"


# --- TikTok --------------------------------------------------------------------------------------


def _tiktok(payload: dict) -> str:
    from apps.publishing.services import publication_platform_report

    event, account = str(payload.get("event") or ""), str(payload.get("user_openid") or "")
    if event == "authorization.removed" and account:
        from apps.profiles.services import profile_access_revoked

        return f"{profile_access_revoked(platforms=('tiktok',), external_id=account)} profile(s) disconnected"
    if event.startswith("post.publish."):
        try:
            content = json.loads(payload.get("content") or "{}")
        except (TypeError, ValueError):
            content = {}
        content = content if isinstance(content, dict) else {}
        publish_id, post_id = str(content.get("publish_id") or ""), str(content.get("post_id") or "")
        if event in ("post.publish.complete", "post.publish.publicly_available"):
            pub = publication_platform_report(
                platform="tiktok", account_id=account, publish_id=publish_id, post_id=post_id
            )
        elif event == "post.publish.failed":
            pub = publication_platform_report(
                platform="tiktok",
                account_id=account,
                publish_id=publish_id,
                failed_reason=str(content.get("reason") or "unknown reason"),
            )
        else:
            return "ignored"
        return f"publication {pub.pk}" if pub else "no matching publication"
    return "ignored"


# --- Meta (Instagram, Facebook Pages, Threads) -------------------------------------------------

#: the Instagram and Facebook Page fields whose change means a post of ours was commented on or
#: reacted to (Meta's webhook reference); others (messages, mentions of the account, ...) do
#: not concern a publication
_IG_FIELDS = ("comments", "live_comments")
_FB_FEED_ITEMS = ("comment", "reaction", "share")


def _meta_posts(payload: dict) -> list[tuple[str, str]]:
    """(platform, post id) of each post of an app user that a notification says changed.

    Instagram and Pages: `{object, entry: [{id, time, changes: [{field, value}]}]}` (Instagram
    `comments` name `value.media.id`; a Page's `feed` names `value.post_id` for a comment,
    reaction or share). Threads: `{app_id, topic, target_id, values: {field: "replies",
    value: {root_post: {id}}}}` (the root post is ours)."""
    found: list[tuple[str, str]] = []
    kind = str(payload.get("object") or "")
    for entry in payload.get("entry") or []:
        for change in (entry or {}).get("changes") or []:
            field, value = str(change.get("field") or ""), change.get("value") or {}
            if kind == "instagram" and field in _IG_FIELDS:
                media = str((value.get("media") or {}).get("id") or "")
                if media:
                    found.append(("instagram", media))
            elif (
                kind == "page"
                and field == "feed"
                and value.get("item") in _FB_FEED_ITEMS
                and value.get("verb") in ("add", "edited")
            ):
                post = str(value.get("post_id") or "")
                if post:
                    found.append(("facebook", post))
    values = payload.get("values")
    if isinstance(values, dict) and values.get("field") == "replies":
        root = str(((values.get("value") or {}).get("root_post") or {}).get("id") or "")
        if root:
            found.append(("threads", root))
    return found


def _meta(payload: dict) -> str:
    """A comment, reaction or reply on a post we published pulls its metrics now (the
    analytics queue; at most once per ANALYTICS_PUSH_MIN_SECONDS per post)."""
    from django.db.models import Q

    from apps.core.tasking import task_named
    from apps.publishing.models import Publication

    posts = _meta_posts(payload)
    if not posts:
        return "ignored"
    match = Q()
    for platform, post_id in posts:
        match |= Q(platform=platform, external_id=post_id)
    ids = [
        str(pk)
        for pk in Publication.objects.filter(match, status=Publication.PUBLISHED)
        .values_list("pk", flat=True)
        .distinct()
    ]
    if not ids:
        return "no matching publication"
    refresh = task_named("apps.analytics.tasks.refresh_publications")
    transaction.on_commit(lambda: refresh.delay(ids))
    return f"metrics refresh of {len(ids)} publication(s)"


HANDLERS = {"clerk": _clerk, "workos": _workos, "billing": _billing, "tiktok": _tiktok, "meta": _meta}


def inbound_process(*, provider: str, event_id: str) -> str | None:
    """Apply one recorded webhook's effect once. Returns what happened (None: nothing to do)."""
    handler = HANDLERS.get(provider)
    with transaction.atomic():
        record = (
            InboundWebhook.objects.select_for_update(skip_locked=True)
            .filter(provider=provider, event_id=event_id, processed_at__isnull=True)
            .first()
        )
        if record is None:
            return None
        try:
            with transaction.atomic():  # a malformed payload undoes its partial effect, and is not retried
                outcome = "no effect handler" if handler is None else handler(record.payload)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            logger.warning("%s webhook %s: malformed payload (%r)", provider, event_id, exc)
            outcome = f"malformed payload: {exc!r}"
        record.processed_at = timezone.now()
        record.outcome = str(outcome)[:200]
        record.save(update_fields=["processed_at", "outcome"])
    logger.info("%s webhook %s: %s", provider, event_id, outcome)
    return outcome


def inbound_sweep(*, older_than_seconds: float = 30.0, limit: int = 200) -> int:
    """Process recorded webhooks whose task was lost (the broker was down after the commit)."""
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    pending = list(
        InboundWebhook.objects.filter(processed_at__isnull=True, received_at__lte=cutoff).values_list(
            "provider", "event_id"
        )[:limit]
    )
    done = 0
    for provider, event_id in pending:
        try:
            done += inbound_process(provider=provider, event_id=event_id) is not None
        except Exception:
            logger.exception("%s webhook %s: its effect failed", provider, event_id)
    return done

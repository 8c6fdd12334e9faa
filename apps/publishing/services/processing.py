"""Posts the platform is still processing (TikTok moderation, video processing): the poll and
the platform's later reports."""

from __future__ import annotations

import datetime
import logging
import uuid
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.content.models import Content

from ..models import Publication
from ..platforms.base import (
    OutcomeUnknown,
    PlatformError,
    PublishResult,
)
from .clients import client_for
from .outcomes import (
    _Attempt,
    _Failed,
    _Processing,
    _publication_updated,
    _Published,
    _record,
    _sync_contents,
    _Unknown,
)
from .tokens import token_fresh_for_use, token_refused

logger = logging.getLogger(__name__)


# --- posts the platform is still processing (TikTok moderation) ------------------------------


def processing_poll_due(*, now: datetime.datetime | None = None, limit: int = 50) -> int:
    """Ask the platform again about `processing` publications whose next read is due.

    Each row is claimed under a lease (SELECT ... FOR UPDATE SKIP LOCKED, then `lease_until`
    and a new `claim`), so two pollers never read the same post; the result is recorded only
    while the claim holds. A post still processing is asked again after the next delay of
    PUBLISH_PROCESSING_POLL_DELAYS (TikTok's status/fetch allows 30 calls a minute per user;
    these delays keep one post at 3 a minute at most) or the platform's Retry-After. After
    PUBLISH_PROCESSING_MAX_SECONDS: a post the platform completed without a public id is
    recorded published with the handle it has; anything else becomes `unknown`."""
    from apps.events.services import dispatch_deferred

    now = now or timezone.now()
    lease = now + datetime.timedelta(seconds=settings.PUBLISH_LEASE_SECONDS)
    claim = uuid.uuid4()
    with transaction.atomic():
        ids = list(
            Publication.objects.select_for_update(skip_locked=True)
            .filter(status=Publication.PROCESSING, due_at__lte=now)
            .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
            .order_by("due_at")
            .values_list("pk", flat=True)[:limit]
        )
        if not ids:
            return 0
        Publication.objects.filter(pk__in=ids).update(lease_until=lease, claim=claim, updated_at=now)
    pubs = list(Publication.objects.filter(pk__in=ids, claim=claim).select_related("profile", "content"))
    with dispatch_deferred():
        _record([_processing_check(pub) for pub in pubs], from_status=Publication.PROCESSING)
    return len(pubs)


def _processing_check(pub: Publication, *, refreshed: bool = False) -> _Attempt:
    """One status read for a post the platform is still processing."""
    state = dict(pub.platform_state or {})
    try:
        token_fresh_for_use(pub.profile)
        result = client_for(pub.profile).check_pending(state)
    except PlatformError as exc:
        if exc.code == "media_processing_failed":
            return _Failed(pub, error=exc)
        if exc.token_expired and not refreshed and token_refused(pub.profile, exc) == "refreshed":
            return _processing_check(pub, refreshed=True)
        # Not an answer about the post (rate limit, network, a token to reconnect): ask later.
        return _still_processing(pub, state, error=exc)
    except Exception as exc:  # our own surprise must not strand the row
        logger.exception("Processing check of publication %s failed unexpectedly", pub.pk)
        return _still_processing(
            pub, state, error=PlatformError(f"Unexpected error: {exc.__class__.__name__}: {exc}"[:500])
        )
    if result.pending:
        return _still_processing(pub, {**state, **result.state})
    return _Published(pub, result=result)


def _still_processing(
    pub: Publication, state: dict[str, Any], *, error: PlatformError | None = None
) -> _Attempt:
    since = parse_datetime(str(state.get("since") or "")) or pub.updated_at
    if (timezone.now() - since).total_seconds() < settings.PUBLISH_PROCESSING_MAX_SECONDS:
        return _Processing(
            pub,
            result=PublishResult("", "", pending=True, state=state),
            error=error,
            retry_after=(error.retry_after or 0) if error else 0,
        )
    waited = int(settings.PUBLISH_PROCESSING_MAX_SECONDS // 3600)
    if state.get("status") == "PUBLISH_COMPLETE":
        # The platform published it; moderation never gave the public id. Keep the handle we have.
        result = PublishResult(
            external_id=str(state.get("publish_id") or ""),
            url="",
            visibility=str(state.get("privacy_level") or ""),
        )
        attempt = _Published(pub, result=result)
        return attempt
    message = (
        f"The platform accepted the post but had not finished it after {waited} h "
        f"(last status {state.get('status') or 'unknown'}): confirm it in the admin."
    )
    return _Unknown(pub, error=OutcomeUnknown(message))


# --- what a platform reports later (TikTok's post.publish.* webhooks) ----------------------------------


def publication_platform_report(
    *, platform: str, account_id: str, publish_id: str, post_id: str = "", failed_reason: str = ""
) -> Publication | None:
    """A platform tells, after moderation, how a post it accepted ended: its public post id
    (the id metrics need) or why it failed. Finds the publication by the id the platform
    gave at publish time: one still `processing` (its `publish_id` in `platform_state`) or
    one recorded published under the publish id; an unknown one changes nothing. Idempotent:
    the same report twice writes the same values and records no second event. A report that
    completes a post without its id only makes the poller's next read due now."""
    ids_ = [i for i in (publish_id, post_id) if i]
    if not ids_:
        return None
    with transaction.atomic():
        processing = (
            Publication.objects.filter(
                platform=platform,
                profile__external_id=account_id,
                status=Publication.PROCESSING,
                platform_state__publish_id=publish_id,
            )
            .values_list("pk", "content_id")
            .first()
            if publish_id
            else None
        )
        if processing is not None:
            # the global lock order: the content before its publication
            Content.objects.select_for_update().filter(pk=processing[1]).values_list("pk", flat=True).first()
            pub = (
                Publication.objects.select_for_update(of=("self",))
                .select_related("profile")
                .filter(pk=processing[0], status=Publication.PROCESSING)
                .first()
            )
            if pub is not None:
                return _processing_report(pub, post_id=post_id, failed_reason=failed_reason)
            return None
        published = Publication.objects.filter(
            platform=platform,
            profile__external_id=account_id,
            external_id__in=ids_,
            status=Publication.PUBLISHED,
        )
        content_id = published.values_list("content_id", flat=True).first()
        if content_id is None:
            return None
        Content.objects.select_for_update().filter(pk=content_id).values_list(
            "pk", flat=True
        ).first()  # lock order
        pub = published.select_for_update(of=("self",)).select_related("profile").first()
        if pub is None:
            return None
        if failed_reason:
            pub.status, pub.error_code = Publication.FAILED, failed_reason[:100]
            pub.last_error = f"{platform.capitalize()} did not publish the post: {failed_reason}"[:2000]
            pub.save(update_fields=["status", "last_error", "error_code", "updated_at"])
            _publication_updated(pub)
            _sync_contents([pub.content_id])  # the content was published on this post alone: failed now
            return pub
        if not post_id or pub.external_id == post_id:
            return pub
        pub.external_id = post_id
        if pub.profile.username:
            pub.url = f"https://www.tiktok.com/@{pub.profile.username}/video/{post_id}"
        pub.save(update_fields=["external_id", "url", "updated_at"])
        _publication_updated(pub)
    return pub


def _processing_report(pub: Publication, *, post_id: str, failed_reason: str) -> Publication:
    """The platform's report on a post still `processing` (caller holds the row's lock)."""
    now = timezone.now()
    if not post_id and not failed_reason:
        Publication.objects.filter(pk=pub.pk).update(due_at=now, updated_at=now)  # the poller reads it now
        return pub
    if failed_reason:
        pub.status, pub.error_code = Publication.FAILED, failed_reason[:100]
        pub.last_error = f"{pub.platform.capitalize()} did not publish the post: {failed_reason}"[:2000]
    else:
        state = pub.platform_state or {}
        username = state.get("username") or pub.profile.username
        pub.status, pub.external_id, pub.published_at, pub.last_error, pub.error_code = (
            Publication.PUBLISHED,
            post_id,
            now,
            "",
            "",
        )
        if username:
            pub.url = f"https://www.tiktok.com/@{username}/{state.get('kind') or 'video'}/{post_id}"
        pub.visibility = str(state.get("privacy_level") or pub.visibility)[:40]
    pub.lease_until, pub.outcome_unknown = None, False
    pub.save(
        update_fields=[
            "status",
            "external_id",
            "url",
            "published_at",
            "last_error",
            "error_code",
            "lease_until",
            "outcome_unknown",
            "visibility",
            "updated_at",
        ]
    )
    _publication_updated(pub)
    _sync_contents([pub.content_id])
    return pub

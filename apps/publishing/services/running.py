"""The publish task's body: a claimed chunk's platform calls, one publication at a time."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence

from django.conf import settings

from apps.core.heartbeat import Heartbeat

from ..models import Publication
from ..platforms.base import (
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
)
from .claims import _claim_many, _hand_back, _lease_renewer
from .clients import _chunk_context, _ChunkContext, client_for, post_request_for
from .outcomes import (
    MAX_ATTEMPTS,
    _Attempt,
    _Failed,
    _Flushes,
    _Processing,
    _Published,
    _record,
    _Retry,
    _Unknown,
)
from .reconciliation import _reconciled, _unknown
from .tokens import token_fresh_for_use, token_refused

logger = logging.getLogger(__name__)


def publications_run(publication_ids: Sequence[uuid.UUID | str]) -> list[Publication]:
    """The publish task's body, for a chunk of queued publications.

    One transaction claims the chunk (each row: queued -> publishing with a lease and
    `outcome_unknown` committed before any platform call); then each publication gets its
    platform calls on its own; then one transaction records every result and moves the
    contents. A worker that dies anywhere in between leaves rows the sweep re-queues and
    the next attempt reconciles with the platform first, so nothing goes out twice. A chunk
    that runs past PUBLISH_CHUNK_SECONDS records what it has and hands the untouched rows
    back to the broker; a slow call (over 0.5 s) records at once so progress shows.
    """
    from apps.events.services import dispatch_deferred

    started = time.monotonic()
    done: list[Publication] = []
    with dispatch_deferred() as events:
        claimed = _claim_many(publication_ids)
        if not claimed:
            return done
        with Heartbeat(_lease_renewer(claimed[0][0].claim), lambda: settings.PUBLISH_HEARTBEAT_SECONDS):
            done += _run_claimed(claimed, started, events)
    return done


def _run_claimed(
    claimed: list[tuple[Publication, bool]], started: float, events: _Flushes
) -> list[Publication]:
    done: list[Publication] = []
    context = _chunk_context([pub for pub, _ in claimed])
    attempts: list[_Attempt] = []
    for index, (pub, must_reconcile) in enumerate(claimed):
        if index and time.monotonic() - started > settings.PUBLISH_CHUNK_SECONDS:
            _hand_back(claimed[index:])  # slow platform: do not hold the rest
            break
        call_started = time.monotonic()
        try:
            attempts.append(_attempt(pub, must_reconcile, context))
        except Exception as exc:  # a surprise in one row must not strand the chunk
            logger.exception("Publication %s failed unexpectedly", pub.pk)
            error = OutcomeUnknown(f"Unexpected error: {exc.__class__.__name__}: {exc}"[:500])
            attempts.append(_unknown(pub, error))
        if time.monotonic() - call_started > 0.5:
            done += _record(attempts)
            attempts = []
            events.flush()
    done += _record(attempts)
    return done


def publication_run(publication_id: uuid.UUID | str) -> Publication | None:
    """One publication (publish now); None when there was nothing to do."""
    done = publications_run([publication_id])
    return done[0] if done else None


def _attempt(
    pub: Publication, must_reconcile: bool, context: _ChunkContext | None = None, *, refreshed: bool = False
) -> _Attempt:
    """The platform calls for one claimed publication; its only own write is a token refresh.

    A 401 is answered by one refresh and one more try; the profile is marked expired or
    revoked only when the refresh itself is refused (``oauth.profile_refresh_token``)."""
    client: PlatformClient | None = None
    req: PostRequest | None = None
    try:
        token_fresh_for_use(pub.profile)
        client = client_for(pub.profile)
        req = post_request_for(pub, context)
        if must_reconcile:
            reconciled = _reconciled(pub, client, req)
            if reconciled is not None:
                return reconciled
        _check_quota(pub, client)
        client.validate(req)
        result = client.publish(req)  # the irreversible call (outcome_unknown was committed by the claim)
        if result.pending:  # accepted, still processing (TikTok): the poller follows it up
            return _Processing(pub, result=result)
    except OutcomeUnknown as exc:
        unfindable = client.unfindable_reason(req) if client is not None and req is not None else ""
        if unfindable:  # no later attempt could look for it: a person confirms it
            exc.message = f"{exc.message} ({unfindable})"
            return _Unknown(pub, error=exc)
        return _unknown(pub, exc)
    except PlatformError as exc:
        return _refused(pub, exc, must_reconcile, context, refreshed=refreshed)
    return _Published(pub, result=result)


def _check_quota(pub: Publication, client: PlatformClient) -> None:
    """Refuse (retryable in an hour) when the platform's daily publishing limit is reached."""
    quota = client.publish_quota()
    if quota is not None and quota.remaining <= 0:
        raise PlatformError(
            f"{pub.profile.platform} publishing limit reached ({quota.used}/{quota.limit} in 24 h).",
            code="publish_limit",
            retryable=True,
            retry_after=3600,
        )


def _refused(
    pub: Publication,
    exc: PlatformError,
    must_reconcile: bool,
    context: _ChunkContext | None,
    *,
    refreshed: bool,
) -> _Attempt:
    """The platform refused: an expired token is refreshed once and the attempt tried again;
    otherwise a retry while attempts remain and the error is retryable, else a failure."""
    if exc.token_expired:
        if refreshed:  # a fresh token refused too: try again later, the grant stands
            exc.retryable = True
        else:
            outcome = token_refused(pub.profile, exc)
            if outcome == "refreshed":
                return _attempt(pub, must_reconcile, context, refreshed=True)
            if outcome == "dead":  # never tried again with a token nothing can renew
                exc.message = pub.profile.token_error or (
                    f"{exc.message} (the platform refused to refresh the token: reconnect the profile)"
                )
                return _Failed(pub, error=exc)
            exc.retryable = True  # the refresh could not be tried (network, 5xx): later
    if exc.retryable and pub.attempts < MAX_ATTEMPTS:
        return _Retry(pub, error=exc)
    return _Failed(pub, error=exc)

"""Scheduling and publishing, exactly once.

- `publications_schedule` / `publications_publish_now` create one Publication per
  (content, profile) after checking approval, time, time zone and platform (`scheduling`).
- `dispatch_due` (beat, every few seconds) claims due rows with SELECT ... FOR UPDATE SKIP
  LOCKED, marks them `queued` and enqueues one task each on commit. No ETA tasks (`claims`).
- `publication_run` (the task) claims its row, skips one already published, takes a
  lease, reconciles an unknown outcome with the platform before anything else, commits
  `outcome_unknown=True` before the irreversible call, and records the result in one
  transaction. Retryable errors go back to `scheduled` with backoff (honouring
  Retry-After); permanent ones fail at once with the platform's message (`running`,
  `outcomes`, `reconciliation`, `tokens`).
- `sweep` re-enqueues rows a lost task or a dead worker left behind (`claims`).
- `processing_poll_due` follows posts the platform is still processing (`processing`).
- the queue and posting slots (`slots`).

Every name callers use is re-exported here: `from apps.publishing.services import x` and
`services.x(...)` stay as they were before the split.
"""

from .claims import dispatch_due, sweep
from .clients import client_for, post_request_for
from .outcomes import MAX_ATTEMPTS
from .processing import processing_poll_due, publication_platform_report
from .reconciliation import can_reconcile, publication_resolve
from .running import publication_run, publications_run
from .scheduling import (
    parse_when,
    publication_cancel,
    publication_reschedule,
    publication_retry,
    publications_publish_now,
    publications_schedule,
)
from .slots import (
    Fallback,
    FallbackProvider,
    auto_schedule_approved,
    fallback_slots,
    next_free_slot,
    next_free_slots,
    queue_add,
    register_fallback_slots,
)
from .tokens import token_fresh_for_use, tokens_warn_expiring

__all__ = [
    "MAX_ATTEMPTS",
    "Fallback",
    "FallbackProvider",
    "auto_schedule_approved",
    "can_reconcile",
    "client_for",
    "dispatch_due",
    "fallback_slots",
    "next_free_slot",
    "next_free_slots",
    "parse_when",
    "post_request_for",
    "processing_poll_due",
    "publication_cancel",
    "publication_platform_report",
    "publication_reschedule",
    "publication_resolve",
    "publication_retry",
    "publication_run",
    "publications_publish_now",
    "publications_run",
    "publications_schedule",
    "queue_add",
    "register_fallback_slots",
    "sweep",
    "token_fresh_for_use",
    "tokens_warn_expiring",
]

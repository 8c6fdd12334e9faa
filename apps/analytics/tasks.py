"""Beat-driven collection on its own queue (``analytics``): never in publishing's way.

The sweeps only claim what is due and send it out in chunks; a chunk lost (Redis restart)
or cut short (killed worker) leaves claims that expire, and a later sweep claims again.
"""

from __future__ import annotations

from celery import shared_task

from apps.analytics.models import PullClaim

from . import services


@shared_task(queue="analytics", ignore_result=True)
def collect_due_metrics(limit: int = 500) -> int:
    """Claim every due publication (up to ``limit``) and send the chunks; returns how many
    publications were claimed."""
    chunks = services.claim_due_publications(limit=limit)
    for token, ids in chunks:
        collect_chunk.delay(PullClaim.POST, str(token), [str(i) for i in ids])
    return sum(len(ids) for _, ids in chunks)


@shared_task(queue="analytics", ignore_result=True)
def collect_followers() -> int:
    chunks = services.claim_due_profiles()
    for token, ids in chunks:
        collect_chunk.delay(PullClaim.PROFILE, str(token), [str(i) for i in ids])
    return sum(len(ids) for _, ids in chunks)


@shared_task(queue="analytics", ignore_result=True)
def collect_chunk(kind: str, token: str, ids: list[str]) -> int:
    import uuid

    return services.collect_chunk(kind, uuid.UUID(token), ids)


@shared_task(queue="analytics", ignore_result=True)
def refresh_publications(ids: list[str]) -> int:
    """Pull these posts' metrics now (a platform's webhook said they changed)."""
    return services.publications_refresh(publication_ids=ids)

"""Publishing tasks (thin: ids in, service call)."""

from __future__ import annotations

from celery import shared_task

from apps.core.tasking import DefaultTask, PublishingTask

from . import oauth


@shared_task(base=DefaultTask)
def refresh_expiring_tokens() -> int:
    """Beat, hourly: refresh OAuth tokens before they expire; announce those nothing can renew
    (profile.token_expiring, 7 days and 1 day ahead); forget stale connect attempts."""
    from .services import tokens_warn_expiring

    oauth.oauth_states_purge()
    refreshed = oauth.tokens_refresh_due()
    tokens_warn_expiring()
    return refreshed


# --- publishing ---------------------------------------------------------------------------


@shared_task(base=DefaultTask)
def dispatch_due_publications() -> int:
    """Beat, every few seconds: claim due publications and enqueue one task each."""
    from . import services

    return services.dispatch_due()


@shared_task(base=DefaultTask)
def sweep_publications() -> int:
    """Beat: re-enqueue publications a lost task or a dead worker left behind."""
    from . import services

    return services.sweep()


@shared_task(base=PublishingTask)
def publish_publication(publication_id: str) -> None:
    """One publication (messages queued before chunks existed still arrive here)."""
    from . import services

    services.publications_run([publication_id])


@shared_task(base=PublishingTask)
def publish_publications(publication_ids: list[str]) -> None:
    """A chunk of claimed publications (see services._enqueue)."""
    from . import services

    services.publications_run(publication_ids)


@shared_task(base=PublishingTask)
def poll_processing_publications() -> int:
    """Beat: read the status of posts the platform is still processing (TikTok moderation)."""
    from . import services

    return services.processing_poll_due()

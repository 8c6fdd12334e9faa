from celery import shared_task

from .tasking import DefaultTask


@shared_task(base=DefaultTask)
def purge_idempotency_records() -> int:
    """Beat, hourly: drop Idempotency-Key records older than 24 h."""
    from .idempotency import purge_expired

    return purge_expired()

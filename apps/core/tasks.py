from celery import shared_task
from django.conf import settings


@shared_task(queue="publishing", ignore_result=True)
def bench_noop(counter_key: str) -> None:
    """Celery's own per-task cost, the baseline of bench/scheduler.py: one counter bump."""
    import redis

    redis.Redis.from_url(settings.REDIS_URL).incr(counter_key)


@shared_task(queue="default", ignore_result=True)
def purge_idempotency_records() -> int:
    """Beat, hourly: drop Idempotency-Key records older than 24 h."""
    from .idempotency import purge_expired

    return purge_expired()

from celery import shared_task
from django.conf import settings


@shared_task(queue="publishing", ignore_result=True)
def bench_noop(counter_key: str) -> None:
    """Celery's own per-task cost, the baseline of bench/scheduler.py and bench/webhooks.py: one counter bump."""
    import redis

    redis.Redis.from_url(settings.REDIS_URL).incr(counter_key)

from celery import shared_task
from django.conf import settings

#: the event the realtime bench records (bench/realtime.py reads it by this type)
BENCH_EVENT = "profile.updated"


@shared_task(queue="publishing", ignore_result=True)
def bench_noop(counter_key: str) -> None:
    """Celery's own per-task cost, the baseline of bench/scheduler.py and bench/webhooks.py: one counter bump."""
    import redis

    redis.Redis.from_url(settings.REDIS_URL).incr(counter_key)


@shared_task(queue="default", ignore_result=True)
def bench_event(organization_id: str, seq: int, stamp_key: str) -> None:
    """bench/realtime.py: one event written by a worker as a generation task writes its own
    (recorded in a transaction, fanned out by this task when it ends); the commit time goes
    to Redis so that the bench measures commit to receipt."""
    import time

    import redis
    from django.db import transaction

    from apps.events.services import dispatch_deferred, event_record

    with dispatch_deferred():
        with transaction.atomic():
            # a defined type, so the server renders it into the socket's family as it does every
            # event (`seq` is the bench's own field, carried through as it is)
            event_record(
                organization=organization_id,
                type=BENCH_EVENT,
                data={"profileId": "00000000-0000-4000-8000-000000000000", "seq": seq},
            )
        redis.Redis.from_url(settings.REDIS_URL).hset(stamp_key, seq, repr(time.time()))

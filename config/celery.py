import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("postforge")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


from celery.signals import beat_init, task_received, task_revoked, worker_init, worker_ready  # noqa: E402


@worker_init.connect
def _refuse_insecure_worker(sender=None, **kwargs):
    """Outside development a worker never runs on public secrets (it encrypts refreshed tokens)."""
    from apps.core.secrets_policy import refuse_to_start

    refuse_to_start("worker")


@beat_init.connect
def _refuse_insecure_beat(sender=None, **kwargs):
    from apps.core.secrets_policy import refuse_to_start

    refuse_to_start("beat")


@worker_ready.connect
def _start_worker_heartbeat(sender=None, **kwargs):
    """Liveness key for /readyz and the admin (apps.core.workers)."""
    from apps.core import workers

    queues = (
        sorted(getattr(sender.app.amqp.queues, "consume_from", None) or sender.app.amqp.queues)
        if sender
        else []
    )
    hostname = getattr(sender, "hostname", "worker")
    concurrency = getattr(getattr(sender, "controller", None), "concurrency", None) or 1
    workers.start(hostname, queues, concurrency=concurrency)


@task_received.connect
@task_revoked.connect
def _note_task_received(sender=None, **kwargs):
    """The worker's consumer is taking messages (its stall watch, apps.core.workers)."""
    from apps.core import workers

    workers.note_received()


from celery.signals import task_prerun  # noqa: E402

_PERIODIC: set[str] = set()


@task_received.connect
@task_prerun.connect
@task_revoked.connect
def _release_tick(sender=None, **kwargs):
    """A worker took a periodic task from its queue (or it expired unstarted): beat may send its
    next tick (apps.core.beat). On receipt, not only at the start: a worker killed while holding
    the message does not hold the tick back until its marker expires."""
    from django.conf import settings

    if not _PERIODIC:
        _PERIODIC.update(entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values())
    request = kwargs.get("request")
    name = (
        getattr(request, "name", None)
        or getattr(getattr(request, "task", None), "name", None)
        or getattr(sender, "name", None)
    )
    if name in _PERIODIC:
        from apps.core import beat

        beat.release_tick(name)

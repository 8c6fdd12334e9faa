import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("postforge")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


from celery.signals import worker_ready  # noqa: E402


@worker_ready.connect
def _start_worker_heartbeat(sender=None, **kwargs):
    """Liveness key for /readyz and the admin (apps.core.workers)."""
    from apps.core import workers

    queues = sorted(q.name for q in getattr(sender.app.amqp, "queues", {}).values()) if sender else []
    hostname = getattr(sender, "hostname", "worker")
    workers.start(hostname, queues)

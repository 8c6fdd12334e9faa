"""Task bases, one per queue: the queue, acknowledgement and retry policy a task declares.

A task picks its queue's base (`@shared_task(base=PublishingTask)`) and adds what is its own:
`autoretry_for` (the retryable error types only), `retry_backoff`, `max_retries` (from
settings), `throws` (expected permanent errors: recorded by `failed` and not raised, so
neither the worker's log nor an eager caller sees a traceback) and `failed` (the service that
records a failure for good, called with the task's arguments for those and from `on_failure`
for any other error that ends the task). The body is one service call.
"""

from __future__ import annotations

import logging
from importlib import import_module
from importlib.util import find_spec
from typing import Any, ClassVar

from celery import Task, current_app

logger = logging.getLogger(__name__)


def task_named(name: str) -> Task:
    """The registered task `name`: services enqueue the work their app's tasks module runs by
    the task's name, so that tasks import services and services never import tasks. A name
    is looked up in the module it names first, then in every installed app's tasks."""
    if name not in current_app.tasks:  # its module not loaded in this process yet (no worker autodiscovery)
        module = name.rpartition(".")[0]
        if find_spec(module) is not None:
            import_module(module)
    if name not in current_app.tasks:
        # a task that kept its name when its module moved (queued messages and the beat
        # schedule name it): load every installed app's tasks module, as a worker does
        current_app.autodiscover_tasks(force=True)
    return current_app.tasks[name]


class QueueTask(Task):
    ignore_result = True
    queue: ClassVar[str] = "default"
    #: exponential backoff without jitter (2, 4, 8 ... s), capped; used with autoretry_for
    retry_jitter = False
    retry_backoff_max = 60

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.throws:
            return super().__call__(*args, **kwargs)
        try:
            return super().__call__(*args, **kwargs)
        except self.throws as exc:  # expected and permanent (or out of retries): recorded, not raised
            self.failed(exc, *args, **kwargs)
            return None

    def failed(self, exc: BaseException, *args: Any, **kwargs: Any) -> None:
        """Record a failure for good (no retry left, or a permanent error); nothing by default."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: tuple[Any, ...], kwargs: dict[str, Any], einfo: Any
    ) -> None:
        try:
            self.failed(exc, *args, **kwargs)
        except Exception:  # recording the failure must not hide the task's own error
            logger.exception("Recording the failure of %s[%s] failed", self.name, task_id)


class DefaultTask(QueueTask):
    """Beat sweeps and short housekeeping."""

    queue = "default"


class GenerationTask(QueueTask):
    """Generation: long, acknowledged after it ran (a lost worker's generation runs again)."""

    queue = "generation"
    acks_late = True


class PublishingTask(QueueTask):
    """Publishing: acknowledged after it ran, and given back when the worker is lost."""

    queue = "publishing"
    acks_late = True
    reject_on_worker_lost = True


class WebhooksTask(QueueTask):
    queue = "webhooks"
    acks_late = True


class AnalyticsTask(QueueTask):
    queue = "analytics"

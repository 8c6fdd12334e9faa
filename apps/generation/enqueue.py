"""The generation's task names, and how a generation is queued.

The tasks (``apps.generation.tasks``) keep the names they were registered under when they
lived in ``apps.content.tasks``: queued messages and the beat schedule (config/settings.py)
name a task by its name, so the names stay as they are while the module moved."""

from __future__ import annotations

from apps.core.tasking import task_named

GENERATE_CONTENT = "apps.content.tasks.generate_content"
SWEEP_GENERATIONS = "apps.content.tasks.sweep_generations"
COMPLETE_PREDICTION = "apps.content.tasks.complete_prediction"
POLL_STALE_PREDICTIONS = "apps.content.tasks.poll_stale_predictions"


def enqueue_generation(content_id: str) -> None:
    task_named(GENERATE_CONTENT).delay(content_id)

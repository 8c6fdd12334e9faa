"""gunicorn's settings for Postforge's web role: `gunicorn config.wsgi:application -c config/gunicorn.py`.

Metrics across processes (apps/core/metrics.py): PROMETHEUS_MULTIPROC_DIR is set (default
<var>/prometheus) before any worker loads the application, emptied when the server starts, and a
dead worker's live gauges are dropped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

_var = Path(os.environ.get("POSTFORGE_VAR_DIR") or Path(__file__).resolve().parent.parent / "var")
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(_var / "prometheus"))


def on_starting(server: Any) -> None:
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    shutil.rmtree(folder, ignore_errors=True)  # the last run's counts are not this one's
    folder.mkdir(parents=True, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)

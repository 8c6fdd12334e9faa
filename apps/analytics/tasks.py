"""Beat-driven collection on its own queue (``analytics``): never in publishing's way."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(queue="analytics", ignore_result=True)
def collect_due_metrics(limit: int = 500) -> int:
    """Pull every due publication; a 429 pauses that platform until its retry-after."""
    done = 0
    for publication in services.due_publications(limit=limit).select_related("profile"):
        try:
            if services.collect_publication(publication) is not None:
                done += 1
        except services.Backoff:
            continue  # this platform is paused; others go on
        except Exception:  # one post's failure does not stop the sweep
            services.log.exception("metrics pull failed for publication %s", publication.pk)
    return done


@shared_task(queue="analytics", ignore_result=True)
def collect_followers() -> int:
    done = 0
    for profile in services.due_profiles():
        try:
            services.collect_profile(profile)
            done += 1
        except services.Backoff:
            continue
        except Exception:
            services.log.exception("follower pull failed for profile %s", profile.pk)
    return done

"""Publishing's answers to what content announces (apps.content.signals)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from apps.content.models import Content
from apps.content.signals import content_approved

from .services import auto_schedule_approved


@receiver(content_approved, dispatch_uid="publishing.auto_schedule_approved")
def schedule_auto_published(sender: type[Content], *, content: Content, **kwargs: Any) -> None:
    """Approved content of an `auto_publish` brand goes to its profile's next free slot, in the
    approving transaction (the content row is still locked)."""
    if content.brand.auto_publish:
        auto_schedule_approved(content=content)

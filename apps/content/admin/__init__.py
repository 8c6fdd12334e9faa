"""The staff console for content (design section 10): lists, the review queue, the content page.

Every action calls a service (apps.content.services; schedule and publish-now are registered by
apps.publishing.admin as console actions); a service's refusal (InvalidTransition,
ValidationFailed, PlatformFailure, ...) becomes an admin error message, never a 500. Nothing
here decides a rule.

- ``lists``: filters, columns and bulk actions (``ContentListAdmin``);
- ``console``: the content page and its actions, the registry other apps add to
  (``register_console_action``), the live counter's measure (``ContentAdmin``);
- ``variants``: the variant cards (``VariantCard``, a typed presenter);
- ``queue``: the review queue (``ReviewQueueAdmin``).
"""

from __future__ import annotations

from .console import (
    CONSOLE_ACTIONS,
    CONSOLE_PANELS,
    ConsoleAction,
    ConsolePanel,
    ConsoleView,
    ContentAdmin,
    queue_query,
    register_console_action,
    register_console_panel,
)
from .lists import ContentListAdmin, PlatformFilter, RejectForm, StatusFilter, error_text
from .queue import ReviewQueueAdmin
from .variants import VariantCard

__all__ = [
    "CONSOLE_ACTIONS",
    "CONSOLE_PANELS",
    "ConsoleAction",
    "ConsolePanel",
    "ConsoleView",
    "ContentAdmin",
    "ContentListAdmin",
    "PlatformFilter",
    "RejectForm",
    "ReviewQueueAdmin",
    "StatusFilter",
    "VariantCard",
    "error_text",
    "queue_query",
    "register_console_action",
    "register_console_panel",
]

"""Content writes: creation for generation, the status machine, edits, approval, images,
schedules and batches, tags and campaigns (one module per concern; every name is importable
from here, as callers did when this was one module).

Every transition runs here, in a transaction, with the row locked, and records its event.
"""

from __future__ import annotations

# read from this module by callers when it was one file: the status machine's step, the shown media
from ..machine import transition
from ..selectors import current_media
from .approval_links import (
    LinkDead,
    approval_link_create,
    approval_link_decide,
    approval_link_open,
    approval_link_revoke,
    token_for,
)
from .batches import (
    batch_item_finished,
    batch_progress,
    batch_start,
    schedule_plan,
)
from .creation import (
    MAX_IMAGES,
    GenerationInput,
    caption_optimize,
    content_ideas,
    content_request_generation,
    content_request_multi_platform,
    engine_languages,
    enqueue_generation_id,
    generation_brand,
    generations_within_plan,
)
from .disclosure import (
    ai_disclosure_check,
    ai_disclosure_of,
    content_ai_disclosure_compute,
    content_set_ai_disclosure,
)
from .history import actor_label, history_record, review_opened, text_changes
from .intent import content_intent_record, content_intent_set, intent_reading
from .labels import (
    campaign_create,
    campaign_delete,
    campaign_update,
    tag_create,
    tag_delete,
    tag_update,
)
from .review import (
    TEXT_LOCKED,
    content_approve,
    content_batch_apply,
    content_delete,
    content_edit_image,
    content_move_brand,
    content_new_design,
    content_regenerate,
    content_reject,
    content_undo_image_edit,
    content_update,
    variant_upsert,
)

__all__ = [
    "MAX_IMAGES",
    "TEXT_LOCKED",
    "GenerationInput",
    "LinkDead",
    "actor_label",
    "ai_disclosure_check",
    "ai_disclosure_of",
    "approval_link_create",
    "approval_link_decide",
    "approval_link_open",
    "approval_link_revoke",
    "batch_item_finished",
    "batch_progress",
    "batch_start",
    "campaign_create",
    "campaign_delete",
    "campaign_update",
    "caption_optimize",
    "content_ai_disclosure_compute",
    "content_approve",
    "content_batch_apply",
    "content_delete",
    "content_edit_image",
    "content_ideas",
    "content_intent_record",
    "content_intent_set",
    "content_move_brand",
    "content_new_design",
    "content_regenerate",
    "content_reject",
    "content_request_generation",
    "content_request_multi_platform",
    "content_set_ai_disclosure",
    "content_undo_image_edit",
    "content_update",
    "current_media",
    "engine_languages",
    "enqueue_generation_id",
    "generation_brand",
    "generations_within_plan",
    "history_record",
    "intent_reading",
    "review_opened",
    "schedule_plan",
    "tag_create",
    "tag_delete",
    "tag_update",
    "text_changes",
    "token_for",
    "transition",
    "variant_upsert",
]

"""What of a content item an AI made (issue 32): computed when a generation finishes, or set
by a person (an override no later generation undoes). Publishing carries it into the
platforms' AI labels (YouTube's containsSyntheticMedia, TikTok's is_aigc)."""

from __future__ import annotations

from django.db import transaction

from apps.core.errors import InvalidSubject
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset

from ..machine import event_data, lock
from ..models import AIDisclosure, Content
from .history import history_record


def ai_disclosure_of(*, text: bool, media: bool) -> str:
    """`both`, `text`, `media` or `none`, from what an AI made."""
    if text and media:
        return AIDisclosure.BOTH
    return AIDisclosure.TEXT if text else AIDisclosure.MEDIA if media else AIDisclosure.NONE


def content_ai_disclosure_compute(*, content: Content, text_generated: bool) -> Content:
    """Called as a generation finishes (in its transaction, the row locked): `text_generated`
    says an engine wrote the text; the media is AI-made when a model made the content's
    media (an upload, the client's own, is not). A person's choice stays (`overridden`)."""
    if content.ai_disclosure_overridden:
        return content
    media_generated = MediaAsset.objects.filter(content=content, kind=Kind.GENERATED).exists()
    value = ai_disclosure_of(text=text_generated, media=media_generated)
    if value != content.ai_disclosure:
        content.ai_disclosure = value
        content.save(update_fields=["ai_disclosure", "updated_at"])
    return content


def ai_disclosure_check(value: str) -> str:
    if value not in AIDisclosure.values:
        raise InvalidSubject(
            f"Unknown AI disclosure {str(value)[:40]!r}: use none, text, media or both.",
            "ai_disclosure",
            "Must be one of none, text, media, both.",
        )
    return value


@transaction.atomic
def content_set_ai_disclosure(
    *, content: Content, value: str, actor=None, record_event: bool = True
) -> Content:
    """A person says what of the content an AI made (an API's PUT/PATCH, the admin's select):
    it overrides the computed value from now on, and goes into the content's history.

    `record_event=False`: the caller records the `content.updated` itself (content_update)."""
    ai_disclosure_check(value)
    content = lock(content.pk)
    before, was_overridden = content.ai_disclosure, content.ai_disclosure_overridden
    if before == value and was_overridden:
        return content
    content.ai_disclosure, content.ai_disclosure_overridden = value, True
    content.save(update_fields=["ai_disclosure", "ai_disclosure_overridden", "updated_at"])
    history_record(
        content=content,
        actor=actor,
        action="ai_disclosure",
        changes={"aiGenerated": {"before": before, "after": value}},
        note=f"AI-generated: {before} → {value} (set by a person)",
    )
    if record_event:
        event_record(organization=content.organization_id, type="content.updated", data=event_data(content))
    return content

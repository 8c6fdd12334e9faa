"""Publication output for both families (ids prefixed in A, UUIDs in B).

Read through `Content.publications` (a relation publishing declares); it lives beside the content
presenters because content output embeds it, and content never imports publishing."""

from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import iso


class PublicationOutput(serializers.Serializer):
    id = serializers.CharField()
    contentId = serializers.CharField()
    profileId = serializers.CharField()
    platform = serializers.CharField()
    status = serializers.CharField()
    scheduledFor = serializers.DateTimeField()
    publishedAt = serializers.DateTimeField(allow_null=True)
    externalId = serializers.CharField(allow_null=True)
    url = serializers.CharField(allow_null=True)
    attempts = serializers.IntegerField()
    lastError = serializers.CharField(allow_null=True)
    firstCommentError = serializers.CharField(allow_null=True)


def present(pub, *, family: str) -> dict:
    a = family == "v1"
    return {
        "id": ids.render(pub.pk, "publication") if a else str(pub.pk),
        "contentId": ids.render(pub.content_id, "content") if a else str(pub.content_id),
        "profileId": ids.render(pub.profile_id, "profile") if a else str(pub.profile_id),
        "platform": pub.profile.platform,
        "status": pub.status,
        "scheduledFor": iso(pub.scheduled_for),
        "publishedAt": iso(pub.published_at),
        "externalId": pub.external_id or None,
        "url": pub.url or None,
        "attempts": pub.attempts,
        "lastError": pub.last_error or None,
        "firstCommentError": pub.first_comment_error or None,
    }


def publications_of(content) -> list:
    """Prefetched by the content selectors (`publication_list`); a fresh query otherwise."""
    cached = getattr(content, "publication_list", None)
    if cached is not None:
        return cached
    return list(content.publications.select_related("profile").order_by("scheduled_for", "created_at"))

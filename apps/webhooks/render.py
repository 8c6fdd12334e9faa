"""An event's webhook `data`: the resource as Family A renders it (the same presenters as
GET /v1/...), read when the delivery is created (at dispatch, right after the commit that
recorded the event), and read once for every event of the dispatch.

- content.* (but content.deleted): the content as GET /v1/content/{id} renders it, with its
  publications (platform post ids and URLs for content.published, each platform's error for
  content.failed) and, when the event gave one, `reason`;
- publication.*: the publication as it appears in the content, plus `error` and `errorCode`;
- profile.connected | profile.token_expired | profile.token_expiring: the profile as GET
  /v1/profiles/{id}, with the event's status, reason, expiresAt and daysLeft;
- anything else, or a resource gone by then (content.deleted, profile.disconnected): the
  event's own fields, their ids in Family A form.
"""

from __future__ import annotations

from apps.core import ids

#: event data keys holding ids, and their kinds (rendered `cnt_...` etc. as Family A does)
ID_KEYS = {
    "contentId": "content",
    "profileId": "profile",
    "publicationId": "publication",
    "batchId": "batch",
    "brandId": "brand",
    "webhookId": "webhook",
    "mediaId": "media",
    "scheduleId": "schedule",
}
PROFILE_EVENTS = ("profile.connected", "profile.token_expired", "profile.token_expiring")
#: what a profile event says besides the profile (why it expired, when it will)
PROFILE_EVENT_KEYS = ("status", "reason", "expiresAt", "daysLeft")


def _ids_a(data: dict) -> dict:
    out = {}
    for key, value in data.items():
        kind = ID_KEYS.get(key)
        parsed = ids.parse(value, kind) if kind and isinstance(value, str) else None
        out[key] = ids.render(parsed, kind) if parsed and kind else value
    return out


def _pk(event, key: str, kind: str):
    value = event.data.get(key)
    return ids.parse(value, kind) if isinstance(value, str) else None


def render_events(events) -> dict:
    """{event pk: data} for these events, with a fixed number of queries per kind."""
    from apps.content.selectors import content_get
    from apps.content.serializers import present_publication
    from apps.content.v1.serializers import present_content
    from apps.profiles.models import SocialProfile
    from apps.profiles.v1.serializers import present_profile
    from apps.publishing.models import Publication

    content_ids = {
        _pk(e, "contentId", "content")
        for e in events
        if e.type.startswith("content.") and e.type != "content.deleted"
    } - {None}
    publication_ids = {
        _pk(e, "publicationId", "publication") for e in events if e.type.startswith("publication.")
    } - {None}
    profile_ids = {_pk(e, "profileId", "profile") for e in events if e.type in PROFILE_EVENTS} - {None}

    contents, publications, profiles = {}, {}, {}
    if content_ids:
        org_ids = {e.organization_id for e in events}
        for org_id in org_ids:
            contents.update({c.pk: c for c in content_get(organization=org_id).filter(pk__in=content_ids)})
    if publication_ids:
        publications = {
            p.pk: p for p in Publication.objects.filter(pk__in=publication_ids).select_related("profile")
        }
    if profile_ids:
        profiles = {p.pk: p for p in SocialProfile.objects.filter(pk__in=profile_ids)}

    rendered = {}
    for event in events:
        base = _ids_a(event.data)
        content = (
            contents.get(_pk(event, "contentId", "content")) if event.type.startswith("content.") else None
        )
        publication = publications.get(_pk(event, "publicationId", "publication"))
        profile = profiles.get(_pk(event, "profileId", "profile")) if event.type in PROFILE_EVENTS else None
        if content is not None and content.organization_id == event.organization_id:
            data = present_content(content)
            if event.data.get("reason"):
                data["reason"] = event.data["reason"]
        elif publication is not None and publication.organization_id == event.organization_id:
            data = present_publication(publication, family="v1")
            data.update(error=publication.last_error or None, errorCode=publication.error_code or None)
        elif profile is not None and profile.organization_id == event.organization_id:
            data = present_profile(profile)
            data.update({k: event.data[k] for k in PROFILE_EVENT_KEYS if k in event.data})
        else:
            data = base
        rendered[event.pk] = data
    return rendered

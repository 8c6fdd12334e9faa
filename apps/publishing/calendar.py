"""The admin calendar's reads: an organization's posts and free posting slots in a month or a week.

One organization at a time (optionally one brand or one profile), drawn in one time zone:
- posts: publications that are scheduled, on their way out, published or failed (cancelled ones
  are not shown), placed at their publish time (a published post at the time it went out);
- slots: each connected profile's (with a valid grant) posting times (``settings.postingTimes``) that no open
  publication of that profile takes, in the future: where the queue would put the next post.

The whole read is four statements however many posts and profiles there are (publications with
their profile, brand and content; the content's current media; its variants; the profiles).
"""

from __future__ import annotations

import datetime
import uuid
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q
from django.urls import reverse
from django.utils import timezone

from apps.content.models import Variant
from apps.content.selectors import media_for_ratio
from apps.core.errors import InvalidSubject
from apps.core.timezones import is_timezone
from apps.media.models import Kind, MediaAsset
from apps.profiles.models import SocialProfile
from apps.profiles.services import schedule_slots

from .models import Publication

VIEWS = ("month", "week")
#: what the calendar shows (cancelled publications are gone from the plan)
SHOWN = (
    Publication.SCHEDULED,
    Publication.QUEUED,
    Publication.PUBLISHING,
    Publication.PROCESSING,
    Publication.PUBLISHED,
    Publication.FAILED,
    Publication.UNKNOWN,
)
#: more slots than this in one answer are cut (a profile posting every 15 minutes for a month)
MAX_SLOTS = 2000
CURRENT_MEDIA = (Kind.GENERATED, Kind.UPLOAD)


@dataclass(frozen=True)
class Window:
    """The days a view shows, as local dates in ``tz`` and the UTC instants that bound them."""

    view: str
    tz: zoneinfo.ZoneInfo
    first: datetime.date  # the first day drawn (a Monday)
    days: int  # 7 (week) or 42 (month: six weeks)
    month: int  # the month a month view is about (its other days are drawn dimmed)

    @property
    def start(self) -> datetime.datetime:
        return datetime.datetime.combine(self.first, datetime.time(), tzinfo=self.tz)

    @property
    def end(self) -> datetime.datetime:
        last = self.first + datetime.timedelta(days=self.days)
        return datetime.datetime.combine(last, datetime.time(), tzinfo=self.tz)


def calendar_window(*, view: str, day: str | None, tz_name: str | None) -> Window:
    """The month (six Monday-first weeks around it) or the week (Monday to Sunday) holding ``day``
    (``YYYY-MM-DD``; default today in ``tz_name``). Bad input is an InvalidSubject per field."""
    if view not in VIEWS:
        raise InvalidSubject(f"view must be one of {', '.join(VIEWS)}.", "view", "Unknown view.")
    if tz_name and not is_timezone(tz_name):  # a name the tz database lists (not a 100 kB path)
        raise InvalidSubject("tz must be an IANA time zone.", "tz", "Unknown time zone.")
    tz = zoneinfo.ZoneInfo(tz_name or "UTC")
    if day:
        try:
            anchor = datetime.date.fromisoformat(day)
        except ValueError:
            raise InvalidSubject("date must be YYYY-MM-DD.", "date", "Invalid date.") from None
    else:
        anchor = timezone.now().astimezone(tz).date()
    if view == "week":
        first = anchor - datetime.timedelta(days=anchor.weekday())
        if first.year < 2 or anchor.year > 9998:  # the week and its end must stay representable
            raise InvalidSubject("date is out of range.", "date", "Out of range.")
        return Window(view, tz, first, 7, anchor.month)
    first_of_month = anchor.replace(day=1)
    first = first_of_month - datetime.timedelta(days=first_of_month.weekday())
    if first.year < 2 or anchor.year > 9998:  # six weeks from there must stay representable
        raise InvalidSubject("date is out of range.", "date", "Out of range.")
    return Window(view, tz, first, 42, anchor.month)


def _thumb(media: list[MediaAsset]) -> tuple[str, str]:
    if not media:
        return "", ""
    asset = media[0]
    if asset.media_type == "video":
        return (asset.thumbnail.url if asset.thumbnail else ""), "video"
    return (asset.thumbnail or asset.file).url, "image"


def _local(when: datetime.datetime, tz: zoneinfo.ZoneInfo) -> dict[str, str]:
    local = when.astimezone(tz)
    return {
        "at": when.astimezone(datetime.UTC).isoformat(),
        "date": local.date().isoformat(),
        "time": f"{local:%H:%M}",
    }


def calendar_data(
    *,
    organization_id: uuid.UUID,
    window: Window,
    brand_id: uuid.UUID | None = None,
    profile_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """The posts and free slots of one organization in ``window`` (see the module)."""
    start, end = window.start, window.end
    in_window = (
        Q(status=Publication.PUBLISHED, published_at__gte=start, published_at__lt=end)
        | (~Q(status=Publication.PUBLISHED) & Q(scheduled_for__gte=start, scheduled_for__lt=end))
        | Q(
            status=Publication.PUBLISHED,
            published_at__isnull=True,
            scheduled_for__gte=start,
            scheduled_for__lt=end,
        )
    )
    pubs = Publication.objects.filter(in_window, organization_id=organization_id, status__in=SHOWN)
    # a profile that cannot publish (disconnected, its grant lapsed) offers no slot
    profiles = SocialProfile.objects.filter(
        organization_id=organization_id, connected=True, token_status="valid"
    )
    if brand_id:
        # the content's brand (a brand's post may go out on another brand's profile, as the
        # README's first session does); free slots of the brand's profiles and of those carrying
        # its posts
        pubs = pubs.filter(content__brand_id=brand_id)
        profiles = profiles.filter(Q(brand_id=brand_id) | Q(pk__in=pubs.values("profile_id")))
    if profile_id:
        pubs, profiles = pubs.filter(profile_id=profile_id), profiles.filter(pk=profile_id)
    current = MediaAsset.objects.filter(kind__in=CURRENT_MEDIA).order_by("position", "created_at")
    pubs = (
        pubs.select_related("profile", "profile__brand", "content", "content__brand")
        .prefetch_related(
            Prefetch("content__media_assets", queryset=current, to_attr="current_media"),
            Prefetch(
                "content__variants",
                queryset=Variant.objects.only("content_id", "platform", "caption", "ratio"),
            ),
        )
        .order_by("scheduled_for", "created_at")
    )
    posts = []
    taken: dict[uuid.UUID, set[datetime.datetime]] = {}
    for pub in pubs:
        when = (
            pub.published_at
            if pub.status == Publication.PUBLISHED and pub.published_at
            else pub.scheduled_for
        )
        if pub.status in Publication.OPEN_STATUSES:
            taken.setdefault(pub.profile_id, set()).add(pub.scheduled_for)
        platform = pub.platform or pub.profile.platform
        ratio = next((v.ratio for v in pub.content.variants.all() if v.platform == platform), "")
        # the thumbnail of the picture made for this publication's platform
        thumb, media_type = _thumb(media_for_ratio(list(getattr(pub.content, "current_media", [])), ratio))
        caption = next((v.caption for v in pub.content.variants.all() if v.platform == platform), None)
        posts.append(
            {
                "id": str(pub.pk),
                "contentId": str(pub.content_id),
                "platform": platform,
                "status": pub.status,
                **_local(when, window.tz),
                "profileId": str(pub.profile_id),
                "profile": pub.profile.username,
                "brand": (pub.content.brand or pub.profile.brand).name,
                "text": _excerpt(pub.content.prompt if caption is None else caption),
                "thumb": thumb,
                "mediaType": media_type,
                "adminUrl": reverse("admin:content_content_change", args=[pub.content_id]),
                "draggable": pub.status == Publication.SCHEDULED,
                "error": pub.last_error[:300]
                if pub.status in (Publication.FAILED, Publication.UNKNOWN)
                else "",
                "postUrl": pub.url,
            }
        )
    now = timezone.now()
    slots: list[dict[str, str]] = []
    for profile in profiles.order_by("platform", "username"):
        if not profile.posting_times:
            continue
        days = window.days + 1  # a profile east of the calendar's zone starts its day earlier
        for slot in schedule_slots(profile=profile, days=days, start=max(start, now)):
            if start <= slot < end and slot not in taken.get(profile.pk, set()):
                slots.append(
                    {
                        "profileId": str(profile.pk),
                        "platform": profile.platform,
                        "profile": profile.username,
                        **_local(slot, window.tz),
                    }
                )
    slots.sort(key=lambda s: (s["at"], s["platform"], s["profile"]))
    return {
        "view": window.view,
        "tz": window.tz.key,
        "start": window.first.isoformat(),
        "end": (window.first + datetime.timedelta(days=window.days)).isoformat(),
        "month": window.month,
        "posts": posts,
        "slots": slots[:MAX_SLOTS],
        "slotsCut": len(slots) > MAX_SLOTS,
    }


def _excerpt(text: str) -> str:
    text = " ".join((text or "").split())
    return text[:90] + ("…" if len(text) > 90 else "")

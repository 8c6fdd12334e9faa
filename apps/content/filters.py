"""The content lists' filters (apps.core.filters): one FilterSet per family, each reading its
family's query names into the same filters. A bad value is a 400 naming the parameter."""

from __future__ import annotations

import re
from typing import ClassVar

from django.db.models import QuerySet

from apps.core.errors import ValidationFailed
from apps.core.filters import FamilyFilterSet, ListFilterSet, query_filter
from apps.platforms import rules as platform_rules
from apps.profiles.models import SocialProfile

from . import selectors, states
from .models import ContentSchedule


def status_words(family: str) -> list[str]:
    word = states.word_a if family == "v1" else states.word_b
    return list(dict.fromkeys(word(s) for s in states.STATUSES))


def status_schema(family: str) -> dict:
    """What `parse_statuses` accepts: status words separated by commas (spaces around them and
    empty items are ignored, one word at least); empty, the parameter is left out."""
    word = "(?:" + "|".join(re.escape(w) for w in status_words(family)) + ")"
    return {
        "type": "string",
        "pattern": rf"^(?:(?: *,)* *{word} *(?:,(?: *{word})? *)*)?$",
    }


def parse_statuses(raw: str, *, family: str) -> list[str]:
    """`status=a,b` in the family's words -> model statuses; an unknown word is a 400 naming the allowed."""
    to_model = states.FROM_FAMILY_A if family == "v1" else states.FROM_FAMILY_B
    allowed = status_words(family)
    wanted = [w.strip(" ") for w in raw.split(",") if w.strip(" ")]
    unknown = [w for w in wanted if w not in allowed]
    if unknown or not wanted:
        raise ValidationFailed(
            f"Unknown status: {', '.join(unknown) or raw}.", {"status": [f"Allowed: {', '.join(allowed)}."]}
        )
    return [to_model.get(w, w) for w in wanted]


def parse_platform(raw: str) -> str:
    try:
        return platform_rules.normalize_platform(raw)
    except ValueError:
        raise ValidationFailed(
            f"Unknown platform '{raw}'.",
            {"platform": [f"Must be one of {', '.join(platform_rules.SUPPORTED_PLATFORMS)}."]},
        ) from None


#: what OpenAPI says of `platform` and of each family's `status`
PLATFORM_SCHEMA = {"type": "string", "enum": list(platform_rules.SUPPORTED_PLATFORMS)}


def statuses_help(family: str) -> str:
    return "One status or several, comma-separated: " + ", ".join(status_words(family))


class _ContentFilters:
    """What both families' content filters do; each FilterSet declares its parameters in the
    order they are checked."""

    family: ClassVar[str]

    def filter_status(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(status__in=parse_statuses(value, family=self.family))

    def filter_platform(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        # `platforms` is a JSON list of lowercase names; quoting the name matches one element exactly
        return queryset.filter(platforms__icontains=f'"{parse_platform(value)}"')


class ContentFilterA(_ContentFilters, ListFilterSet):
    """GET /v1/content"""

    family = "v1"
    date_bounds: ClassVar[dict[str, str]] = {"startDate": "gte", "endDate": "lte"}

    profileId = query_filter("filter_profile")
    status = query_filter("filter_status", description=statuses_help("v1"), schema=status_schema("v1"))
    platform = query_filter("filter_platform", schema=PLATFORM_SCHEMA)
    startDate = query_filter("filter_date")
    endDate = query_filter("filter_date")

    def filter_profile(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(
            profile_id=self.id_of(value, kind="profile", field=name, detail="Not a profile id.")
        )


class ContentFilter(_ContentFilters, FamilyFilterSet):
    """GET /api/content (and `q`/`search` over the prompt, `date_from`/`date_to` on creation)"""

    family = "api"
    search_fields = ("prompt",)

    profileId = query_filter("filter_profile")
    tagId = query_filter("filter_tag")
    campaignId = query_filter("filter_campaign")
    status = query_filter("filter_status", description=statuses_help("api"), schema=status_schema("api"))
    platform = query_filter("filter_platform", schema=PLATFORM_SCHEMA)

    def filter_profile(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        profiles = SocialProfile.objects.for_organization(self.organization)
        return queryset.filter(profile_id=self.referenced(profiles, value, kind="profile", field=name).pk)

    def filter_tag(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        tags = selectors.tag_list(organization=self.organization)
        return queryset.filter(tags__id=self.referenced(tags, value, kind="tag", field=name).pk)

    def filter_campaign(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        campaigns = selectors.campaign_list(organization=self.organization)
        return queryset.filter(campaign_id=self.referenced(campaigns, value, kind="campaign", field=name).pk)


class ScheduleFilter(FamilyFilterSet):
    """GET /api/content/schedules"""

    search_fields = ("task",)
    STATUSES: ClassVar[tuple[str, ...]] = (
        ContentSchedule.PLANNED,
        ContentSchedule.GENERATING,
        ContentSchedule.GENERATED,
        ContentSchedule.FAILED,
    )

    profileId = query_filter("filter_profile")
    status = query_filter("filter_status", schema={"type": "string", "enum": list(STATUSES)})

    def filter_profile(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        profiles = SocialProfile.objects.for_organization(self.organization)
        return queryset.filter(profile_id=self.referenced(profiles, value, kind="profile", field=name).pk)

    def filter_status(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value not in self.STATUSES:
            raise ValidationFailed(
                f"Unknown status '{value}'.", {"status": [f"Allowed: {', '.join(self.STATUSES)}."]}
            )
        return queryset.filter(status=value)


class BatchFilter(FamilyFilterSet):
    """GET /api/batch: `date_from`/`date_to` on creation (a batch has no text to search)."""

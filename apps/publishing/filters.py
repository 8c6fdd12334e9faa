"""The publication lists' filters (apps.core.filters)."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.core.filters import FamilyFilterSet, ListFilterSet, query_filter


class PublicationProfileFilter(ListFilterSet):
    """`profileId`: one profile's publications (GET /api/posts/queue; a cancel names one of them)."""

    profileId = query_filter("filter_profile")

    def filter_profile(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(profile_id=self.id_of(value, kind="profile", field=name, detail="Not an id."))


class PublicationFilter(PublicationProfileFilter, FamilyFilterSet):
    """GET /api/posts/scheduled: `profileId`, and `date_from`/`date_to` on the posting time."""

    date_field = "scheduled_for"

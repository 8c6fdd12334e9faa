"""The webhook lists' filters (apps.core.filters): a webhook's deliveries, per family. A bad
value is a 400 naming the parameter."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from apps.core.errors import ValidationFailed
from apps.core.filters import FamilyFilterSet, ListFilterSet, query_filter

from .models import DeliveryStatus

#: what OpenAPI says of a delivery's `status`
STATUS_SCHEMA = {"type": "string", "enum": sorted(DeliveryStatus.values)}


class _DeliveryFilters:
    """What both families' delivery filters read: `status` and `eventType` (`event_type` is
    still read when `eventType` is not given; the schemas do not offer it)."""

    data: dict
    form: Any
    filters: dict[str, Any]

    def filter_status(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value not in DeliveryStatus.values:
            raise ValidationFailed(
                f"status must be one of {', '.join(DeliveryStatus.values)}.", {"status": ["Unknown status."]}
            )
        return queryset.filter(status=value)

    def filter_event_type(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(event_type=value)

    #: checked before the family's own filters (`date_from`, ...): a bad `status` is the 400
    #: whatever else is wrong, as when the view read them itself
    own = ("status", "eventType")

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        given = self.form.cleaned_data
        for name in sorted(given, key=lambda name: name not in self.own):  # (a stable sort)
            queryset = self.filters[name].filter(queryset, given[name])
        alias = self.data.get("event_type")
        if alias and not self.data.get("eventType"):
            queryset = queryset.filter(event_type=alias)
        return queryset


class DeliveryFilterA(_DeliveryFilters, ListFilterSet):
    """GET /v1/webhooks/{id}/deliveries"""

    status = query_filter("filter_status", schema=STATUS_SCHEMA)
    eventType = query_filter("filter_event_type")


class DeliveryFilter(_DeliveryFilters, FamilyFilterSet):
    """GET /api/webhooks/{id}/deliveries (and `date_from`/`date_to` on creation)"""

    status = query_filter("filter_status", schema=STATUS_SCHEMA)
    eventType = query_filter("filter_event_type")

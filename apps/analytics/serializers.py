"""The analytics answers' renderings (apps.core.serializers.OutputSerializer)."""

from __future__ import annotations

from apps.core.serializers import OutputSerializer

from . import reports


class ContentMetricsOutput(OutputSerializer):
    # one row of `GET /api/analytics/content` (its OpenAPI shape: openapi.CONTENT_METRICS_ROW)
    def present(self, instance) -> dict:
        return reports.present_content_metrics(instance)

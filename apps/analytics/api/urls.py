from django.urls import path

from .views import AnalyticsApiViewSet, ContentMetricsViewSet, MonitoringViewSet

urlpatterns = [
    path("analytics/profiles", AnalyticsApiViewSet.as_view({"get": "profiles"})),
    path("analytics/overview", AnalyticsApiViewSet.as_view({"get": "overview"})),
    path("analytics/content", ContentMetricsViewSet.as_view({"get": "list"})),
    path("analytics/export", AnalyticsApiViewSet.as_view({"get": "export"})),
    path("analytics/best-times", AnalyticsApiViewSet.as_view({"get": "best_times"})),
    path("monitoring/errors", MonitoringViewSet.as_view({"get": "errors"})),
]

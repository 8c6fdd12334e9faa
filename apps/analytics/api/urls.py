from django.urls import path

from .views import AnalyticsApiViewSet, MonitoringViewSet

urlpatterns = [
    path("analytics/profiles", AnalyticsApiViewSet.as_view({"get": "profiles"})),
    path("analytics/overview", AnalyticsApiViewSet.as_view({"get": "overview"})),
    path("analytics/content", AnalyticsApiViewSet.as_view({"get": "content"})),
    path("analytics/export", AnalyticsApiViewSet.as_view({"get": "export"})),
    path("analytics/best-times", AnalyticsApiViewSet.as_view({"get": "best_times"})),
    path("monitoring/errors", MonitoringViewSet.as_view({"get": "errors"})),
]

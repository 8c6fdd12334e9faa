from django.urls import path

from .views import AnalyticsViewSet

urlpatterns = [
    path("analytics/content", AnalyticsViewSet.as_view({"get": "content"})),
    path("analytics/export", AnalyticsViewSet.as_view({"get": "export"})),
    path("analytics/profiles/<str:pk>", AnalyticsViewSet.as_view({"get": "profile"})),
]

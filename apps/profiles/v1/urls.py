from django.urls import path

from .views import ProfileViewSet

ID = "<str:pk>"

urlpatterns = [
    path("profiles", ProfileViewSet.as_view({"get": "list"})),
    path(f"profiles/{ID}", ProfileViewSet.as_view({"get": "retrieve", "delete": "destroy"})),
    path(f"profiles/{ID}/settings", ProfileViewSet.as_view({"put": "update_settings"})),
]

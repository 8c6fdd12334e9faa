from django.urls import path

from .views import ApprovalLinkViewSet, ContentViewSet

ID = "<str:pk>"

urlpatterns = [
    # the fixed paths before content/<pk>
    path("content", ContentViewSet.as_view({"get": "list"})),
    path("content/generate", ContentViewSet.as_view({"post": "generate"})),
    path("content/batch", ContentViewSet.as_view({"post": "batch"})),
    path(f"content/{ID}", ContentViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
    path(f"content/{ID}/approve", ContentViewSet.as_view({"post": "approve"})),
    path(f"content/{ID}/approval-links", ContentViewSet.as_view({"post": "approval_links"})),
    path(f"approval-links/{ID}", ApprovalLinkViewSet.as_view({"delete": "destroy"})),
    path(f"content/{ID}/reject", ContentViewSet.as_view({"post": "reject"})),
    path(f"content/{ID}/regenerate", ContentViewSet.as_view({"post": "regenerate"})),
    path(f"content/{ID}/edit-image", ContentViewSet.as_view({"post": "edit_image"})),
    path(f"content/{ID}/edit-image/undo", ContentViewSet.as_view({"post": "undo_image_edit"})),
]
